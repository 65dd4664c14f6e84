package aeron

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// SubscriptionOption sets an optional part of AddSubscription.
type SubscriptionOption func(*imageCallbacks)

// WithAvailableImageHandler calls handler (on the client conductor's thread) when a
// publisher's image joins the subscription. The *Image is valid until the unavailable
// handler was called for it plus the client's resource linger.
func WithAvailableImageHandler(handler func(*Image)) SubscriptionOption {
	return func(c *imageCallbacks) { c.onAvailable = handler }
}

// WithUnavailableImageHandler calls handler (on the conductor's thread, or in Close) when
// an image leaves the subscription (its publisher closed, timed out or was killed).
func WithUnavailableImageHandler(handler func(*Image)) SubscriptionOption {
	return func(c *imageCallbacks) { c.onUnavailable = handler }
}

// Subscription receives the streams (images) of one channel and stream id
// (aeron_subscription_t). One goroutine at a time polls it; the queries may be called from
// any goroutine.
type Subscription struct {
	sub         *C.aeron_subscription_t
	client      *Client
	closed      atomic.Bool
	callbacksID uintptr

	channel        string
	streamID       int32
	registrationID int64

	// The poller's: a C array of descriptors the batch poll fills, and the header handed
	// to handlers.
	descriptors *C.aeronrs_fragment_descriptor_t
	capacity    int
	header      Header
	counters    *C.aeron_counters_reader_t
	positions   positionCounters

	mu       sync.Mutex
	retained map[*Image]struct{}
}

// AddSubscription adds a subscription and waits for the driver, at most until ctx is done.
func (c *Client) AddSubscription(ctx context.Context, channel string, streamID int32, options ...SubscriptionOption) (*Subscription, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	handlers := &imageCallbacks{}
	for _, option := range options {
		option(handlers)
	}
	s := &Subscription{client: c, channel: channel, streamID: streamID, retained: make(map[*Image]struct{})}
	handlers.owner = s
	if handlers.onAvailable != nil || handlers.onUnavailable != nil {
		s.callbacksID = registerCallback(handlers)
	}
	uri := cString(channel)
	defer C.free(unsafe.Pointer(uri))
	var async *C.aeron_async_add_subscription_t
	if _, err := call("aeron_async_add_subscription", func() C.int {
		return C.aeronrs_go_async_add_subscription(&async, c.client, uri, C.int32_t(streamID),
			C.uintptr_t(s.callbacksID), flag(handlers.onAvailable != nil), flag(handlers.onUnavailable != nil))
	}); err != nil {
		unregisterCallback(s.callbacksID)
		return nil, err
	}
	var made *C.aeron_subscription_t
	err := c.await(ctx, "aeron_async_add_subscription_poll",
		func() C.int { return C.aeron_async_add_subscription_poll(&made, async) },
		func(ok bool) {
			if ok {
				C.aeron_subscription_close(made, nil, nil)
			}
			unregisterCallback(s.callbacksID)
		})
	if err != nil {
		if !isAbandoned(ctx) {
			unregisterCallback(s.callbacksID)
		}
		return nil, err
	}
	s.sub = made
	s.counters = C.aeron_counters_reader(c.client)
	var k C.aeron_subscription_constants_t
	C.aeron_subscription_constants(made, &k)
	s.registrationID = int64(k.registration_id)
	if !c.track(s) {
		s.closeByClient()
		return nil, ErrClosed
	}
	return s, nil
}

// isAbandoned says whether an add gave up because ctx is done (its callbacks then stay
// registered until the background poll has closed what it made).
func isAbandoned(ctx context.Context) bool { return ctx.Err() != nil }

