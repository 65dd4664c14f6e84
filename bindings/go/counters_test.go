package aeron

import (
	"bytes"
	"testing"
)

func TestCountersReaderSeesAnAddedCounter(t *testing.T) {
	driver := embeddedDriver(t, nil)
	client := connectTo(t, driver.Dir())
	key := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	counter, err := client.AddCounter(testContext(t), 4242, key, "go binding counter")
	if err != nil {
		t.Fatal(err)
	}
	if err := counter.Set(40); err != nil {
		t.Fatal(err)
	}
	if v, err := counter.Add(2); err != nil || v != 42 {
		t.Fatalf("add: %d %v", v, err)
	}
	reader, err := client.CountersReader()
	if err != nil {
		t.Fatal(err)
	}
	if v, err := reader.Value(counter.ID()); err != nil || v != 42 {
		t.Fatalf("value %d %v", v, err)
	}
	if label, err := reader.Label(counter.ID()); err != nil || label != "go binding counter" {
		t.Fatalf("label %q %v", label, err)
	}
	if typeID, err := reader.TypeID(counter.ID()); err != nil || typeID != 4242 {
		t.Fatalf("type id %d %v", typeID, err)
	}
	if state, err := reader.State(counter.ID()); err != nil || state != CounterRecordAllocated {
		t.Fatalf("state %d %v", state, err)
	}
	if id, err := reader.FindByTypeIDAndRegistrationID(4242, counter.RegistrationID()); err != nil || id != counter.ID() {
		t.Fatalf("find %d %v", id, err)
	}
	var found []CounterInfo
	if err := reader.ForEach(func(c CounterInfo) {
		if c.TypeID == 4242 {
			found = append(found, c)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Value != 42 || !bytes.Equal(found[0].Key[:8], key) || found[0].Label != "go binding counter" {
		t.Fatalf("for each: %+v", found)
	}
	if _, err := reader.Value(1 << 30); !errorsIsInvalidArgument(err) {
		t.Fatalf("value of an id out of range: %v", err)
	}
	if err := counter.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := counter.Get(); err != ErrClosed {
		t.Fatalf("get after close: %v", err)
	}
}
