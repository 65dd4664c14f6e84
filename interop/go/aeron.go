// Package aeron wraps the publish/subscribe essentials of aeronrs's C client API (aeronc.h,
// libaeronrs.so) for Go through cgo: a client, publications, and subscriptions that hand
// whole (reassembled) messages to a Go function.
//
// Threading follows the C API: a Client and a Publication may be used from any goroutine; a
// Subscription is polled by one goroutine at a time.
package aeron

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -L${SRCDIR}/../../target/release -laeronrs -Wl,-rpath,${SRCDIR}/../../target/release
#include <stdlib.h>
#include "aeronc.h"

int aeronrs_go_create_assembler(aeron_fragment_assembler_t **assembler, uintptr_t handle);
int aeronrs_go_poll(aeron_subscription_t *subscription, aeron_fragment_assembler_t *assembler, size_t limit);
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"time"
	"unsafe"
)

// Offer results (AERON_PUBLICATION_*): a negative position is one of these.
const (
	NotConnected        = int64(C.AERON_PUBLICATION_NOT_CONNECTED)
	BackPressured       = int64(C.AERON_PUBLICATION_BACK_PRESSURED)
	AdminAction         = int64(C.AERON_PUBLICATION_ADMIN_ACTION)
	Closed              = int64(C.AERON_PUBLICATION_CLOSED)
	MaxPositionExceeded = int64(C.AERON_PUBLICATION_MAX_POSITION_EXCEEDED)
	PublicationError    = int64(C.AERON_PUBLICATION_ERROR)
)

// Error is a failed aeronrs call: aeron_errcode() and aeron_errmsg() of the calling thread.
type Error struct {
	Op   string
	Code int
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: (%d) %s", e.Op, e.Code, e.Msg)
}

// lastError reads the thread-local error. Callers lock their goroutine to its OS thread
// around the failing call and this read (see call).
func lastError(op string) error {
	return &Error{Op: op, Code: int(C.aeron_errcode()), Msg: C.GoString(C.aeron_errmsg())}
}

// call runs f, whose result < 0 means failure, and reads the error on the same OS thread.
func call(op string, f func() C.int) (int, error) {
	lockThread()
	defer unlockThread()
	if result := f(); result < 0 {
		return int(result), lastError(op)
	} else {
		return int(result), nil
	}
}

// Client is a connected aeronrs client.
type Client struct {
	context *C.aeron_context_t
	client  *C.aeron_t
}

