package aeron

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"testing"
)

func TestMappedBusRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bus")
	// Small segments so the records roll over to new segment files.
	config := BusConfig{SegmentLength: 64 * 1024, NoPrefault: true}
	writer, err := OpenBusWriter(path, config)
	if err != nil {
		t.Fatal(err)
	}
	const count = 3000
	positions := make([]BusPosition, count)
	for i := 0; i < count; i++ {
		m := message(uint64(i), 40+i%50)
		if positions[i], err = writer.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := writer.Flush(); err != nil {
		t.Fatal(err)
	}
	if positions[count-1].Segment == 0 {
		t.Fatal("no roll-over to a second segment")
	}
	reader, err := OpenBusReader(path, config, BusStartReplay, BusPosition{})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for i := 0; i < count; i++ {
		record, ok, err := reader.Poll()
		if err != nil || !ok {
			t.Fatalf("record %d: %v %v", i, ok, err)
		}
		if problem := verify(record.Body, uint64(i), 40+i%50); problem != "" {
			t.Fatal(problem)
		}
		if record.Position != positions[i] || record.Metadata != int32(40+i%50) {
			t.Fatalf("record %d at %+v metadata %d, written at %+v", i, record.Position, record.Metadata, positions[i])
		}
	}
	if _, ok, err := reader.Poll(); ok || err != nil {
		t.Fatalf("a record past the end: %v %v", ok, err)
	}
	// A reader opened at a position starts with the record there.
	at, err := OpenBusReader(path, config, BusStartAt, positions[2500])
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	if record, ok, err := at.Poll(); !ok || err != nil || binary.LittleEndian.Uint64(record.Body) != 2500 {
		t.Fatalf("reader at a position: %v %v", ok, err)
	}
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
}

func TestMappedBusTypedRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bus")
	config := BusConfig{SegmentLength: 64 * 1024, RecordMode: BusFixedSize, RecordSize: 16, NoPrefault: true}
	writer, err := OpenBusWriter(path, config)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	reader, err := OpenBusReader(path, config, BusStartLive, BusPosition{})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for i := 0; i < 100; i++ {
		body := make([]byte, 16)
		binary.LittleEndian.PutUint64(body, uint64(i*i))
		if _, err := writer.WriteTyped(int32(i%4+1), body); err != nil {
			t.Fatal(err)
		}
		record, ok, err := reader.Poll()
		if err != nil || !ok || record.Metadata != int32(i%4+1) || len(record.Body) != 16 ||
			binary.LittleEndian.Uint64(record.Body) != uint64(i*i) {
			t.Fatalf("record %d: %+v %v %v", i, record, ok, err)
		}
	}
	if _, err := writer.WriteTyped(1, make([]byte, 17)); err == nil {
		t.Fatal("a body longer than the record size is accepted")
	}
}
