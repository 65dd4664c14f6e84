package aeron

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"context"
	"sync/atomic"
	"unsafe"
)

// Counter record states (CountersReader.State).
const (
	CounterRecordUnused    = int32(C.AERON_COUNTER_RECORD_UNUSED)
	CounterRecordAllocated = int32(C.AERON_COUNTER_RECORD_ALLOCATED)
	CounterRecordReclaimed = int32(C.AERON_COUNTER_RECORD_RECLAIMED)
)

// CounterInfo is one allocated counter as CountersReader.ForEach sees it.
type CounterInfo struct {
	ID     int32
	TypeID int32
	Value  int64
	Key    []byte
	Label  string
}

// CountersReader reads the driver's counters (aeron_counters_reader_t), from any goroutine.
type CountersReader struct {
	client *Client
	reader *C.aeron_counters_reader_t
}

// CountersReader is a reader of the driver's counters, valid while the client is open.
func (c *Client) CountersReader() (*CountersReader, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	return &CountersReader{client: c, reader: C.aeron_counters_reader(c.client)}, nil
}

func (r *CountersReader) open() error {
	if r.client.closed.Load() {
		return ErrClosed
	}
	return nil
}

// ForEach calls visit for each allocated counter, on this goroutine.
func (r *CountersReader) ForEach(visit func(CounterInfo)) error {
	if err := r.open(); err != nil {
		return err
	}
	id := registerCallback(visit)
	defer unregisterCallback(id)
	C.aeronrs_go_counters_foreach(r.reader, C.uintptr_t(id))
	return nil
}

// MaxCounterID is the highest counter id the buffers hold.
func (r *CountersReader) MaxCounterID() (int32, error) {
	if err := r.open(); err != nil {
		return 0, err
	}
	return int32(C.aeron_counters_reader_max_counter_id(r.reader)), nil
}

// Value of counter id.
func (r *CountersReader) Value(id int32) (int64, error) {
	if err := r.open(); err != nil {
		return 0, err
	}
	var addr *C.int64_t
	if err := callOK("aeron_counters_reader_addr", func() bool {
		addr = C.aeron_counters_reader_addr(r.reader, C.int32_t(id))
		return addr != nil
	}); err != nil {
		return 0, err
	}
	return atomic.LoadInt64((*int64)(unsafe.Pointer(addr))), nil
}

// State of counter id's record (CounterRecord*).
func (r *CountersReader) State(id int32) (int32, error) {
	if err := r.open(); err != nil {
		return 0, err
	}
	var state C.int32_t
	_, err := call("aeron_counters_reader_counter_state", func() C.int {
		return C.aeron_counters_reader_counter_state(r.reader, C.int32_t(id), &state)
	})
	return int32(state), err
}

// TypeID of counter id.
func (r *CountersReader) TypeID(id int32) (int32, error) {
	if err := r.open(); err != nil {
		return 0, err
	}
	var typeID C.int32_t
	_, err := call("aeron_counters_reader_counter_type_id", func() C.int {
		return C.aeron_counters_reader_counter_type_id(r.reader, C.int32_t(id), &typeID)
	})
	return int32(typeID), err
}

// RegistrationID of counter id.
func (r *CountersReader) RegistrationID(id int32) (int64, error) {
	if err := r.open(); err != nil {
		return 0, err
	}
	var registrationID C.int64_t
	_, err := call("aeron_counters_reader_counter_registration_id", func() C.int {
		return C.aeron_counters_reader_counter_registration_id(r.reader, C.int32_t(id), &registrationID)
	})
	return int64(registrationID), err
}

// Label of counter id.
func (r *CountersReader) Label(id int32) (string, error) {
	if err := r.open(); err != nil {
		return "", err
	}
	buffer := make([]byte, 512)
	n, err := call("aeron_counters_reader_counter_label", func() C.int {
		return C.aeron_counters_reader_counter_label(r.reader, C.int32_t(id), (*C.char)(unsafe.Pointer(&buffer[0])), C.size_t(len(buffer)))
	})
	if err != nil {
		return "", err
	}
	return string(buffer[:min(n, len(buffer))]), nil
}

