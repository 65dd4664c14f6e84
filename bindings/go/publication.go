package aeron

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// publication is what Publication and ExclusivePublication share: the same calls, to
// aeron_publication_* or aeron_exclusive_publication_*.
type publication struct {
	ptr       unsafe.Pointer
	exclusive bool
	client    *Client
	closed    atomic.Bool
	constants PublicationConstants
}

// PublicationConstants are what does not change during a publication's life
// (aeron_publication_constants_t).
type PublicationConstants struct {
	Channel                   string
	OriginalRegistrationID    int64
	RegistrationID            int64
	MaxPossiblePosition       int64
	PositionBitsToShift       int
	TermBufferLength          int
	MaxMessageLength          int
	MaxPayloadLength          int
	StreamID                  int32
	SessionID                 int32
	InitialTermID             int32
	PublicationLimitCounterID int32
	ChannelStatusIndicatorID  int32
}

// Publication is a concurrent publication (aeron_publication_t): any goroutine may offer.
type Publication struct{ publication }

// ExclusivePublication is an exclusive publication (aeron_exclusive_publication_t): one
// goroutine at a time offers.
type ExclusivePublication struct{ publication }

func (p *publication) concurrent() *C.aeron_publication_t {
	return (*C.aeron_publication_t)(p.ptr)
}

func (p *publication) exclusivePub() *C.aeron_exclusive_publication_t {
	return (*C.aeron_exclusive_publication_t)(p.ptr)
}

// AddPublication adds a concurrent publication and waits for the driver, at most until
// ctx is done.
func (c *Client) AddPublication(ctx context.Context, channel string, streamID int32) (*Publication, error) {
	p := &Publication{}
	if err := c.addPublication(ctx, &p.publication, channel, streamID, false); err != nil {
		return nil, err
	}
	return p, nil
}

// AddExclusivePublication adds an exclusive publication (its own session) and waits for
// the driver, at most until ctx is done.
func (c *Client) AddExclusivePublication(ctx context.Context, channel string, streamID int32) (*ExclusivePublication, error) {
	p := &ExclusivePublication{}
	if err := c.addPublication(ctx, &p.publication, channel, streamID, true); err != nil {
		return nil, err
	}
	return p, nil
}

func (c *Client) addPublication(ctx context.Context, p *publication, channel string, streamID int32, exclusive bool) error {
	if c.closed.Load() {
		return ErrClosed
	}
	uri := cString(channel)
	defer C.free(unsafe.Pointer(uri))
	p.client, p.exclusive = c, exclusive
	var err error
	if exclusive {
		var async *C.aeron_async_add_exclusive_publication_t
		var made *C.aeron_exclusive_publication_t
		if _, err = call("aeron_async_add_exclusive_publication", func() C.int {
			return C.aeron_async_add_exclusive_publication(&async, c.client, uri, C.int32_t(streamID))
		}); err != nil {
			return err
		}
		err = c.await(ctx, "aeron_async_add_exclusive_publication_poll",
			func() C.int { return C.aeron_async_add_exclusive_publication_poll(&made, async) },
			func(ok bool) {
				if ok {
					C.aeron_exclusive_publication_close(made, nil, nil)
				}
			})
		p.ptr = unsafe.Pointer(made)
	} else {
		var async *C.aeron_async_add_publication_t
		var made *C.aeron_publication_t
		if _, err = call("aeron_async_add_publication", func() C.int {
			return C.aeron_async_add_publication(&async, c.client, uri, C.int32_t(streamID))
		}); err != nil {
			return err
		}
		err = c.await(ctx, "aeron_async_add_publication_poll",
			func() C.int { return C.aeron_async_add_publication_poll(&made, async) },
			func(ok bool) {
				if ok {
					C.aeron_publication_close(made, nil, nil)
				}
			})
		p.ptr = unsafe.Pointer(made)
	}
	if err != nil {
		return err
	}
	p.loadConstants()
	if !c.track(p) {
		p.closeByClient()
		return ErrClosed
	}
	return nil
}

func (p *publication) loadConstants() {
	var k C.aeron_publication_constants_t
	if p.exclusive {
		C.aeron_exclusive_publication_constants(p.exclusivePub(), &k)
	} else {
		C.aeron_publication_constants(p.concurrent(), &k)
	}
	p.constants = PublicationConstants{
		Channel:                   C.GoString(k.channel),
		OriginalRegistrationID:    int64(k.original_registration_id),
		RegistrationID:            int64(k.registration_id),
		MaxPossiblePosition:       int64(k.max_possible_position),
		PositionBitsToShift:       int(k.position_bits_to_shift),
		TermBufferLength:          int(k.term_buffer_length),
		MaxMessageLength:          int(k.max_message_length),
		MaxPayloadLength:          int(k.max_payload_length),
		StreamID:                  int32(k.stream_id),
		SessionID:                 int32(k.session_id),
		InitialTermID:             int32(k.initial_term_id),
		PublicationLimitCounterID: int32(k.publication_limit_counter_id),
		ChannelStatusIndicatorID:  int32(k.channel_status_indicator_id),
	}
}