func flag(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Channel the subscription was added with.
func (s *Subscription) Channel() string { return s.channel }

// StreamID of the subscription.
func (s *Subscription) StreamID() int32 { return s.streamID }

// RegistrationID of the subscription.
func (s *Subscription) RegistrationID() int64 { return s.registrationID }

// descriptorsFor makes room for limit descriptors (C memory, grown, never shrunk).
func (s *Subscription) descriptorsFor(limit int) {
	if limit <= s.capacity {
		return
	}
	C.free(unsafe.Pointer(s.descriptors))
	s.descriptors = (*C.aeronrs_fragment_descriptor_t)(C.calloc(C.size_t(limit), C.sizeof_aeronrs_fragment_descriptor_t))
	s.capacity = limit
}

// describe runs one batch poll: the descriptors of up to limit fragments, not yet
// consumed.
func (s *Subscription) describe(limit int) ([]C.aeronrs_fragment_descriptor_t, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if limit <= 0 {
		return nil, nil
	}
	s.descriptorsFor(limit)
	runtime.LockOSThread()
	n := int(C.aeronrs_subscription_poll_batch(s.sub, s.descriptors, C.size_t(limit)))
	if n < 0 {
		err := lastError("aeronrs_subscription_poll_batch")
		runtime.UnlockOSThread()
		return nil, err
	}
	runtime.UnlockOSThread()
	if n == 0 {
		return nil, nil
	}
	return unsafe.Slice(s.descriptors, n), nil
}

// commit consumes the fragments batch describes: each image's subscriber position moves
// to its last fragment there (they come in runs per image, in stream order).
func (s *Subscription) commit(batch []C.aeronrs_fragment_descriptor_t) {
	for start := 0; start < len(batch); {
		end := start + 1
		for end < len(batch) && batch[end].image == batch[start].image {
			end++
		}
		s.commitTo(&batch[end-1])
		start = end
	}
}

// commitTo moves d's image's subscriber position forward to d's position. The store goes
// straight to the position counter (what aeron_image_set_position does, without a cgo
// call): only this poller writes it, a release store is what the driver's flow control
// reads, and the positions the poll described are frame aligned within the image's term.
// An image that closed meanwhile is written harmlessly: its counter is freed for reuse only
// after the driver's reuse timeout, and its position was frozen when it closed.
func (s *Subscription) commitTo(d *C.aeronrs_fragment_descriptor_t) {
	counter := s.positionCounter(d)
	position := int64(d.position)
	if counter == nil {
		C.aeronrs_fragment_batch_commit(d, 1)
		return
	}
	if position > atomic.LoadInt64(counter) {
		atomic.StoreInt64(counter, position)
	}
}

// positionCacheSize is how many images' position counters a subscription remembers.
const positionCacheSize = 8

// positionCounters remembers the subscriber position counters of recently polled images
// by correlation id (unique per driver).
type positionCounters struct {
	ids      [positionCacheSize]int64
	counters [positionCacheSize]*int64
	used     int
	next     int
}

// positionCounter is the address of d's image's subscriber position counter in the
// client's counters (mapped while the client is open); nil if it cannot be found.
func (s *Subscription) positionCounter(d *C.aeronrs_fragment_descriptor_t) *int64 {
	id := int64(d.image_correlation_id)
	cache := &s.positions
	for i := 0; i < cache.used; i++ {
		if cache.ids[i] == id {
			return cache.counters[i]
		}
	}
	var k C.aeron_image_constants_t
	if C.aeron_image_constants(d.image, &k) < 0 {
		return nil
	}
	addr := C.aeron_counters_reader_addr(s.counters, k.subscriber_position_id)
	if addr == nil {
		return nil
	}
	counter := (*int64)(unsafe.Pointer(addr))
	slot := cache.next
	cache.ids[slot], cache.counters[slot] = id, counter
	cache.next = (slot + 1) % positionCacheSize
	cache.used = max(cache.used, slot+1)
	return counter
}

func payload(d *C.aeronrs_fragment_descriptor_t) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(d.buffer)), int(d.length))
}

// Poll hands up to fragmentLimit fragments, from the images in turn, to handler and
// consumes them; it returns how many. handler gets each payload in place (valid during
// the call). If handler panics, the fragments before it and the one it panicked on are
// consumed (as Aeron's poll consumes a fragment whose handler threw).
func (s *Subscription) Poll(handler FragmentHandler, fragmentLimit int) (int, error) {
	batch, err := s.describe(fragmentLimit)
	if len(batch) == 0 {
		return 0, err
	}
	return s.deliver(handler, batch), nil
}

func (s *Subscription) deliver(handler FragmentHandler, batch []C.aeronrs_fragment_descriptor_t) (delivered int) {
	// Consume what was handled, also when a handler panics.
	defer func() { s.commit(batch[:delivered]) }()
	for i := range batch {
		d := &batch[i]
		s.header.d = *d
		delivered = i + 1
		handler(payload(d), &s.header)
	}
	return delivered
}

// ControlledPoll is Poll with handler choosing per fragment (ActionAbort, ActionBreak,
// ActionCommit, ActionContinue) as Aeron's controlled poll: ABORT leaves the fragment and
// the rest of its image for the next poll, BREAK consumes it and stops that image,
// COMMIT consumes it and makes the position visible at once, CONTINUE consumes it. It
// returns the fragments consumed. If handler panics, that fragment is not consumed (as
// Aeron's controlled poll).
func (s *Subscription) ControlledPoll(handler ControlledFragmentHandler, fragmentLimit int) (int, error) {
	batch, err := s.describe(fragmentLimit)
	if len(batch) == 0 {
		return 0, err
	}
	return s.deliverControlled(handler, batch), nil
}

