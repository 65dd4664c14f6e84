package aeron

/*
#include "shim.h"
*/
import "C"

import (
	"encoding/binary"
	"unsafe"
)

// reservedValueOffset is where a data frame header holds its reserved value (Aeron: 8
// bytes at offset 24 of the 32-byte header).
const reservedValueOffset = 24

// BufferClaim is a range of a publication's log claimed by TryClaim, to be filled in place
// and then committed (published) or aborted (turned into padding). Subscribers wait at an
// open claim, so commit or abort it promptly.
type BufferClaim struct {
	claim C.aeron_buffer_claim_t
	open  bool
}

// Buffer is the claimed payload, valid until Commit or Abort.
func (b *BufferClaim) Buffer() []byte {
	if !b.open {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(b.claim.data)), int(b.claim.length))
}

// SetReservedValue sets the frame's reserved value (Header.ReservedValue for subscribers).
func (b *BufferClaim) SetReservedValue(value int64) error {
	if !b.open {
		return ErrClosed
	}
	header := unsafe.Slice((*byte)(unsafe.Pointer(b.claim.frame_header)), reservedValueOffset+8)
	binary.LittleEndian.PutUint64(header[reservedValueOffset:], uint64(value))
	return nil
}

// Commit publishes the claimed message. A claim commits or aborts once; after that
// ErrClosed.
func (b *BufferClaim) Commit() error {
	if !b.open {
		return ErrClosed
	}
	b.open = false
	if _, err := call("aeron_buffer_claim_commit", func() C.int { return C.aeron_buffer_claim_commit(&b.claim) }); err != nil {
		return err
	}
	return nil
}

// Abort turns the claimed range into padding subscribers skip.
func (b *BufferClaim) Abort() error {
	if !b.open {
		return ErrClosed
	}
	b.open = false
	if _, err := call("aeron_buffer_claim_abort", func() C.int { return C.aeron_buffer_claim_abort(&b.claim) }); err != nil {
		return err
	}
	return nil
}
