package aeron

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

// BusRecordMode is how a mapped bus lays out its records.
type BusRecordMode int

// The record modes; the zero value is variable-length.
const (
	BusVariableLength BusRecordMode = iota
	// BusFixedSize records are all BusConfig.RecordSize bytes (typed messages).
	BusFixedSize
)

// BusStart is where a reader starts.
type BusStart int

// The start points.
const (
	BusStartReplay = BusStart(C.AERONRS_MAPPED_BUS_START_REPLAY)
	BusStartLive   = BusStart(C.AERONRS_MAPPED_BUS_START_LIVE)
	// BusStartAt starts at BusReaderOptions.Position.
	BusStartAt = BusStart(C.AERONRS_MAPPED_BUS_START_AT_POSITION)
)

// ErrRolledBack is a bus write a reader rolled back first (its writer stalled past the
// rollback timeout): write it again.
var ErrRolledBack = &Error{Op: "aeronrs_mapped_bus_writer_write", Code: Code(C.AERONRS_MAPPED_BUS_ROLLED_BACK), Message: "rolled back by a reader"}

// BusConfig is what every writer and reader of one bus agree on. Zero fields keep the
// defaults (variable-length records, 64 MiB segments, 2 s rollback, prefaulted).
type BusConfig struct {
	SegmentLength   uint64
	RecordMode      BusRecordMode
	RecordSize      uint32
	RollbackTimeout time.Duration
	// NoPrefault leaves segment pages to be faulted in on first use.
	NoPrefault bool
}

func (b BusConfig) c() C.aeronrs_mapped_bus_config_t {
	var config C.aeronrs_mapped_bus_config_t
	C.aeronrs_mapped_bus_config_init(&config)
	if b.SegmentLength > 0 {
		config.segment_length = C.uint64_t(b.SegmentLength)
	}
	if b.RecordMode == BusFixedSize {
		config.record_mode = C.AERONRS_MAPPED_BUS_RECORD_MODE_FIXED_SIZE
		config.record_size = C.uint32_t(b.RecordSize)
	}
	if b.RollbackTimeout > 0 {
		config.rollback_timeout_ns = C.int64_t(b.RollbackTimeout.Nanoseconds())
	}
	if b.NoPrefault {
		config.prefault = false
	}
	return config
}

// BusPosition is where a record is: segment index and byte offset.
type BusPosition struct {
	Segment uint64
	Offset  uint64
}

// BusWriter appends to a persistent memory-mapped bus (Mappedbus-style); one goroutine
// at a time per writer, any number of writers and processes per bus.
type BusWriter struct {
	writer *C.aeronrs_mapped_bus_writer_t
	closed atomic.Bool
}

// OpenBusWriter opens the bus at path for appending, creating it if needed.
func OpenBusWriter(path string, config BusConfig) (*BusWriter, error) {
	p := cString(path)
	defer C.free(unsafe.Pointer(p))
	c := config.c()
	w := &BusWriter{}
	if _, err := call("aeronrs_mapped_bus_writer_open", func() C.int {
		return C.aeronrs_mapped_bus_writer_open(&w.writer, p, &c)
	}); err != nil {
		return nil, err
	}
	return w, nil
}

// Write appends a byte message and returns where it went; ErrRolledBack if a reader
// rolled it back first.
func (w *BusWriter) Write(message []byte) (BusPosition, error) {
	if w.closed.Load() {
		return BusPosition{}, ErrClosed
	}
	data, length := cBytes(message)
	var position C.aeronrs_mapped_bus_position_t
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return busResult(C.aeronrs_mapped_bus_writer_write(w.writer, data, length, &position), position)
}

// WriteTyped appends a typed message (fixed-size mode): metadata = messageType.
func (w *BusWriter) WriteTyped(messageType int32, body []byte) (BusPosition, error) {
	if w.closed.Load() {
		return BusPosition{}, ErrClosed
	}
	data, length := cBytes(body)
	var position C.aeronrs_mapped_bus_position_t
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return busResult(C.aeronrs_mapped_bus_writer_write_typed(w.writer, C.int32_t(messageType), data, length, &position), position)
}