func (s *Subscription) deliverControlled(handler ControlledFragmentHandler, batch []C.aeronrs_fragment_descriptor_t) int {
	consumed := 0
	// The last consumed fragment of the image being walked, not yet committed (-1: none).
	pending := -1
	defer func() {
		if pending >= 0 {
			s.commitTo(&batch[pending])
		}
	}()
	for start := 0; start < len(batch); {
		image := batch[start].image
		end := start + 1
		for end < len(batch) && batch[end].image == image {
			end++
		}
	image:
		for i := start; i < end; i++ {
			d := &batch[i]
			s.header.d = *d
			action := handler(payload(d), &s.header)
			if action == ActionAbort {
				break
			}
			consumed++
			pending = i
			switch action {
			case ActionBreak:
				break image
			case ActionCommit:
				s.commitTo(&batch[i])
				pending = -1
			}
		}
		if pending >= 0 {
			s.commitTo(&batch[pending])
			pending = -1
		}
		start = end
	}
	return consumed
}

// IsConnected says whether a publisher's image is connected; false once closed.
func (s *Subscription) IsConnected() bool {
	if s.closed.Load() {
		return false
	}
	return bool(C.aeron_subscription_is_connected(s.sub))
}

// IsClosed says whether the subscription was closed.
func (s *Subscription) IsClosed() bool {
	if s.closed.Load() {
		return true
	}
	return bool(C.aeron_subscription_is_closed(s.sub))
}

// ImageCount is the number of images (connected publishers' streams).
func (s *Subscription) ImageCount() (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	return int(C.aeron_subscription_image_count(s.sub)), nil
}

// ChannelStatus is the receive channel's status (1 ACTIVE, -1 ERRORED).
func (s *Subscription) ChannelStatus() (int64, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	return int64(C.aeron_subscription_channel_status(s.sub)), nil
}

// ImageBySessionID is the image of the publisher with sessionID (nil if none), retained
// until its Release (or the subscription's close).
func (s *Subscription) ImageBySessionID(sessionID int32) (*Image, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	return s.retain(C.aeron_subscription_image_by_session_id(s.sub, C.int32_t(sessionID))), nil
}

// ImageAt is the image at index (nil past the end), retained until its Release.
func (s *Subscription) ImageAt(index int) (*Image, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if index < 0 {
		return nil, nil
	}
	return s.retain(C.aeron_subscription_image_at_index(s.sub, C.size_t(index))), nil
}

// Images are the current images, each retained until its Release.
func (s *Subscription) Images() ([]*Image, error) {
	var images []*Image
	for i := 0; ; i++ {
		image, err := s.ImageAt(i)
		if err != nil || image == nil {
			return images, err
		}
		images = append(images, image)
	}
}

func (s *Subscription) retain(image *C.aeron_image_t) *Image {
	if image == nil {
		return nil
	}
	img := newImage(image, s, true)
	s.mu.Lock()
	s.retained[img] = struct{}{}
	s.mu.Unlock()
	return img
}

// release gives back a retained image; false if it was not retained (any more).
func (s *Subscription) release(img *Image) bool {
	s.mu.Lock()
	_, ok := s.retained[img]
	delete(s.retained, img)
	s.mu.Unlock()
	if ok {
		C.aeron_subscription_image_release(s.sub, img.image)
	}
	return ok
}

// Close closes the subscription: its images become unavailable (the unavailable handler
// runs for each, on this goroutine) and retained images are released. Closing twice
// answers ErrClosed.
func (s *Subscription) Close() error {
	if s.closed.Swap(true) {
		return ErrClosed
	}
	s.client.untrack(s)
	s.closeC()
	return nil
}

func (s *Subscription) closeByClient() {
	if !s.closed.Swap(true) {
		s.closeC()
	}
}

func (s *Subscription) closeC() {
	s.mu.Lock()
	retained := s.retained
	s.retained = map[*Image]struct{}{}
	s.mu.Unlock()
	for img := range retained {
		img.released.Store(true)
		C.aeron_subscription_image_release(s.sub, img.image)
	}
	C.aeron_subscription_close(s.sub, nil, nil)
	unregisterCallback(s.callbacksID)
	C.free(unsafe.Pointer(s.descriptors))
	s.descriptors, s.capacity = nil, 0
}
