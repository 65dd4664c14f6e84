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

// RingBufferKind is a ring buffer's producer model.
type RingBufferKind int

// The kinds (Agrona's OneToOneRingBuffer and ManyToOneRingBuffer).
const (
	OneToOne  = RingBufferKind(C.AERONRS_RING_BUFFER_ONE_TO_ONE)
	ManyToOne = RingBufferKind(C.AERONRS_RING_BUFFER_MANY_TO_ONE)
)

// RingBufferTrailerLength is the bytes after the data region: a buffer file is capacity
// plus this.
const RingBufferTrailerLength = int(C.AERONRS_RING_BUFFER_TRAILER_LENGTH)

// readBatchCapacity is how many messages one Read copies out at most.
const readBatchCapacity = 256

// RingBuffer is an Agrona/Aeron ring buffer in a memory-mapped file, laid out as Aeron's,
// so processes (Go, C, Java Agrona) can share it. One-to-one: one producer and one
// consumer goroutine at a time; many-to-one: any number of producers, one consumer.
type RingBuffer struct {
	rb     *C.aeronrs_ring_buffer_t
	closed atomic.Bool
	// The consumer's copy-out batch (C memory): Read copies messages out of the ring in
	// one C call, since the ring's space is the producers' again once the read returns.
	batch *C.aeronrs_go_rb_batch_t
}

// CreateRingBuffer creates (or truncates) the file at path with capacity data bytes (a
// power of two) and maps it.
func CreateRingBuffer(path string, kind RingBufferKind, capacity int) (*RingBuffer, error) {
	p := cString(path)
	defer C.free(unsafe.Pointer(p))
	r := &RingBuffer{}
	if _, err := call("aeronrs_ring_buffer_create", func() C.int {
		return C.aeronrs_ring_buffer_create(&r.rb, C.aeronrs_ring_buffer_kind_t(kind), p, C.size_t(capacity))
	}); err != nil {
		return nil, err
	}
	return r, nil
}

// OpenRingBuffer maps the existing ring buffer file at path.
func OpenRingBuffer(path string, kind RingBufferKind) (*RingBuffer, error) {
	p := cString(path)
	defer C.free(unsafe.Pointer(p))
	r := &RingBuffer{}
	if _, err := call("aeronrs_ring_buffer_open", func() C.int {
		return C.aeronrs_ring_buffer_open(&r.rb, C.aeronrs_ring_buffer_kind_t(kind), p)
	}); err != nil {
		return nil, err
	}
	return r, nil
}

// Write copies message in as one message of msgTypeID (>= 1). It answers false when the
// buffer is full (try again later).
func (r *RingBuffer) Write(msgTypeID int32, message []byte) (bool, error) {
	if r.closed.Load() {
		return false, ErrClosed
	}
	data, length := cBytes(message)
	n, err := call("aeronrs_ring_buffer_write", func() C.int {
		return C.aeronrs_ring_buffer_write(r.rb, C.int32_t(msgTypeID), unsafe.Pointer(data), length)
	})
	return n == 1, err
}

// RingBufferClaim is room claimed in a ring buffer for a message written in place.
type RingBufferClaim struct {
	rb     *RingBuffer
	index  C.size_t
	buffer []byte
}

// TryClaim claims room for a length-byte message of msgTypeID; nil when full. Fill
// claim.Buffer() and Commit or Abort it (the consumer waits at the claim until then).
func (r *RingBuffer) TryClaim(msgTypeID int32, length int) (*RingBufferClaim, error) {
	if r.closed.Load() {
		return nil, ErrClosed
	}
	claim := &RingBufferClaim{rb: r}
	var payload *C.uint8_t
	n, err := call("aeronrs_ring_buffer_try_claim", func() C.int {
		return C.aeronrs_ring_buffer_try_claim(r.rb, C.int32_t(msgTypeID), C.size_t(length), &claim.index, &payload)
	})
	if err != nil || n == 0 {
		return nil, err
	}
	claim.buffer = unsafe.Slice((*byte)(unsafe.Pointer(payload)), length)
	return claim, nil
}

// Buffer is the claimed room, valid until Commit or Abort.
func (c *RingBufferClaim) Buffer() []byte { return c.buffer }

// Commit publishes the claimed message.
func (c *RingBufferClaim) Commit() error {
	if c.rb.closed.Load() {
		return ErrClosed
	}
	c.buffer = nil
	_, err := call("aeronrs_ring_buffer_commit", func() C.int { return C.aeronrs_ring_buffer_commit(c.rb.rb, c.index) })
	return err
}

