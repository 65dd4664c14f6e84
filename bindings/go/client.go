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
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Context configures a client. Zero fields keep libaeronrs's defaults, which come from
// Aeron's environment variables (AERON_DIR, AERON_DRIVER_TIMEOUT, ...) as in Aeron.
type Context struct {
	// Dir is the media driver's directory (AERON_DIR).
	Dir string
	// DriverTimeout is how long to wait for the driver, and how long it may stay silent.
	DriverTimeout time.Duration
	// KeepaliveInterval between the client's heartbeats to the driver.
	KeepaliveInterval time.Duration
	// ResourceLinger is how long closed resources stay mapped.
	ResourceLinger time.Duration
	// IdleSleep is the client conductor thread's sleep when idle.
	IdleSleep time.Duration
	// PreTouchMappedMemory touches log buffers when mapping them.
	PreTouchMappedMemory bool
	// ClientName names the client to the driver.
	ClientName string
	// ErrorHandler receives errors of the client conductor (on its thread); nil prints them.
	ErrorHandler func(error)
}

// Client is a connection to a media driver (aeron_t). Its methods may be called from any
// goroutine.
type Client struct {
	context        *C.aeron_context_t
	client         *C.aeron_t
	dir            string
	errorHandlerID uintptr
	closed         atomic.Bool

	mu        sync.Mutex
	resources map[resource]struct{}
	// abandoned counts adds whose caller gave up (context done) still being polled, so
	// their resource can be closed; Close waits for them.
	abandoned sync.WaitGroup
}

// resource is something a client made and closes when it closes.
type resource interface {
	closeByClient()
}

// Connect starts a client of the media driver in c.Dir. It waits for the driver up to
// the driver timeout, or until ctx is done (then the half-made client is closed in the
// background).
func Connect(ctx context.Context, c Context) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type outcome struct {
		client *Client
		err    error
	}
	done := make(chan outcome, 1)
	go func() {
		client, err := connect(c)
		done <- outcome{client, err}
	}()
	select {
	case o := <-done:
		return o.client, o.err
	case <-ctx.Done():
		go func() {
			if o := <-done; o.client != nil {
				o.client.Close()
			}
		}()
		return nil, fmt.Errorf("aeron: connect: %w", ctx.Err())
	}
}

func connect(c Context) (*Client, error) {
	client := &Client{resources: make(map[resource]struct{})}
	if _, err := call("aeron_context_init", func() C.int { return C.aeron_context_init(&client.context) }); err != nil {
		return nil, err
	}
	fail := func(err error) (*Client, error) {
		client.release()
		return nil, err
	}
	if c.Dir != "" {
		dir := C.CString(c.Dir)
		defer C.free(unsafe.Pointer(dir))
		if _, err := call("aeron_context_set_dir", func() C.int { return C.aeron_context_set_dir(client.context, dir) }); err != nil {
			return fail(err)
		}
	}
	if c.ClientName != "" {
		name := C.CString(c.ClientName)
		defer C.free(unsafe.Pointer(name))
		if _, err := call("aeron_context_set_client_name", func() C.int {
			return C.aeron_context_set_client_name(client.context, name)
		}); err != nil {
			return fail(err)
		}
	}
	settings := []struct {
		op  string
		set bool
		f   func() C.int
	}{
		{"aeron_context_set_driver_timeout_ms", c.DriverTimeout > 0, func() C.int {
			return C.aeron_context_set_driver_timeout_ms(client.context, C.uint64_t(c.DriverTimeout.Milliseconds()))
		}},
		{"aeron_context_set_keepalive_interval_ns", c.KeepaliveInterval > 0, func() C.int {
			return C.aeron_context_set_keepalive_interval_ns(client.context, C.uint64_t(c.KeepaliveInterval.Nanoseconds()))
		}},
		{"aeron_context_set_resource_linger_duration_ns", c.ResourceLinger > 0, func() C.int {
			return C.aeron_context_set_resource_linger_duration_ns(client.context, C.uint64_t(c.ResourceLinger.Nanoseconds()))
		}},
		{"aeron_context_set_idle_sleep_duration_ns", c.IdleSleep > 0, func() C.int {
			return C.aeron_context_set_idle_sleep_duration_ns(client.context, C.uint64_t(c.IdleSleep.Nanoseconds()))
		}},
		{"aeron_context_set_pre_touch_mapped_memory", c.PreTouchMappedMemory, func() C.int {
			return C.aeron_context_set_pre_touch_mapped_memory(client.context, true)
		}},
	}
	for _, s := range settings {
		if !s.set {
			continue
		}
		if _, err := call(s.op, s.f); err != nil {
			return fail(err)
		}
	}
	if c.ErrorHandler != nil {
		client.errorHandlerID = registerCallback(c.ErrorHandler)
		if _, err := call("aeron_context_set_error_handler", func() C.int {
			return C.aeronrs_go_context_set_error_handler(client.context, C.uintptr_t(client.errorHandlerID))
		}); err != nil {
			return fail(err)
		}
	}
	client.dir = C.GoString(C.aeron_context_get_dir(client.context))
	if _, err := call("aeron_init", func() C.int { return C.aeron_init(&client.client, client.context) }); err != nil {
		return fail(err)
	}
	if _, err := call("aeron_start", func() C.int { return C.aeron_start(client.client) }); err != nil {
		return fail(err)
	}
	return client, nil
}