// Connect connects to the media driver in aeronDir, waiting at most driverTimeout for it.
func Connect(aeronDir string, driverTimeout time.Duration) (*Client, error) {
	c := &Client{}
	if _, err := call("aeron_context_init", func() C.int { return C.aeron_context_init(&c.context) }); err != nil {
		return nil, err
	}
	dir := C.CString(aeronDir)
	defer C.free(unsafe.Pointer(dir))
	steps := []struct {
		op string
		f  func() C.int
	}{
		{"aeron_context_set_dir", func() C.int { return C.aeron_context_set_dir(c.context, dir) }},
		{"aeron_context_set_driver_timeout_ms", func() C.int {
			return C.aeron_context_set_driver_timeout_ms(c.context, C.uint64_t(driverTimeout.Milliseconds()))
		}},
		{"aeron_context_set_idle_sleep_duration_ns", func() C.int {
			return C.aeron_context_set_idle_sleep_duration_ns(c.context, C.uint64_t(time.Millisecond))
		}},
		{"aeron_init", func() C.int { return C.aeron_init(&c.client, c.context) }},
		{"aeron_start", func() C.int { return C.aeron_start(c.client) }},
	}
	for _, step := range steps {
		if _, err := call(step.op, step.f); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// ClientID is the id the driver knows this client by.
func (c *Client) ClientID() int64 {
	return int64(C.aeron_client_id(c.client))
}

// Close closes the client (and every publication and subscription it made).
func (c *Client) Close() {
	if c.client != nil {
		C.aeron_close(c.client)
		c.client = nil
	}
	if c.context != nil {
		C.aeron_context_close(c.context)
		c.context = nil
	}
}

// await polls an async add until it completes, at most timeout.
func await(op string, timeout time.Duration, poll func() C.int) error {
	deadline := time.Now().Add(timeout)
	for {
		done, err := call(op, poll)
		if err != nil {
			return err
		}
		if done == 1 {
			return nil
		}
		if time.Now().After(deadline) {
			return &Error{Op: op, Code: -1, Msg: "timed out"}
		}
		time.Sleep(time.Millisecond)
	}
}

// Publication is a concurrent publication.
type Publication struct {
	publication *C.aeron_publication_t
}

// AddPublication adds a publication on channel and stream and waits for the driver.
func (c *Client) AddPublication(channel string, streamID int32) (*Publication, error) {
	uri := C.CString(channel)
	defer C.free(unsafe.Pointer(uri))
	var async *C.aeron_async_add_publication_t
	if _, err := call("aeron_async_add_publication", func() C.int {
		return C.aeron_async_add_publication(&async, c.client, uri, C.int32_t(streamID))
	}); err != nil {
		return nil, err
	}
	p := &Publication{}
	err := await("aeron_async_add_publication_poll", 20*time.Second, func() C.int {
		return C.aeron_async_add_publication_poll(&p.publication, async)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Offer appends message; it returns the new stream position, or one of the negative
// results with a nil error (retry on NotConnected, BackPressured, AdminAction), or an
// error when the call itself was wrong.
func (p *Publication) Offer(message []byte) (int64, error) {
	var data *C.uint8_t
	if len(message) > 0 {
		data = (*C.uint8_t)(unsafe.Pointer(&message[0]))
	}
	lockThread()
	defer unlockThread()
	result := int64(C.aeron_publication_offer(p.publication, data, C.size_t(len(message)), nil, nil))
	if result == PublicationError {
		return result, lastError("aeron_publication_offer")
	}
	return result, nil
}

// IsConnected says whether a subscriber is connected.
func (p *Publication) IsConnected() bool {
	return bool(C.aeron_publication_is_connected(p.publication))
}

// SessionID of the publication.
func (p *Publication) SessionID() int32 {
	return int32(C.aeron_publication_session_id(p.publication))
}

// Close closes the publication.
func (p *Publication) Close() {
	if p.publication != nil {
		C.aeron_publication_close(p.publication, nil, nil)
		p.publication = nil
	}
}

// Header describes a received message.
type Header struct {
	SessionID int32
	// Position is the stream position just after the message.
	Position int64
}

// MessageHandler receives one whole message; message is valid only during the call.
type MessageHandler func(message []byte, header Header)

// Subscription is a subscription delivering reassembled messages.
type Subscription struct {
	subscription *C.aeron_subscription_t
	assembler    *C.aeron_fragment_assembler_t
	handle       cgo.Handle
	handler      MessageHandler
}

// AddSubscription adds a subscription on channel and stream and waits for the driver.
func (c *Client) AddSubscription(channel string, streamID int32) (*Subscription, error) {
	uri := C.CString(channel)
	defer C.free(unsafe.Pointer(uri))
	var async *C.aeron_async_add_subscription_t
	if _, err := call("aeron_async_add_subscription", func() C.int {
		return C.aeron_async_add_subscription(&async, c.client, uri, C.int32_t(streamID), nil, nil, nil, nil)
	}); err != nil {
		return nil, err
	}
	s := &Subscription{}
	if err := await("aeron_async_add_subscription_poll", 20*time.Second, func() C.int {
		return C.aeron_async_add_subscription_poll(&s.subscription, async)
	}); err != nil {
		return nil, err
	}
	s.handle = cgo.NewHandle(s)
	if _, err := call("aeron_fragment_assembler_create", func() C.int {
		return C.aeronrs_go_create_assembler(&s.assembler, C.uintptr_t(s.handle))
	}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Poll delivers up to fragmentLimit fragments' worth of messages to handler; it returns the
// fragments read.
func (s *Subscription) Poll(handler MessageHandler, fragmentLimit int) (int, error) {
	s.handler = handler
	defer func() { s.handler = nil }()
	return call("aeron_subscription_poll", func() C.int {
		return C.aeronrs_go_poll(s.subscription, s.assembler, C.size_t(fragmentLimit))
	})
}

// IsConnected says whether a publisher's image is present.
func (s *Subscription) IsConnected() bool {
	return bool(C.aeron_subscription_is_connected(s.subscription))
}

// ImageCount is the number of connected publishers' images.
func (s *Subscription) ImageCount() int {
	return int(C.aeron_subscription_image_count(s.subscription))
}

// Close closes the subscription.
func (s *Subscription) Close() {
	if s.subscription != nil {
		C.aeron_subscription_close(s.subscription, nil, nil)
		s.subscription = nil
	}
	if s.assembler != nil {
		C.aeron_fragment_assembler_delete(s.assembler)
		s.assembler = nil
	}
	if s.handle != 0 {
		s.handle.Delete()
		s.handle = 0
	}
}

//export goOnMessage
func goOnMessage(handle C.uintptr_t, buffer *C.uint8_t, length C.size_t, sessionID C.int32_t, position C.int64_t) {
	s := cgo.Handle(handle).Value().(*Subscription)
	if s.handler == nil {
		return
	}
	message := unsafe.Slice((*byte)(unsafe.Pointer(buffer)), int(length))
	s.handler(message, Header{SessionID: int32(sessionID), Position: int64(position)})
}
