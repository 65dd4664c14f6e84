package aeron

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// received checks a stream of messages from one publisher: each once, in order, intact.
type received struct {
	t        *testing.T
	next     uint64
	length   func(uint64) int
	position int64
	failure  string
}

func (r *received) onMessage(m []byte, h *Header) {
	if r.failure != "" {
		return
	}
	if problem := verify(m, r.next, r.length(r.next)); problem != "" {
		r.failure = problem
		return
	}
	if h.Position() <= r.position {
		r.failure = fmt.Sprintf("message %d: position %d after %d", r.next, h.Position(), r.position)
		return
	}
	r.position = h.Position()
	r.next++
}

// pollUntil polls sub with handler until count messages were seen (seen() reports them).
func pollUntil(t *testing.T, sub *Subscription, handler FragmentHandler, seen func() uint64, count uint64) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for seen() < count {
		n, err := sub.Poll(handler, 64)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("received %d of %d", seen(), count)
			}
			idle()
		}
	}
}

func TestPublishSubscribeAcrossGoroutines(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	const channel = "aeron:ipc?term-length=64k"
	sub, err := client.AddSubscription(ctx, channel, 1001)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddPublication(ctx, channel, 1001)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)

	// Small messages and every 50th fragmented (5000 bytes: 4 frames of a 1408-byte MTU).
	const count = 5000
	length := func(i uint64) int {
		if i%50 == 49 {
			return 5000
		}
		return 32 + int(i%7)
	}
	var wg sync.WaitGroup
	var publishErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := uint64(0); i < count; i++ {
			m := message(i, length(i))
			for {
				_, err := pub.OfferWithReservedValue(m, int64(i))
				if err == nil {
					break
				}
				if !errors.Is(err, ErrBackPressured) && !errors.Is(err, ErrAdminAction) {
					publishErr = err
					return
				}
				time.Sleep(20 * time.Microsecond)
			}
		}
	}()
	r := &received{t: t, length: length}
	reserved := true
	assembler := NewFragmentAssembler(func(m []byte, h *Header) {
		if h.ReservedValue() != int64(r.next) {
			reserved = false
		}
		if h.SessionID() != pub.SessionID() || h.StreamID() != 1001 {
			r.failure = fmt.Sprintf("session %d stream %d", h.SessionID(), h.StreamID())
		}
		if h.Flags()&FlagsUnfragmented != FlagsUnfragmented {
			r.failure = fmt.Sprintf("flags %#x of a whole message", h.Flags())
		}
		r.onMessage(m, h)
	}, 1024)
	pollUntil(t, sub, assembler.OnFragment, func() uint64 {
		if r.failure != "" {
			t.Fatal(r.failure)
		}
		return r.next
	}, count)
	wg.Wait()
	if publishErr != nil {
		t.Fatal(publishErr)
	}
	if !reserved {
		t.Fatal("reserved values differ from the message indexes")
	}
	position, err := pub.Position()
	if err != nil || position != r.position {
		t.Fatalf("publication position %d (%v), last message ends at %d", position, err, r.position)
	}
}

func TestPublishSubscribeAcrossProcesses(t *testing.T) {
	for _, kind := range []string{"embedded", "aeronmd"} {
		t.Run(kind, func(t *testing.T) {
			var dir string
			if kind == "embedded" {
				dir = embeddedDriver(t, nil).Dir()
			} else {
				dir = startAeronmd(t)
			}
			client := connectTo(t, dir)
			const channel, stream, count, length = "aeron:ipc?term-length=1m", 1002, 20000, 100
			sub, err := client.AddSubscription(testContext(t), channel, stream)
			if err != nil {
				t.Fatal(err)
			}
			child := startRole(t, "publisher", "AERON_DIR="+dir, "CHANNEL="+channel,
				"STREAM="+strconv.Itoa(stream), "COUNT="+strconv.Itoa(count), "LENGTH="+strconv.Itoa(length))
			r := &received{t: t, length: func(uint64) int { return length }}
			pollUntil(t, sub, r.onMessage, func() uint64 {
				if r.failure != "" {
					t.Fatal(r.failure)
				}
				return r.next
			}, count)
			waitProcess(t, child)
		})
	}
}

