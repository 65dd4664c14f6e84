package aeron

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// Image is one publisher's stream within a subscription (aeron_image_t). Images from
// Subscription.ImageAt, ImageBySessionID and Images are retained: call Release when done
// (the subscription's Close releases any left). Images given to the image handlers are
// valid until the unavailable handler was called for them plus the resource linger. Every
// method answers ErrClosed (or false) once the image is released or its subscription
// closed.
type Image struct {
	image *C.aeron_image_t
	sub   *Subscription
	// retained: from a subscription query, to Release.
	retained bool
	released atomic.Bool

	correlationID        int64
	joinPosition         int64
	sessionID            int32
	initialTermID        int32
	subscriberPositionID int32
	termBufferLength     int
	mtuLength            int
	positionBitsToShift  int
	sourceIdentity       string
}

func newImage(image *C.aeron_image_t, sub *Subscription, retained bool) *Image {
	var k C.aeron_image_constants_t
	C.aeron_image_constants(image, &k)
	return &Image{
		image:                image,
		sub:                  sub,
		retained:             retained,
		correlationID:        int64(k.correlation_id),
		joinPosition:         int64(k.join_position),
		sessionID:            int32(k.session_id),
		initialTermID:        int32(k.initial_term_id),
		subscriberPositionID: int32(k.subscriber_position_id),
		termBufferLength:     int(k.term_buffer_length),
		mtuLength:            int(k.mtu_length),
		positionBitsToShift:  int(k.position_bits_to_shift),
		sourceIdentity:       C.GoString(k.source_identity),
	}
}

// CorrelationID names the image (Header.ImageCorrelationID matches it).
func (i *Image) CorrelationID() int64 { return i.correlationID }

// SessionID of the publisher.
func (i *Image) SessionID() int32 { return i.sessionID }

// JoinPosition is the position the subscriber joined the stream at.
func (i *Image) JoinPosition() int64 { return i.joinPosition }

// InitialTermID of the stream.
func (i *Image) InitialTermID() int32 { return i.initialTermID }

// SubscriberPositionID is the counter id of this subscriber's position.
func (i *Image) SubscriberPositionID() int32 { return i.subscriberPositionID }

// TermBufferLength of the stream's log.
func (i *Image) TermBufferLength() int { return i.termBufferLength }

// MTULength of the stream's frames.
func (i *Image) MTULength() int { return i.mtuLength }

// SourceIdentity is "aeron:ipc" for IPC, else the sender's address.
func (i *Image) SourceIdentity() string { return i.sourceIdentity }

func (i *Image) usable() bool {
	return !i.released.Load() && !i.sub.closed.Load()
}

// Position is how far the subscriber has consumed the stream.
func (i *Image) Position() (int64, error) {
	if !i.usable() {
		return 0, ErrClosed
	}
	return int64(C.aeron_image_position(i.image)), nil
}

// SetPosition moves the subscriber position within the current term (frame aligned).
// Only the subscription's polling goroutine may call it.
func (i *Image) SetPosition(position int64) error {
	if !i.usable() {
		return ErrClosed
	}
	_, err := call("aeron_image_set_position", func() C.int { return C.aeron_image_set_position(i.image, C.int64_t(position)) })
	return err
}

// IsEndOfStream says whether the publisher ended the stream and all of it was consumed.
func (i *Image) IsEndOfStream() bool {
	return i.usable() && bool(C.aeron_image_is_end_of_stream(i.image))
}

// EndOfStreamPosition is where the publisher ended the stream (max int64 while it goes on).
func (i *Image) EndOfStreamPosition() (int64, error) {
	if !i.usable() {
		return 0, ErrClosed
	}
	return int64(C.aeron_image_end_of_stream_position(i.image)), nil
}

// ActiveTransportCount is the live sender connections of a network image (0 for IPC).
func (i *Image) ActiveTransportCount() (int, error) {
	if !i.usable() {
		return 0, ErrClosed
	}
	return int(C.aeron_image_active_transport_count(i.image)), nil
}

// IsClosed says whether the image is gone (unavailable) or released.
func (i *Image) IsClosed() bool {
	return !i.usable() || bool(C.aeron_image_is_closed(i.image))
}

// Reject asks the driver to stop accepting this network image (Aeron 1.47 Image.reject).
func (i *Image) Reject(reason string) error {
	if !i.usable() {
		return ErrClosed
	}
	text := cString(reason)
	defer C.free(unsafe.Pointer(text))
	_, err := call("aeron_image_reject", func() C.int { return C.aeron_image_reject(i.image, text) })
	return err
}

// Release gives back an image retained by a subscription query; a second Release, or one
// of an image a handler was given, answers ErrClosed.
func (i *Image) Release() error {
	if !i.retained || i.released.Swap(true) || !i.sub.release(i) {
		return ErrClosed
	}
	return nil
}
