package aeron

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestConnectWithoutDriverTimesOut(t *testing.T) {
	_, err := Connect(context.Background(), Context{Dir: filepath.Join(t.TempDir(), "none"), DriverTimeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrTimedOut) || !errors.Is(err, syscall.ETIMEDOUT) {
		t.Fatalf("connect without a driver: %v", err)
	}
	var aeronErr *Error
	if !errors.As(err, &aeronErr) || aeronErr.Op != "aeron_init" {
		t.Fatalf("want *Error from aeron_init: %#v", err)
	}
}

func TestTypedErrors(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)

	if _, err := client.AddPublication(ctx, "aeron:bogus", 1); !errors.Is(err, ErrInvalidChannel) {
		t.Fatalf("unknown media: %v", err)
	}
	if _, err := client.AddSubscription(ctx, "aeron:udp?endpoint=no-port", 1); err == nil {
		t.Fatal("an endpoint without a port is accepted")
	}
	if _, err := client.AddPublication(ctx, "aeron:ipc?term-length=3k", 1); !errors.Is(err, ErrInvalidArgument) && !errors.Is(err, ErrInvalidChannel) && !errors.Is(err, ErrGeneric) {
		t.Fatalf("bad term length: %v", err)
	}

	pub, err := client.AddPublication(ctx, "aeron:ipc?term-length=64k", 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pub.Offer([]byte("x")); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("offer without subscribers: %v", err)
	}
	if _, err := pub.Offer(make([]byte, pub.MaxMessageLength()+1)); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("oversized offer: %v", err)
	}
	if err := pub.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pub.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second close: %v", err)
	}
	if _, err := pub.Offer([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("offer after close: %v", err)
	}
	if _, err := pub.TryClaim(8); !errors.Is(err, ErrClosed) {
		t.Fatalf("claim after close: %v", err)
	}
	if _, err := pub.Position(); !errors.Is(err, ErrClosed) || pub.IsConnected() || !pub.IsClosed() {
		t.Fatalf("position after close: %v", err)
	}

	sub, err := client.AddSubscription(ctx, "aeron:ipc", 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Poll(func([]byte, *Header) {}, 10); !errors.Is(err, ErrClosed) {
		t.Fatalf("poll after close: %v", err)
	}
	if _, err := sub.ControlledPoll(func([]byte, *Header) Action { return ActionContinue }, 10); !errors.Is(err, ErrClosed) {
		t.Fatalf("controlled poll after close: %v", err)
	}
	if err := sub.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second close: %v", err)
	}

	// Closing the client closes what it made.
	exclusive, err := client.AddExclusivePublication(ctx, "aeron:ipc", 4)
	if err != nil {
		t.Fatal(err)
	}
	counter, err := client.AddCounter(ctx, 1001, nil, "go test counter")
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := exclusive.Offer([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("offer after the client closed: %v", err)
	}
	if _, err := counter.Add(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("counter after the client closed: %v", err)
	}
	if _, err := client.AddPublication(ctx, "aeron:ipc", 5); !errors.Is(err, ErrClosed) {
		t.Fatalf("add after close: %v", err)
	}
	if err := client.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second client close: %v", err)
	}
}

func TestAddRespectsContextDeadline(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := client.AddPublication(ctx, "aeron:ipc", 6); !errors.Is(err, context.Canceled) {
		t.Fatalf("add with a cancelled context: %v", err)
	}
	// The abandoned add completes in the background and its publication is closed.
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
}

func errorsIsInvalidArgument(err error) bool { return errors.Is(err, ErrInvalidArgument) }

func TestDriverRefusesBadSettings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "aeron")
	if _, err := LaunchEmbeddedDriver(DriverContext{Dir: dir, TermBufferLength: 1000}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a term length that is not a power of two: %v", err)
	}
	if _, err := LaunchEmbeddedDriver(DriverContext{Dir: dir, SharedIdle: IdleStrategy{Name: "bogus"}}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("an unknown idle strategy: %v", err)
	}
	driver := embeddedDriver(t, nil)
	if _, err := LaunchEmbeddedDriver(DriverContext{Dir: driver.Dir()}); err == nil {
		t.Fatal("a second driver in an active driver's directory starts")
	}
	if err := driver.Close(); err != nil {
		t.Fatal(err)
	}
	if err := driver.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second close: %v", err)
	}
}
