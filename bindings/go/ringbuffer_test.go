package aeron

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestRingBufferRoundTrips(t *testing.T) {
	for _, kind := range []RingBufferKind{OneToOne, ManyToOne} {
		t.Run(fmt.Sprint(kind), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rb")
			const capacity = 64 * 1024
			consumer, err := CreateRingBuffer(path, kind, capacity)
			if err != nil {
				t.Fatal(err)
			}
			defer consumer.Close()
			if consumer.Capacity() != capacity {
				t.Fatalf("capacity %d", consumer.Capacity())
			}
			producers := 1
			if kind == ManyToOne {
				producers = 3
			}
			const perProducer = 20000
			var wg sync.WaitGroup
			errs := make(chan error, producers)
			for p := 0; p < producers; p++ {
				// Each producer maps the file itself, as another process would.
				producer, err := OpenRingBuffer(path, kind)
				if err != nil {
					t.Fatal(err)
				}
				defer producer.Close()
				wg.Add(1)
				go func(p int) {
					defer wg.Done()
					m := make([]byte, 12+p*5)
					for i := 0; i < perProducer; i++ {
						binary.LittleEndian.PutUint32(m, uint32(p))
						binary.LittleEndian.PutUint64(m[4:], uint64(i))
						for {
							ok, err := producer.Write(int32(100+p), m)
							if err != nil {
								errs <- err
								return
							}
							if ok {
								break
							}
							time.Sleep(10 * time.Microsecond)
						}
					}
				}(p)
			}
			next := make([]uint64, producers)
			total := 0
			deadline := time.Now().Add(testTimeout)
			var failure string
			for total < producers*perProducer && failure == "" {
				n, err := consumer.Read(func(msgType int32, m []byte) {
					p := int(binary.LittleEndian.Uint32(m))
					switch {
					case p >= producers || msgType != int32(100+p) || len(m) != 12+p*5:
						failure = fmt.Sprintf("message type %d length %d from producer %d", msgType, len(m), p)
					case binary.LittleEndian.Uint64(m[4:]) != next[p]:
						failure = fmt.Sprintf("producer %d: message %d, want %d", p, binary.LittleEndian.Uint64(m[4:]), next[p])
					default:
						next[p]++
					}
				}, 1000)
				if err != nil {
					t.Fatal(err)
				}
				total += n
				if n == 0 {
					if time.Now().After(deadline) {
						t.Fatalf("read %d messages", total)
					}
					time.Sleep(10 * time.Microsecond)
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if failure != "" {
				t.Fatal(failure)
			}
			if consumer.Size() != 0 || consumer.ConsumerPosition() != consumer.ProducerPosition() {
				t.Fatalf("size %d after reading everything", consumer.Size())
			}
		})
	}
}

func TestRingBufferClaims(t *testing.T) {
	rb, err := CreateRingBuffer(filepath.Join(t.TempDir(), "rb"), ManyToOne, 4096)
	if err != nil {
		t.Fatal(err)
	}
	claim, err := rb.TryClaim(7, 16)
	if err != nil || claim == nil {
		t.Fatalf("claim: %v", err)
	}
	copy(claim.Buffer(), "claimed message!")
	if err := claim.Commit(); err != nil {
		t.Fatal(err)
	}
	aborted, err := rb.TryClaim(8, 16)
	if err != nil {
		t.Fatal(err)
	}
	if err := aborted.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := aborted.Abort(); err == nil {
		t.Fatal("a second abort is accepted")
	}
	if ok, err := rb.Write(9, make([]byte, rb.MaxMessageLength()+1)); ok || !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("oversized write: %v %v", ok, err)
	}
	var got []string
	n, err := rb.Read(func(msgType int32, m []byte) { got = append(got, fmt.Sprintf("%d:%s", msgType, m)) }, 10)
	if err != nil || n != 1 || len(got) != 1 || got[0] != "7:claimed message!" {
		t.Fatalf("read %d %v %v", n, got, err)
	}
	if err := rb.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.Write(1, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
	if err := rb.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("second close: %v", err)
	}
	if _, err := OpenRingBuffer(filepath.Join(t.TempDir(), "missing"), OneToOne); err == nil {
		t.Fatal("opening a missing file succeeds")
	}
}