// FindByTypeIDAndRegistrationID is the id of the allocated counter with typeID and
// registrationID, or -1.
func (r *CountersReader) FindByTypeIDAndRegistrationID(typeID int32, registrationID int64) (int32, error) {
	if err := r.open(); err != nil {
		return 0, err
	}
	return int32(C.aeron_counters_reader_find_by_type_id_and_registration_id(r.reader, C.int32_t(typeID), C.int64_t(registrationID))), nil
}

// Counter is a counter this client allocated (aeron_counter_t); any goroutine may update it.
type Counter struct {
	counter        *C.aeron_counter_t
	value          *int64
	client         *Client
	closed         atomic.Bool
	id             int32
	registrationID int64
}

// AddCounter allocates a counter of typeID with key and label and waits for the driver,
// at most until ctx is done.
func (c *Client) AddCounter(ctx context.Context, typeID int32, key []byte, label string) (*Counter, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	keyC := C.CBytes(key)
	defer C.free(keyC)
	labelC := cString(label)
	defer C.free(unsafe.Pointer(labelC))
	var async *C.aeron_async_add_counter_t
	if _, err := call("aeron_async_add_counter", func() C.int {
		return C.aeron_async_add_counter(&async, c.client, C.int32_t(typeID), (*C.uint8_t)(keyC), C.size_t(len(key)),
			labelC, C.size_t(len(label)))
	}); err != nil {
		return nil, err
	}
	var made *C.aeron_counter_t
	if err := c.await(ctx, "aeron_async_add_counter_poll",
		func() C.int { return C.aeron_async_add_counter_poll(&made, async) },
		func(ok bool) {
			if ok {
				C.aeron_counter_close(made, nil, nil)
			}
		}); err != nil {
		return nil, err
	}
	var k C.aeron_counter_constants_t
	C.aeron_counter_constants(made, &k)
	counter := &Counter{
		counter:        made,
		value:          (*int64)(unsafe.Pointer(C.aeron_counter_addr(made))),
		client:         c,
		id:             int32(k.counter_id),
		registrationID: int64(k.registration_id),
	}
	if !c.track(counter) {
		counter.closeByClient()
		return nil, ErrClosed
	}
	return counter, nil
}

// ID of the counter in the driver's counters.
func (c *Counter) ID() int32 { return c.id }

// RegistrationID of the counter.
func (c *Counter) RegistrationID() int64 { return c.registrationID }

// Get is the counter's value.
func (c *Counter) Get() (int64, error) {
	if c.closed.Load() {
		return 0, ErrClosed
	}
	return atomic.LoadInt64(c.value), nil
}

// Set stores value (ordered: readers see earlier writes first).
func (c *Counter) Set(value int64) error {
	if c.closed.Load() {
		return ErrClosed
	}
	atomic.StoreInt64(c.value, value)
	return nil
}

// Add adds delta and returns the new value.
func (c *Counter) Add(delta int64) (int64, error) {
	if c.closed.Load() {
		return 0, ErrClosed
	}
	return atomic.AddInt64(c.value, delta), nil
}

// IsClosed says whether the counter was closed (by Close, its client or the driver).
func (c *Counter) IsClosed() bool {
	return c.closed.Load() || bool(C.aeron_counter_is_closed(c.counter))
}

// Close frees the counter. Closing twice answers ErrClosed.
func (c *Counter) Close() error {
	if c.closed.Swap(true) {
		return ErrClosed
	}
	c.client.untrack(c)
	C.aeron_counter_close(c.counter, nil, nil)
	return nil
}

func (c *Counter) closeByClient() {
	if !c.closed.Swap(true) {
		C.aeron_counter_close(c.counter, nil, nil)
	}
}