// busResult runs on the writing call's locked thread.
func busResult(result C.int, position C.aeronrs_mapped_bus_position_t) (BusPosition, error) {
	p := BusPosition{Segment: uint64(position.segment), Offset: uint64(position.offset)}
	switch {
	case result == C.AERONRS_MAPPED_BUS_ROLLED_BACK:
		return p, ErrRolledBack
	case result < 0:
		return BusPosition{}, lastError("aeronrs_mapped_bus_writer_write")
	}
	return p, nil
}

// Flush writes what was appended so far to disk (msync, and fsync of the folder after a
// new segment).
func (w *BusWriter) Flush() error {
	if w.closed.Load() {
		return ErrClosed
	}
	_, err := call("aeronrs_mapped_bus_writer_flush", func() C.int { return C.aeronrs_mapped_bus_writer_flush(w.writer) })
	return err
}

// Close closes the writer; the records stay. Closing twice answers ErrClosed.
func (w *BusWriter) Close() error {
	if w.closed.Swap(true) {
		return ErrClosed
	}
	C.aeronrs_mapped_bus_writer_close(w.writer)
	return nil
}

// BusRecord is a committed record: its position, metadata (message type of a typed
// record, else the payload length) and body (valid until the reader's next Poll).
type BusRecord struct {
	Position BusPosition
	Metadata int32
	Body     []byte
}

// BusReader reads a bus, one goroutine at a time.
type BusReader struct {
	reader *C.aeronrs_mapped_bus_reader_t
	closed atomic.Bool
}

// OpenBusReader opens the bus at path for reading from start (at position for BusStartAt).
func OpenBusReader(path string, config BusConfig, start BusStart, position BusPosition) (*BusReader, error) {
	p := cString(path)
	defer C.free(unsafe.Pointer(p))
	c := config.c()
	at := C.aeronrs_mapped_bus_position_t{segment: C.uint64_t(position.Segment), offset: C.uint64_t(position.Offset)}
	r := &BusReader{}
	if _, err := call("aeronrs_mapped_bus_reader_open", func() C.int {
		return C.aeronrs_mapped_bus_reader_open(&r.reader, p, &c, C.int(start), &at)
	}); err != nil {
		return nil, err
	}
	return r, nil
}

// Poll reads the next committed record: ok false when there is none yet.
func (r *BusReader) Poll() (record BusRecord, ok bool, err error) {
	if r.closed.Load() {
		return BusRecord{}, false, ErrClosed
	}
	var c C.aeronrs_mapped_bus_record_t
	n, err := call("aeronrs_mapped_bus_reader_poll", func() C.int { return C.aeronrs_mapped_bus_reader_poll(r.reader, &c) })
	if err != nil || n == 0 {
		return BusRecord{}, false, err
	}
	return BusRecord{
		Position: BusPosition{Segment: uint64(c.position.segment), Offset: uint64(c.position.offset)},
		Metadata: int32(c.metadata),
		Body:     unsafe.Slice((*byte)(unsafe.Pointer(c.body)), int(c.body_length)),
	}, true, nil
}

// HasRecovered says whether the reader rolled back a stalled writer's record.
func (r *BusReader) HasRecovered() bool {
	return !r.closed.Load() && bool(C.aeronrs_mapped_bus_reader_has_recovered(r.reader))
}

// Position is where the reader looks for the next record.
func (r *BusReader) Position() (BusPosition, error) {
	if r.closed.Load() {
		return BusPosition{}, ErrClosed
	}
	var c C.aeronrs_mapped_bus_position_t
	_, err := call("aeronrs_mapped_bus_reader_position", func() C.int { return C.aeronrs_mapped_bus_reader_position(r.reader, &c) })
	return BusPosition{Segment: uint64(c.segment), Offset: uint64(c.offset)}, err
}

// Close closes the reader. Closing twice answers ErrClosed.
func (r *BusReader) Close() error {
	if r.closed.Swap(true) {
		return ErrClosed
	}
	C.aeronrs_mapped_bus_reader_close(r.reader)
	return nil
}
