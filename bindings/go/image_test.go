package aeron

import (
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// imageEvents records the image handlers' calls (they run on the conductor thread).
type imageEvents struct {
	mu          sync.Mutex
	available   []int32
	unavailable []int32
	sources     []string
}

func (e *imageEvents) onAvailable(image *Image) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.available = append(e.available, image.SessionID())
	e.sources = append(e.sources, image.SourceIdentity())
}

func (e *imageEvents) onUnavailable(image *Image) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.unavailable = append(e.unavailable, image.SessionID())
}

func (e *imageEvents) counts() (int, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.available), len(e.unavailable)
}

// snapshot copies what was recorded.
func (e *imageEvents) snapshot() (available, unavailable []int32, sources []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]int32(nil), e.available...), append([]int32(nil), e.unavailable...), append([]string(nil), e.sources...)
}

// waitForAvailable waits for the available handler's first call: it runs on the conductor
// thread after the image joined the subscription, so a poll may see the image's messages
// before it.
func (e *imageEvents) waitForAvailable(t *testing.T) {
	t.Helper()
	waitFor(t, "the available image handler", func() bool { n, _ := e.counts(); return n > 0 })
}

func TestImageGoesAwayWhenThePublisherProcessIsKilled(t *testing.T) {
	driver := embeddedDriver(t, func(c *DriverContext) {
		c.ClientLivenessTimeout = 500 * time.Millisecond
		c.PublicationLingerTimeout = 100 * time.Millisecond
		c.ImageLivenessTimeout = 500 * time.Millisecond
	})
	client := connectTo(t, driver.Dir())
	events := &imageEvents{}
	const channel, stream, count = "aeron:ipc?term-length=64k", 1010, 100
	sub, err := client.AddSubscription(testContext(t), channel, stream,
		WithAvailableImageHandler(events.onAvailable), WithUnavailableImageHandler(events.onUnavailable))
	if err != nil {
		t.Fatal(err)
	}
	child := startRole(t, "publisher-hold", "AERON_DIR="+driver.Dir(), "CHANNEL="+channel,
		"STREAM="+strconv.Itoa(stream), "COUNT="+strconv.Itoa(count), "LENGTH=64")
	r := &received{t: t, length: func(uint64) int { return 64 }}
	pollUntil(t, sub, r.onMessage, func() uint64 { return r.next }, count)
	if r.failure != "" {
		t.Fatal(r.failure)
	}
	events.waitForAvailable(t)
	available, _, sources := events.snapshot()
	if len(available) != 1 || sources[0] != "aeron:ipc" {
		t.Fatalf("available images %v from %v", available, sources)
	}
	images, err := sub.Images()
	if err != nil || len(images) != 1 || images[0].SessionID() != available[0] {
		t.Fatalf("images %v (%v)", images, err)
	}
	position, err := images[0].Position()
	if err != nil || position != r.position {
		t.Fatalf("image position %d (%v), last message ends at %d", position, err, r.position)
	}
	if err := images[0].Release(); err != nil {
		t.Fatal(err)
	}
	if err := images[0].Release(); err == nil {
		t.Fatal("a second release is accepted")
	}

	// SIGKILL: the client cannot close anything; the driver times it out.
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	waitFor(t, "the image to become unavailable", func() bool {
		_, unavailable := events.counts()
		return unavailable == 1
	})
	if _, unavailable, _ := events.snapshot(); unavailable[0] != available[0] {
		t.Fatalf("unavailable %v, available %v", unavailable, available)
	}
	waitFor(t, "no image", func() bool {
		n, err := sub.ImageCount()
		return err == nil && n == 0 && !sub.IsConnected()
	})
}