// Abort turns the claim into padding the consumer skips.
func (c *RingBufferClaim) Abort() error {
	if c.rb.closed.Load() {
		return ErrClosed
	}
	c.buffer = nil
	_, err := call("aeronrs_ring_buffer_abort", func() C.int { return C.aeronrs_ring_buffer_abort(c.rb.rb, c.index) })
	return err
}

// RingBufferHandler receives one message; message is valid during the call only.
type RingBufferHandler func(msgTypeID int32, message []byte)

// Read hands up to limit messages to handler (consumer goroutine only) and returns how
// many. The messages are copied out of the ring in one C call, then handled in Go.
func (r *RingBuffer) Read(handler RingBufferHandler, limit int) (int, error) {
	if r.closed.Load() {
		return 0, ErrClosed
	}
	if r.batch == nil {
		if err := r.allocateBatch(); err != nil {
			return 0, err
		}
	}
	total := 0
	for total < limit {
		n, err := call("aeronrs_ring_buffer_controlled_read", func() C.int {
			return C.aeronrs_go_ring_buffer_read_batch(r.rb, r.batch, C.size_t(min(limit-total, readBatchCapacity)))
		})
		if err != nil {
			return total, err
		}
		arena := unsafe.Slice((*byte)(unsafe.Pointer(r.batch.arena)), int(r.batch.arena_length))
		for _, m := range unsafe.Slice(r.batch.messages, int(r.batch.count)) {
			handler(int32(m.msg_type_id), arena[m.offset:m.offset+C.size_t(m.length)])
		}
		total += n
		// A short batch means the ring had no more (or the arena filled: read on).
		if n == 0 || int(r.batch.count) < readBatchCapacity && int(r.batch.used) < int(r.batch.arena_length)/2 {
			break
		}
	}
	return total, nil
}

func (r *RingBuffer) allocateBatch() error {
	maxLength := int(C.aeronrs_ring_buffer_max_msg_length(r.rb))
	// Room for the largest message plus a full batch of small ones.
	arenaLength := maxLength + readBatchCapacity*64
	batch := (*C.aeronrs_go_rb_batch_t)(C.calloc(1, C.sizeof_aeronrs_go_rb_batch_t))
	batch.arena = (*C.uint8_t)(C.malloc(C.size_t(arenaLength)))
	batch.arena_length = C.size_t(arenaLength)
	batch.messages = (*C.aeronrs_go_rb_message_t)(C.calloc(readBatchCapacity, C.sizeof_aeronrs_go_rb_message_t))
	batch.capacity = readBatchCapacity
	r.batch = batch
	return nil
}

// Capacity is the data capacity in bytes.
func (r *RingBuffer) Capacity() int64 {
	return r.int64(func() C.int64_t { return C.aeronrs_ring_buffer_capacity(r.rb) })
}

// MaxMessageLength is the largest message Write accepts.
func (r *RingBuffer) MaxMessageLength() int64 {
	return r.int64(func() C.int64_t { return C.aeronrs_ring_buffer_max_msg_length(r.rb) })
}

// ProducerPosition is the bytes ever claimed.
func (r *RingBuffer) ProducerPosition() int64 {
	return r.int64(func() C.int64_t { return C.aeronrs_ring_buffer_producer_position(r.rb) })
}

// ConsumerPosition is the bytes ever consumed.
func (r *RingBuffer) ConsumerPosition() int64 {
	return r.int64(func() C.int64_t { return C.aeronrs_ring_buffer_consumer_position(r.rb) })
}

// Size is the bytes claimed but not yet consumed.
func (r *RingBuffer) Size() int64 {
	return r.int64(func() C.int64_t { return C.aeronrs_ring_buffer_size(r.rb) })
}

// NextCorrelationID takes an id from the buffer's correlation counter.
func (r *RingBuffer) NextCorrelationID() int64 {
	return r.int64(func() C.int64_t { return C.aeronrs_ring_buffer_next_correlation_id(r.rb) })
}

// int64 runs a getter; -1 once closed.
func (r *RingBuffer) int64(get func() C.int64_t) int64 {
	if r.closed.Load() {
		return -1
	}
	return int64(get())
}

// Close unmaps the buffer (the file stays). Closing twice answers ErrClosed.
func (r *RingBuffer) Close() error {
	if r.closed.Swap(true) {
		return ErrClosed
	}
	C.aeronrs_ring_buffer_close(r.rb)
	if r.batch != nil {
		C.free(unsafe.Pointer(r.batch.arena))
		C.free(unsafe.Pointer(r.batch.messages))
		C.free(unsafe.Pointer(r.batch))
		r.batch = nil
	}
	return nil
}