// release frees the C client and context and the error handler's registration.
func (c *Client) release() {
	if c.client != nil {
		C.aeron_close(c.client)
		c.client = nil
	}
	if c.context != nil {
		C.aeron_context_close(c.context)
		c.context = nil
	}
	unregisterCallback(c.errorHandlerID)
}

// Close closes every publication, subscription and counter the client made, then the
// client. Closing twice answers ErrClosed.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return ErrClosed
	}
	c.abandoned.Wait()
	c.mu.Lock()
	resources := c.resources
	c.resources = nil
	c.mu.Unlock()
	for r := range resources {
		r.closeByClient()
	}
	c.release()
	return nil
}

// Dir is the media driver's directory the client connected to.
func (c *Client) Dir() string { return c.dir }

// IsClosed says whether Close was called.
func (c *Client) IsClosed() bool {
	return c.closed.Load()
}

// ClientID is the id the driver knows this client by.
func (c *Client) ClientID() (int64, error) {
	if c.closed.Load() {
		return 0, ErrClosed
	}
	return int64(C.aeron_client_id(c.client)), nil
}

// NextCorrelationID takes a new id from the driver's correlation counter.
func (c *Client) NextCorrelationID() (int64, error) {
	if c.closed.Load() {
		return 0, ErrClosed
	}
	return int64(C.aeron_next_correlation_id(c.client)), nil
}

// track records r to be closed with the client; false once the client is closed.
func (c *Client) track(r resource) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.resources == nil {
		return false
	}
	c.resources[r] = struct{}{}
	return true
}

func (c *Client) untrack(r resource) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.resources, r)
}

// pollInterval is how often a pending add is polled.
const pollInterval = time.Millisecond

// await polls an async add until it completes (1), fails (-1) or ctx is done. Once ctx is
// done it returns ctx's error and hands the add to a goroutine that polls it to its end
// and closes what it made (finish(true)), so nothing is left registered with the driver;
// finish(false) if the add failed after all.
func (c *Client) await(ctx context.Context, op string, poll func() C.int, finish func(made bool)) error {
	timer := time.NewTimer(pollInterval)
	defer timer.Stop()
	for {
		done, err := call(op, poll)
		if err != nil {
			return err
		}
		if done == 1 {
			return nil
		}
		timer.Reset(pollInterval)
		select {
		case <-ctx.Done():
			c.abandon(poll, finish)
			return fmt.Errorf("aeron: %s: %w", op, ctx.Err())
		case <-timer.C:
		}
	}
}

func (c *Client) abandon(poll func() C.int, finish func(made bool)) {
	c.abandoned.Add(1)
	go func() {
		defer c.abandoned.Done()
		// The add completes (or fails) within the driver timeout.
		for {
			runtime.LockOSThread()
			done := poll()
			runtime.UnlockOSThread()
			if done != 0 {
				finish(done == 1)
				return
			}
			time.Sleep(pollInterval)
		}
	}()
}

// cString is a C copy of s, to free with C.free.
func cString(s string) *C.char {
	return C.CString(s)
}
