package aeron

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildCSample compiles examples-c/<name>.c (with sample_util.c) against the library as
// pkg-config describes it, into the test's temporary directory.
func buildCSample(t *testing.T, name string) string {
	t.Helper()
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "aeronrs").Output()
	if err != nil {
		t.Fatalf("pkg-config aeronrs: %v (set PKG_CONFIG_PATH to the staged package)", err)
	}
	libdir, err := exec.Command("pkg-config", "--variable=libdir", "aeronrs").Output()
	if err != nil {
		t.Fatal(err)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	out := filepath.Join(t.TempDir(), name)
	args := []string{"-O2", "-o", out, "../../examples-c/" + name + ".c", "../../examples-c/sample_util.c"}
	args = append(args, strings.Fields(string(flags))...)
	args = append(args, "-Wl,-rpath,"+strings.TrimSpace(string(libdir)))
	if output, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, output)
	}
	return out
}

// A C publisher (Aeron's streaming_publisher sample, in C over aeronc.h) and a Go
// subscriber through one driver: every message once, in order, as sent.
func TestCPublisherGoSubscriber(t *testing.T) {
	publisher := buildCSample(t, "streaming_publisher")
	dir := startAeronmd(t)
	client := connectTo(t, dir)
	const stream, count, length = 1030, 50000, 32
	sub, err := client.AddSubscription(testContext(t), "aeron:ipc", stream)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(publisher, "-p", dir, "-c", "aeron:ipc", "-s", "1030", "-m", "50000", "-L", "32")
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
	next := uint64(0)
	failure := ""
	zero := make([]byte, length-8)
	pollUntil(t, sub, func(m []byte, h *Header) {
		switch {
		case failure != "":
		case len(m) != length || binary.LittleEndian.Uint64(m) != next || string(m[8:]) != string(zero):
			failure = "unexpected message"
		default:
			next++
		}
	}, func() uint64 {
		if failure != "" {
			t.Fatalf("message %d: %s", next, failure)
		}
		return next
	}, count)
	waitProcess(t, cmd)
}