func TestFragmentedOneMiBMessages(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	const channel = "aeron:ipc?term-length=16m"
	sub, err := client.AddSubscription(ctx, channel, 1003)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddExclusivePublication(ctx, channel, 1003)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)
	const count, length = 12, 1 << 20
	if pub.MaxMessageLength() < length {
		t.Fatalf("max message length %d", pub.MaxMessageLength())
	}
	r := &received{t: t, length: func(uint64) int { return length }}
	assembler := NewFragmentAssembler(r.onMessage, 4096)
	for i := uint64(0); i < count; i++ {
		// Two parts, to send through OfferParts: the 8-byte index and the rest.
		m := message(i, length)
		for {
			_, err := pub.OfferParts(m[:8], m[8:])
			if err == nil {
				break
			}
			if oe, ok := err.(OfferError); !ok || !oe.Retryable() {
				t.Fatal(err)
			}
			if _, err := sub.Poll(assembler.OnFragment, 256); err != nil {
				t.Fatal(err)
			}
		}
	}
	pollUntil(t, sub, assembler.OnFragment, func() uint64 {
		if r.failure != "" {
			t.Fatal(r.failure)
		}
		return r.next
	}, count)
}

func TestTryClaimCommitAndAbort(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	const channel = "aeron:ipc?term-length=64k"
	sub, err := client.AddSubscription(ctx, channel, 1004)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddPublication(ctx, channel, 1004)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)

	claim, err := pub.TryClaim(100)
	if err != nil {
		t.Fatal(err)
	}
	copy(claim.Buffer(), message(0, 100))
	if err := claim.SetReservedValue(-42); err != nil {
		t.Fatal(err)
	}
	if err := claim.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := claim.Commit(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second commit: %v", err)
	}
	aborted, err := pub.TryClaim(64)
	if err != nil {
		t.Fatal(err)
	}
	copy(aborted.Buffer(), bytes.Repeat([]byte{0xEE}, 64))
	if err := aborted.Abort(); err != nil {
		t.Fatal(err)
	}
	var into BufferClaim
	if _, err := pub.TryClaimInto(20, &into); err != nil {
		t.Fatal(err)
	}
	copy(into.Buffer(), message(1, 20))
	if err := into.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := pub.TryClaim(pub.MaxPayloadLength() + 1); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("claim beyond the max payload: %v", err)
	}

	var got [][]byte
	var reserved []int64
	waitFor(t, "two messages", func() bool {
		if _, err := sub.Poll(func(m []byte, h *Header) {
			got = append(got, append([]byte(nil), m...))
			reserved = append(reserved, h.ReservedValue())
		}, 10); err != nil {
			t.Fatal(err)
		}
		return len(got) >= 2
	})
	if len(got) != 2 || verify(got[0], 0, 100) != "" || verify(got[1], 1, 20) != "" || reserved[0] != -42 {
		t.Fatalf("received %d messages, reserved %v: the aborted claim must be skipped", len(got), reserved)
	}
}

func TestBackPressure(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	const channel = "aeron:ipc?term-length=64k"
	sub, err := client.AddSubscription(ctx, channel, 1005)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddExclusivePublication(ctx, channel, 1005)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)
	m := message(0, 200)
	sent := uint64(0)
	for {
		fill(m, sent)
		_, err := pub.Offer(m)
		if errors.Is(err, ErrBackPressured) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sent++
	}
	// An IPC window is half a term: 32 KiB of 256-byte frames.
	if sent != 128 {
		t.Fatalf("back pressured after %d messages, want 128", sent)
	}
	var typed OfferError
	if _, err := pub.Offer(m); !errors.As(err, &typed) || typed != ErrBackPressured || !typed.Retryable() {
		t.Fatalf("offer while back pressured: %v", err)
	}
	r := &received{t: t, length: func(uint64) int { return 200 }}
	pollUntil(t, sub, r.onMessage, func() uint64 { return r.next }, sent)
	if r.failure != "" {
		t.Fatal(r.failure)
	}
	fill(m, sent)
	offerUntil(t, pub, m)
	pollUntil(t, sub, r.onMessage, func() uint64 { return r.next }, sent+1)
	if r.failure != "" {
		t.Fatal(r.failure)
	}
}

