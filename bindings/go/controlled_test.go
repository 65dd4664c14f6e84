package aeron

import (
	"encoding/binary"
	"testing"
)

func TestControlledPollActions(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	const channel = "aeron:ipc?term-length=64k"
	sub, err := client.AddSubscription(ctx, channel, 1020)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddExclusivePublication(ctx, channel, 1020)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)
	for i := uint64(0); i < 10; i++ {
		offerUntil(t, pub, message(i, 40))
	}
	waitFor(t, "the image", func() bool { n, _ := sub.ImageCount(); return n == 1 })
	image, err := sub.ImageAt(0)
	if err != nil || image == nil {
		t.Fatalf("image: %v", err)
	}
	defer image.Release()
	const frame = 96 // 32 + 40 bytes, aligned to 32
	index := func(m []byte) uint64 { return binary.LittleEndian.Uint64(m) }
	var seen []uint64

	// ABORT at the first: nothing consumed.
	n, err := sub.ControlledPoll(func(m []byte, h *Header) Action { seen = append(seen, index(m)); return ActionAbort }, 10)
	if err != nil || n != 0 || len(seen) != 1 || seen[0] != 0 {
		t.Fatalf("abort: %d %v %v", n, seen, err)
	}
	if position, _ := image.Position(); position != 0 {
		t.Fatalf("position after abort %d", position)
	}

	// CONTINUE two, ABORT the third: two consumed, the third comes again.
	seen = nil
	n, _ = sub.ControlledPoll(func(m []byte, h *Header) Action {
		seen = append(seen, index(m))
		if len(seen) == 3 {
			return ActionAbort
		}
		return ActionContinue
	}, 10)
	if n != 2 || len(seen) != 3 {
		t.Fatalf("continue, continue, abort: %d %v", n, seen)
	}
	if position, _ := image.Position(); position != 2*frame {
		t.Fatalf("position %d, want %d", position, 2*frame)
	}

	// BREAK on the first: exactly one consumed.
	seen = nil
	n, _ = sub.ControlledPoll(func(m []byte, h *Header) Action { seen = append(seen, index(m)); return ActionBreak }, 10)
	if n != 1 || len(seen) != 1 || seen[0] != 2 {
		t.Fatalf("break: %d %v", n, seen)
	}

	// COMMIT makes the position visible before the next fragment is handled.
	seen = nil
	var positions []int64
	n, _ = sub.ControlledPoll(func(m []byte, h *Header) Action {
		seen = append(seen, index(m))
		p, _ := image.Position()
		positions = append(positions, p)
		if len(seen) == 2 {
			return ActionAbort
		}
		return ActionCommit
	}, 10)
	if n != 1 || positions[0] != 3*frame || positions[1] != 4*frame {
		t.Fatalf("commit: %d, positions seen %v", n, positions)
	}

	// The rest, with the limit.
	seen = nil
	n, _ = sub.ControlledPoll(func(m []byte, h *Header) Action { seen = append(seen, index(m)); return ActionContinue }, 3)
	if n != 3 || seen[0] != 4 || seen[2] != 6 {
		t.Fatalf("limit 3: %d %v", n, seen)
	}
	seen = nil
	n, _ = sub.Poll(func(m []byte, h *Header) { seen = append(seen, index(m)) }, 10)
	if n != 3 || seen[0] != 7 || seen[2] != 9 {
		t.Fatalf("the rest: %d %v", n, seen)
	}
	if position, _ := image.Position(); position != 10*frame {
		t.Fatalf("final position %d", position)
	}

	// A panicking handler: ControlledPoll leaves the fragment, Poll consumes it (as Aeron's
	// polls do when a handler throws). IPC offers are in the log when they return.
	offerUntil(t, pub, message(10, 40))
	offerUntil(t, pub, message(11, 40))
	seen = nil
	mustPanic(t, func() {
		_, _ = sub.ControlledPoll(func(m []byte, h *Header) Action { seen = append(seen, index(m)); panic("handler") }, 10)
	})
	mustPanic(t, func() {
		_, _ = sub.Poll(func(m []byte, h *Header) { seen = append(seen, index(m)); panic("handler") }, 10)
	})
	n, _ = sub.Poll(func(m []byte, h *Header) { seen = append(seen, index(m)) }, 10)
	if n != 1 || len(seen) != 3 || seen[0] != 10 || seen[1] != 10 || seen[2] != 11 {
		t.Fatalf("after panics: %d %v", n, seen)
	}
}

func mustPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	f()
}

func TestControlledFragmentAssemblerAbortKeepsTheMessage(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	const channel = "aeron:ipc?term-length=64k"
	sub, err := client.AddSubscription(ctx, channel, 1021)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddPublication(ctx, channel, 1021)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)
	offerUntil(t, pub, message(0, 4000))
	offerUntil(t, pub, message(1, 4000))
	aborts := 0
	var got []uint64
	assembler := NewControlledFragmentAssembler(func(m []byte, h *Header) Action {
		if problem := verify(m, uint64(len(got)), 4000); problem != "" {
			t.Fatal(problem)
		}
		if aborts < 2 {
			aborts++
			return ActionAbort
		}
		got = append(got, binary.LittleEndian.Uint64(m))
		return ActionContinue
	}, 1024)
	waitFor(t, "both messages", func() bool {
		if _, err := sub.ControlledPoll(assembler.OnFragment, 10); err != nil {
			t.Fatal(err)
		}
		return len(got) == 2
	})
	if aborts != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("aborts %d, got %v", aborts, got)
	}
}