// Constants of the publication.
func (p *publication) Constants() PublicationConstants { return p.constants }

// Channel the publication was added with.
func (p *publication) Channel() string { return p.constants.Channel }

// StreamID of the publication.
func (p *publication) StreamID() int32 { return p.constants.StreamID }

// SessionID of the publication.
func (p *publication) SessionID() int32 { return p.constants.SessionID }

// RegistrationID of this publication handle.
func (p *publication) RegistrationID() int64 { return p.constants.RegistrationID }

// MaxPayloadLength is the most payload one frame (and one TryClaim) holds.
func (p *publication) MaxPayloadLength() int { return p.constants.MaxPayloadLength }

// MaxMessageLength is the most one Offer takes (fragmented as needed).
func (p *publication) MaxMessageLength() int { return p.constants.MaxMessageLength }

// cBytes is the C view of a slice, without copying: cgo allows a pointer to Go memory
// that holds no Go pointers for the duration of a call.
func cBytes(b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return nil, 0
	}
	return (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(b))), C.size_t(len(b))
}

// Offer appends message to the stream and returns the new stream position, or an
// OfferError (ErrBackPressured, ErrNotConnected, ErrAdminAction: retry;
// ErrPublicationClosed, ErrMaxPositionExceeded), or *Error. The bytes are read by the C
// library in place; nothing is copied on the Go side.
func (p *publication) Offer(message []byte) (int64, error) {
	if p.closed.Load() {
		return 0, ErrClosed
	}
	data, length := cBytes(message)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var result C.int64_t
	if p.exclusive {
		result = C.aeron_exclusive_publication_offer(p.exclusivePub(), data, length, nil, nil)
	} else {
		result = C.aeron_publication_offer(p.concurrent(), data, length, nil, nil)
	}
	return offerResult("offer", result)
}

// OfferWithReservedValue is Offer with the frame's reserved value (the header's 8 bytes
// at offset 24, Header.ReservedValue on the subscriber side) set to reservedValue; each
// fragment of a fragmented message carries it.
func (p *publication) OfferWithReservedValue(message []byte, reservedValue int64) (int64, error) {
	if p.closed.Load() {
		return 0, ErrClosed
	}
	data, length := cBytes(message)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var result C.int64_t
	if p.exclusive {
		result = C.aeronrs_go_exclusive_publication_offer_reserved(p.exclusivePub(), data, length, C.int64_t(reservedValue))
	} else {
		result = C.aeronrs_go_publication_offer_reserved(p.concurrent(), data, length, C.int64_t(reservedValue))
	}
	return offerResult("offer", result)
}

// OfferBatch offers several messages in one C call: message i is the next lengths[i] bytes
// of buffer. It stops at the first message not accepted and returns how many were offered
// (the position after the last), with that message's OfferError or *Error. One cgo call for
// the batch instead of one per message: what a streaming publisher wants. Nothing is copied
// on the Go side.
func (p *publication) OfferBatch(buffer []byte, lengths []uint32) (int, int64, error) {
	if p.closed.Load() {
		return 0, 0, ErrClosed
	}
	total := 0
	for _, length := range lengths {
		total += int(length)
	}
	if total > len(buffer) {
		return 0, 0, &Error{Op: "offer_batch", Code: ErrInvalidArgument,
			Message: fmt.Sprintf("lengths add up to %d bytes, the buffer has %d", total, len(buffer))}
	}
	if len(lengths) == 0 {
		return 0, 0, nil
	}
	data, _ := cBytes(buffer)
	count := C.size_t(len(lengths))
	sizes := (*C.uint32_t)(unsafe.Pointer(unsafe.SliceData(lengths)))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var done C.aeronrs_go_offer_batch_result_t
	if p.exclusive {
		done = C.aeronrs_go_exclusive_publication_offer_batch(p.exclusivePub(), data, sizes, count)
	} else {
		done = C.aeronrs_go_publication_offer_batch(p.concurrent(), data, sizes, count)
	}
	position, err := offerResult("offer", done.result)
	return int(done.offered), position, err
}

// maxDirectParts is how many parts OfferParts passes as arguments; more are pinned.
const maxDirectParts = 4

// OfferParts appends the concatenation of parts as one message (aeron_publication_offerv),
// reading each part in place. Results as Offer.
func (p *publication) OfferParts(parts ...[]byte) (int64, error) {
	if p.closed.Load() {
		return 0, ErrClosed
	}
	if len(parts) > maxDirectParts {
		return p.offerManyParts(parts)
	}
	var b [maxDirectParts]*C.uint8_t
	var l [maxDirectParts]C.size_t
	for i, part := range parts {
		b[i], l[i] = cBytes(part)
	}
	count := C.size_t(len(parts))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var result C.int64_t
	if p.exclusive {
		result = C.aeronrs_go_exclusive_publication_offer_parts(p.exclusivePub(), count,
			b[0], l[0], b[1], l[1], b[2], l[2], b[3], l[3])
	} else {
		result = C.aeronrs_go_publication_offer_parts(p.concurrent(), count,
			b[0], l[0], b[1], l[1], b[2], l[2], b[3], l[3])
	}
	return offerResult("offerv", result)
}

