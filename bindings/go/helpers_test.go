package aeron

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// testTimeout bounds every wait of a test.
const testTimeout = 30 * time.Second

// roleEnv names the role a re-executed test binary plays (a publisher process, ...).
const roleEnv = "AERONRS_GO_TEST_ROLE"

func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runRole(role))
	}
	os.Exit(m.Run())
}

// testContext is a context ending with the test's time bound.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// embeddedDriver launches a driver in its own temporary directory (shared threading,
// sleeping when idle: the machine has two cores) and closes it when the test ends.
func embeddedDriver(t *testing.T, tune func(*DriverContext)) *EmbeddedDriver {
	t.Helper()
	c := DriverContext{
		Dir:                 filepath.Join(t.TempDir(), "aeron"),
		DirDeleteOnStart:    true,
		DirDeleteOnShutdown: true,
		ThreadingMode:       ThreadingShared,
		SharedIdle:          SleepingIdle(time.Millisecond),
		TimerInterval:       10 * time.Millisecond,
	}
	if tune != nil {
		tune(&c)
	}
	driver, err := LaunchEmbeddedDriver(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := driver.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("driver close: %v", err)
		}
	})
	return driver
}

// aeronmdPath is the standalone driver the tests run (AERONMD, else the release build).
func aeronmdPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AERONMD")
	if path == "" {
		path = "../../target/release/aeronmd"
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("%s missing: cargo build --release --bin aeronmd (scripts/go-tests.sh does)", abs)
	}
	return abs
}

// startAeronmd runs the standalone driver in a fresh directory and stops it (SIGTERM,
// then SIGKILL) when the test ends; the directory.
func startAeronmd(t *testing.T, env ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "aeron")
	cmd := exec.Command(aeronmdPath(t))
	cmd.Env = append(append(os.Environ(), "AERON_DIR="+dir, "AERON_DIR_DELETE_ON_SHUTDOWN=true",
		"AERON_THREADING_MODE=SHARED", "AERON_SHARED_IDLE_STRATEGY=sleep-ns",
		"AERON_SHARED_IDLE_STRATEGY_INIT_ARGS=1ms"), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopProcess(t, cmd, syscall.SIGTERM) })
	started := make(chan struct{})
	go func() {
		scanner := bufio.NewScanner(stdout)
		signalled := false
		for scanner.Scan() {
			if !signalled && strings.Contains(scanner.Text(), "driver started") {
				close(started)
				signalled = true
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(testTimeout):
		t.Fatal("aeronmd did not start")
	}
	return dir
}

// stopProcess signals cmd and waits for it, killing it if it does not exit in time.
func stopProcess(t *testing.T, cmd *exec.Cmd, signal syscall.Signal) {
	t.Helper()
	if cmd.ProcessState != nil {
		return
	}
	_ = cmd.Process.Signal(signal)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(testTimeout):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("%s did not stop on %v", cmd.Path, signal)
	}
}

// startRole re-runs this test binary as a child process playing role, killed when the
// test ends if still running.
func startRole(t *testing.T, role string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), roleEnv+"="+role), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// waitProcess waits for cmd to exit successfully within the test bound.
func waitProcess(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", cmd.Env[len(cmd.Env)-1], err)
		}
	case <-time.After(testTimeout):
		_ = cmd.Process.Kill()
		t.Fatal("child process did not finish")
	}
}

// connectTo starts a client of the driver in dir, closed when the test ends.
func connectTo(t *testing.T, dir string) *Client {
	t.Helper()
	client, err := Connect(testContext(t), Context{Dir: dir, IdleSleep: time.Millisecond, DriverTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// waitFor polls done (sleeping a millisecond between tries) until it holds or the test
// bound passes.
func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// message i of length bytes: bytes 0..8 = i, then a pattern of i.
func message(i uint64, length int) []byte {
	m := make([]byte, length)
	fill(m, i)
	return m
}

func fill(m []byte, i uint64) {
	binary.LittleEndian.PutUint64(m, i)
	for j := 8; j < len(m); j++ {
		m[j] = byte(i*7 + uint64(j))
	}
}

// verify says how m differs from message i of length bytes ("" when it does not).
func verify(m []byte, i uint64, length int) string {
	if len(m) != length {
		return fmt.Sprintf("message %d: %d bytes, want %d", i, len(m), length)
	}
	if got := binary.LittleEndian.Uint64(m); got != i {
		return fmt.Sprintf("message %d: carries index %d", i, got)
	}
	for j := 8; j < len(m); j++ {
		if m[j] != byte(i*7+uint64(j)) {
			return fmt.Sprintf("message %d: byte %d is %d", i, j, m[j])
		}
	}
	return ""
}

// offerUntil offers m until it is accepted, retrying what is worth a retry.
func offerUntil(t *testing.T, p interface{ Offer([]byte) (int64, error) }, m []byte) int64 {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for {
		position, err := p.Offer(m)
		if err == nil {
			return position
		}
		if oe, ok := err.(OfferError); !ok || !oe.Retryable() {
			t.Fatalf("offer: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("offer still %v after %v", err, testTimeout)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// idle is what a test's polling loop does when a poll found nothing.
func idle() { time.Sleep(50 * time.Microsecond) }