func TestOfferBatch(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	const channel = "aeron:ipc?term-length=64k"
	sub, err := client.AddSubscription(ctx, channel, 1006)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddPublication(ctx, channel, 1006)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)
	length := func(i uint64) int { return 8 + int(i%5)*30 }
	var buffer []byte
	var lengths []uint32
	for i := uint64(0); i < 400; i++ {
		buffer = append(buffer, message(i, length(i))...)
		lengths = append(lengths, uint32(length(i)))
	}
	if _, _, err := pub.OfferBatch(buffer[:10], lengths); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("lengths past the buffer: %v", err)
	}
	// 400 messages are more than the 32 KiB window: the batch stops back pressured.
	offered, position, err := pub.OfferBatch(buffer, lengths)
	if !errors.Is(err, ErrBackPressured) || offered == 0 || offered >= 400 || position != int64(ErrBackPressured) {
		t.Fatalf("offered %d, position %d: %v", offered, position, err)
	}
	r := &received{t: t, length: length}
	sent := offered
	offsets := 0
	for _, l := range lengths[:offered] {
		offsets += int(l)
	}
	deadline := time.Now().Add(testTimeout)
	for r.next < 400 {
		if r.failure != "" {
			t.Fatal(r.failure)
		}
		if sent < 400 {
			n, _, err := pub.OfferBatch(buffer[offsets:], lengths[sent:])
			if err != nil && !errors.Is(err, ErrBackPressured) {
				t.Fatal(err)
			}
			for _, l := range lengths[sent : sent+n] {
				offsets += int(l)
			}
			sent += n
		}
		if _, err := sub.Poll(r.onMessage, 100); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("received %d", r.next)
		}
	}
	if r.failure != "" {
		t.Fatal(r.failure)
	}
}

func TestOfferPartsBeyondFourParts(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	const channel = "aeron:ipc?term-length=64k"
	sub, err := client.AddSubscription(ctx, channel, 1007)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddExclusivePublication(ctx, channel, 1007)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)
	// Seven parts (passed in a pinned array), one of them empty, and three (as arguments).
	m := message(0, 3000)
	parts := [][]byte{m[:8], m[8:100], {}, m[100:1000], m[1000:1001], m[1001:2500], m[2500:]}
	if _, err := pub.OfferParts(parts...); err != nil {
		t.Fatal(err)
	}
	m1 := message(1, 50)
	if _, err := pub.OfferParts(m1[:8], m1[8:9], m1[9:]); err != nil {
		t.Fatal(err)
	}
	r := &received{t: t, length: func(i uint64) int { return []int{3000, 50}[i] }}
	assembler := NewFragmentAssembler(r.onMessage, 0)
	pollUntil(t, sub, assembler.OnFragment, func() uint64 { return r.next }, 2)
	if r.failure != "" {
		t.Fatal(r.failure)
	}
}

func TestPublishSubscribeOverUDP(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	ctx := testContext(t)
	channel := fmt.Sprintf("aeron:udp?endpoint=127.0.0.1:%d|term-length=64k", freeUDPPort(t))
	events := &imageEvents{}
	sub, err := client.AddSubscription(ctx, channel, 1008, WithAvailableImageHandler(events.onAvailable))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := client.AddPublication(ctx, channel, 1008)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "connected", pub.IsConnected)
	const count = 2000
	length := func(i uint64) int {
		if i%100 == 99 {
			return 3000 // three frames of the default 1408-byte MTU
		}
		return 64
	}
	r := &received{t: t, length: length}
	assembler := NewFragmentAssembler(r.onMessage, 4096)
	sent := uint64(0)
	deadline := time.Now().Add(testTimeout)
	for r.next < count {
		if r.failure != "" {
			t.Fatal(r.failure)
		}
		if sent < count {
			if _, err := pub.Offer(message(sent, length(sent))); err == nil {
				sent++
			} else if oe, ok := err.(OfferError); !ok || !oe.Retryable() {
				t.Fatal(err)
			}
		}
		if n, err := sub.Poll(assembler.OnFragment, 32); err != nil {
			t.Fatal(err)
		} else if n == 0 && sent == count {
			idle()
		}
		if time.Now().After(deadline) {
			t.Fatalf("received %d of %d", r.next, count)
		}
	}
	events.waitForAvailable(t)
	if available, _, sources := events.snapshot(); len(available) != 1 || sources[0] == "aeron:ipc" {
		t.Fatalf("images %v from %v", available, sources)
	}
}
