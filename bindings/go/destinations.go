package aeron

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"unsafe"
)

// destinationOp is one of the three pairs of destination calls (publication, exclusive
// publication, subscription), adding or removing.
type destinationOp struct {
	name  string
	start func(async **C.aeron_async_destination_t, uri *C.char) C.int
	poll  func(async *C.aeron_async_destination_t) C.int
}

// runDestination sends a destination command and waits for the driver's answer, at most
// until ctx is done (then the command is polled to its end in the background).
func (c *Client) runDestination(ctx context.Context, op destinationOp, uri string) error {
	if c.closed.Load() {
		return ErrClosed
	}
	text := cString(uri)
	defer C.free(unsafe.Pointer(text))
	var async *C.aeron_async_destination_t
	if _, err := call(op.name, func() C.int { return op.start(&async, text) }); err != nil {
		return err
	}
	return c.await(ctx, op.name+" poll", func() C.int { return op.poll(async) }, func(bool) {})
}

// AddDestination adds a destination (e.g. "aeron:udp?endpoint=host:port") to a
// multi-destination-cast publication (channel "aeron:udp?control-mode=manual") and waits
// for the driver, at most until ctx is done.
func (p *publication) AddDestination(ctx context.Context, uri string) error {
	return p.destination(ctx, uri, true)
}

// RemoveDestination removes a destination added with AddDestination.
func (p *publication) RemoveDestination(ctx context.Context, uri string) error {
	return p.destination(ctx, uri, false)
}

func (p *publication) destination(ctx context.Context, uri string, add bool) error {
	if p.closed.Load() {
		return ErrClosed
	}
	client := p.client.client
	op := destinationOp{}
	switch {
	case p.exclusive && add:
		op.name = "aeron_exclusive_publication_async_add_destination"
		op.start = func(a **C.aeron_async_destination_t, u *C.char) C.int {
			return C.aeron_exclusive_publication_async_add_destination(a, client, p.exclusivePub(), u)
		}
	case p.exclusive:
		op.name = "aeron_exclusive_publication_async_remove_destination"
		op.start = func(a **C.aeron_async_destination_t, u *C.char) C.int {
			return C.aeron_exclusive_publication_async_remove_destination(a, client, p.exclusivePub(), u)
		}
	case add:
		op.name = "aeron_publication_async_add_destination"
		op.start = func(a **C.aeron_async_destination_t, u *C.char) C.int {
			return C.aeron_publication_async_add_destination(a, client, p.concurrent(), u)
		}
	default:
		op.name = "aeron_publication_async_remove_destination"
		op.start = func(a **C.aeron_async_destination_t, u *C.char) C.int {
			return C.aeron_publication_async_remove_destination(a, client, p.concurrent(), u)
		}
	}
	if p.exclusive {
		op.poll = func(a *C.aeron_async_destination_t) C.int {
			return C.aeron_exclusive_publication_async_destination_poll(a)
		}
	} else {
		op.poll = func(a *C.aeron_async_destination_t) C.int { return C.aeron_publication_async_destination_poll(a) }
	}
	return p.client.runDestination(ctx, op, uri)
}

// AddDestination adds a receive destination (e.g. "aeron:udp?endpoint=host:port") to a
// multi-destination subscription (channel "aeron:udp?control-mode=manual") and waits for
// the driver, at most until ctx is done. Any goroutine may call it.
func (s *Subscription) AddDestination(ctx context.Context, uri string) error {
	return s.destination(ctx, uri, true)
}

// RemoveDestination removes a destination added with AddDestination.
func (s *Subscription) RemoveDestination(ctx context.Context, uri string) error {
	return s.destination(ctx, uri, false)
}

func (s *Subscription) destination(ctx context.Context, uri string, add bool) error {
	if s.closed.Load() {
		return ErrClosed
	}
	client := s.client.client
	op := destinationOp{
		name: "aeron_subscription_async_add_destination",
		start: func(a **C.aeron_async_destination_t, u *C.char) C.int {
			return C.aeron_subscription_async_add_destination(a, client, s.sub, u)
		},
		poll: func(a *C.aeron_async_destination_t) C.int { return C.aeron_subscription_async_destination_poll(a) },
	}
	if !add {
		op.name = "aeron_subscription_async_remove_destination"
		op.start = func(a **C.aeron_async_destination_t, u *C.char) C.int {
			return C.aeron_subscription_async_remove_destination(a, client, s.sub, u)
		}
	}
	return s.client.runDestination(ctx, op, uri)
}