// offerManyParts passes more than four parts in an iovec array holding pinned Go
// pointers, which cgo allows for the call.
func (p *publication) offerManyParts(parts [][]byte) (int64, error) {
	var pinner runtime.Pinner
	defer pinner.Unpin()
	vec := make([]C.aeron_iovec_t, len(parts))
	for i, part := range parts {
		data, length := cBytes(part)
		if data != nil {
			pinner.Pin(data)
		}
		vec[i].iov_base = data
		vec[i].iov_len = length
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var result C.int64_t
	if p.exclusive {
		result = C.aeron_exclusive_publication_offerv(p.exclusivePub(), &vec[0], C.size_t(len(vec)), nil, nil)
	} else {
		result = C.aeron_publication_offerv(p.concurrent(), &vec[0], C.size_t(len(vec)), nil, nil)
	}
	return offerResult("offerv", result)
}

// TryClaim claims length bytes (at most MaxPayloadLength) of the log for the caller to
// fill in place through claim.Buffer(), then Commit or Abort. Results as Offer.
func (p *publication) TryClaim(length int) (*BufferClaim, error) {
	claim := &BufferClaim{}
	if _, err := p.TryClaimInto(length, claim); err != nil {
		return nil, err
	}
	return claim, nil
}

// TryClaimInto is TryClaim into a claim the caller keeps (no allocation); it returns the
// new stream position.
func (p *publication) TryClaimInto(length int, claim *BufferClaim) (int64, error) {
	if p.closed.Load() {
		return 0, ErrClosed
	}
	if length < 0 {
		return 0, &Error{Op: "try_claim", Code: ErrInvalidArgument, Message: "length < 0"}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var result C.int64_t
	if p.exclusive {
		result = C.aeron_exclusive_publication_try_claim(p.exclusivePub(), C.size_t(length), &claim.claim)
	} else {
		result = C.aeron_publication_try_claim(p.concurrent(), C.size_t(length), &claim.claim)
	}
	claim.open = result >= 0
	return offerResult("try_claim", result)
}

// Position is the publication's current position (where the next message goes).
func (p *publication) Position() (int64, error) {
	if p.closed.Load() {
		return 0, ErrClosed
	}
	var result C.int64_t
	if p.exclusive {
		result = C.aeron_exclusive_publication_position(p.exclusivePub())
	} else {
		result = C.aeron_publication_position(p.concurrent())
	}
	return offerResult("position", result)
}

// PositionLimit is the position flow control lets the publication reach now.
func (p *publication) PositionLimit() (int64, error) {
	if p.closed.Load() {
		return 0, ErrClosed
	}
	var result C.int64_t
	if p.exclusive {
		result = C.aeron_exclusive_publication_position_limit(p.exclusivePub())
	} else {
		result = C.aeron_publication_position_limit(p.concurrent())
	}
	return offerResult("position_limit", result)
}

// IsConnected says whether a subscriber is connected; false once closed.
func (p *publication) IsConnected() bool {
	if p.closed.Load() {
		return false
	}
	if p.exclusive {
		return bool(C.aeron_exclusive_publication_is_connected(p.exclusivePub()))
	}
	return bool(C.aeron_publication_is_connected(p.concurrent()))
}

// IsClosed says whether the publication was closed (by Close, its client, or the driver).
func (p *publication) IsClosed() bool {
	if p.closed.Load() {
		return true
	}
	if p.exclusive {
		return bool(C.aeron_exclusive_publication_is_closed(p.exclusivePub()))
	}
	return bool(C.aeron_publication_is_closed(p.concurrent()))
}

// ChannelStatus is the send channel's status (1 ACTIVE, -1 ERRORED).
func (p *publication) ChannelStatus() (int64, error) {
	if p.closed.Load() {
		return 0, ErrClosed
	}
	if p.exclusive {
		return int64(C.aeron_exclusive_publication_channel_status(p.exclusivePub())), nil
	}
	return int64(C.aeron_publication_channel_status(p.concurrent())), nil
}

// Close closes the publication. Closing twice answers ErrClosed.
func (p *publication) Close() error {
	if p.closed.Swap(true) {
		return ErrClosed
	}
	p.client.untrack(p)
	p.closeC()
	return nil
}

func (p *publication) closeByClient() {
	if !p.closed.Swap(true) {
		p.closeC()
	}
}

func (p *publication) closeC() {
	if p.exclusive {
		C.aeron_exclusive_publication_close(p.exclusivePub(), nil, nil)
	} else {
		C.aeron_publication_close(p.concurrent(), nil, nil)
	}
}

// AppendPadding appends a padding frame of length bytes (an exclusive publication's
// aeron_exclusive_publication_append_padding). Results as Offer.
func (p *ExclusivePublication) AppendPadding(length int) (int64, error) {
	if p.closed.Load() {
		return 0, ErrClosed
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return offerResult("append_padding", C.aeron_exclusive_publication_append_padding(p.exclusivePub(), C.size_t(length)))
}
