package aeron

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startDriver runs target/release/aeronmd in a fresh Aeron directory and stops it when the
// test ends.
func startDriver(t *testing.T) string {
	t.Helper()
	aeronmd, err := filepath.Abs("../../target/release/aeronmd")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(aeronmd); err != nil {
		t.Fatalf("%s missing: run cargo build --release --bin aeronmd (scripts/interop-langs.sh does)", aeronmd)
	}
	dir := filepath.Join(t.TempDir(), "aeron")
	cmd := exec.Command(aeronmd)
	cmd.Env = append(os.Environ(), "AERON_DIR="+dir, "AERON_DIR_DELETE_ON_SHUTDOWN=true")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("aeronmd did not stop on SIGTERM")
		}
	})
	started := make(chan bool, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if strings.Contains(scanner.Text(), "driver started") {
				started <- true
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("aeronmd did not start")
	}
	return dir
}

// message i: bytes 0..8 = i (little-endian), byte j >= 8 = (i + j) & 0xFF.
func message(i uint64, length int) []byte {
	m := make([]byte, length)
	binary.LittleEndian.PutUint64(m, i)
	for j := 8; j < length; j++ {
		m[j] = byte(i + uint64(j))
	}
	return m
}

func offer(t *testing.T, p *Publication, m []byte) int64 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		position, err := p.Offer(m)
		if err != nil {
			t.Fatal(err)
		}
		if position > 0 {
			return position
		}
		if position == Closed || position == MaxPositionExceeded {
			t.Fatalf("offer: %d", position)
		}
		if time.Now().After(deadline) {
			t.Fatalf("offer still %d after 20 s", position)
		}
	}
}

func TestPublishSubscribeThroughTheDriver(t *testing.T) {
	dir := startDriver(t)
	client, err := Connect(dir, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if client.ClientID() < 0 {
		t.Fatal("no client id")
	}
	channel := "aeron:ipc?term-length=64k"
	subscription, err := client.AddSubscription(channel, 1001)
	if err != nil {
		t.Fatal(err)
	}
	defer subscription.Close()
	publication, err := client.AddPublication(channel, 1001)
	if err != nil {
		t.Fatal(err)
	}
	defer publication.Close()
	deadline := time.Now().Add(20 * time.Second)
	for !publication.IsConnected() || subscription.ImageCount() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("not connected")
		}
		time.Sleep(time.Millisecond)
	}

	// Small messages and fragmented ones (5000 bytes: 4 fragments) in one stream.
	const count = 2000
	lengths := func(i int) int {
		if i%100 == 99 {
			return 5000
		}
		return 32
	}
	received := 0
	var lastPosition int64
	handler := func(m []byte, h Header) {
		want := message(uint64(received), lengths(received))
		if !bytes.Equal(m, want) {
			t.Fatalf("message %d: %d bytes, first %x, want %d bytes", received, len(m), m[:8], len(want))
		}
		if h.SessionID != publication.SessionID() || h.Position <= lastPosition {
			t.Fatalf("message %d: session %d position %d after %d", received, h.SessionID, h.Position, lastPosition)
		}
		lastPosition = h.Position
		received++
	}
	for i := 0; i < count; i++ {
		offer(t, publication, message(uint64(i), lengths(i)))
		// Keep up so the 64 KiB term window never fills for long.
		if _, err := subscription.Poll(handler, 10); err != nil {
			t.Fatal(err)
		}
	}
	deadline = time.Now().Add(20 * time.Second)
	for received < count {
		if _, err := subscription.Poll(handler, 100); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("received %d of %d", received, count)
		}
	}
}

func TestErrorsCarryAeronCodes(t *testing.T) {
	_, err := Connect(filepath.Join(t.TempDir(), "no-driver"), 100*time.Millisecond)
	aeronErr, ok := err.(*Error)
	if !ok || aeronErr.Code != int(syscall.ETIMEDOUT) {
		t.Fatalf("connect without a driver: %v", err)
	}

	dir := startDriver(t)
	client, err := Connect(dir, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	_, err = client.AddPublication("aeron:bogus", 1)
	if aeronErr, ok := err.(*Error); !ok || aeronErr.Code >= 0 {
		t.Fatalf("a channel the driver refuses: %v", err)
	}
	publication, err := client.AddPublication("aeron:ipc?term-length=64k", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer publication.Close()
	// Longer than a term allows: the call fails with EINVAL.
	position, err := publication.Offer(make([]byte, 64*1024))
	if position != PublicationError || err == nil || err.(*Error).Code != int(syscall.EINVAL) {
		t.Fatalf("oversized offer: %d %v", position, err)
	}
	if position, err := publication.Offer([]byte("x")); err != nil || position != NotConnected {
		t.Fatalf("offer without subscribers: %d %v", position, err)
	}
}
