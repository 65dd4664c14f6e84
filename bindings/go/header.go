package aeron

/*
#include "shim.h"
*/
import "C"

// Frame flags (Header.Flags).
const (
	FlagBegin         = uint8(0x80)
	FlagEnd           = uint8(0x40)
	FlagEndOfStream   = uint8(0x20)
	FlagsUnfragmented = FlagBegin | FlagEnd
)

// dataHeaderLength is the data frame header's size (Aeron: 32 bytes).
const dataHeaderLength = 32

// Header is the frame header of the fragment being handled, with the stream's constants,
// copied from the poll's descriptor (aeronrs_fragment_descriptor_t). Handlers get a
// *Header valid during the call only; copy the value to keep it.
type Header struct {
	d C.aeronrs_fragment_descriptor_t
}

// TermID of the term the fragment is in.
func (h *Header) TermID() int32 { return int32(h.d.term_id) }

// TermOffset of the fragment's frame in its term.
func (h *Header) TermOffset() int32 { return int32(h.d.term_offset) }

// SessionID of the publisher.
func (h *Header) SessionID() int32 { return int32(h.d.session_id) }

// StreamID of the stream.
func (h *Header) StreamID() int32 { return int32(h.d.stream_id) }

// Flags are the frame's BEGIN, END and EOS flags (Flag*).
func (h *Header) Flags() uint8 { return uint8(h.d.flags) }

// ReservedValue is the frame's reserved value (set by OfferWithReservedValue or
// BufferClaim.SetReservedValue).
func (h *Header) ReservedValue() int64 { return int64(h.d.reserved_value) }

// Position is the stream position just after the fragment (after the whole message for
// one a FragmentAssembler put together).
func (h *Header) Position() int64 { return int64(h.d.position) }

// FrameLength is the frame's length: 32 header bytes plus the payload.
func (h *Header) FrameLength() int32 { return int32(h.d.frame_length) }

// Type is the frame type (1: DATA).
func (h *Header) Type() int16 { return int16(h.d.frame_type) }

// Version is the frame header's version byte.
func (h *Header) Version() int8 { return int8(h.d.version) }

// InitialTermID is the stream's first term id.
func (h *Header) InitialTermID() int32 { return int32(h.d.initial_term_id) }

// PositionBitsToShift is log2 of the term length.
func (h *Header) PositionBitsToShift() int32 { return int32(h.d.position_bits_to_shift) }

// ImageCorrelationID names the image (the publisher's stream in this subscription) the
// fragment came from; Image.CorrelationID matches it.
func (h *Header) ImageCorrelationID() int64 { return int64(h.d.image_correlation_id) }

// FragmentHandler receives one fragment: buffer is the payload in the log buffer (not a
// copy), valid only during the call, as is header.
type FragmentHandler func(buffer []byte, header *Header)

// Action is what a ControlledFragmentHandler asks for (aeron_controlled_fragment_handler_action_t).
type Action int

// The actions, with Aeron's values.
const (
	// ActionAbort: do not consume this fragment; the image's poll stops and the fragment
	// is delivered again by the next poll.
	ActionAbort = Action(C.AERON_ACTION_ABORT)
	// ActionBreak: consume this fragment and stop polling its image.
	ActionBreak = Action(C.AERON_ACTION_BREAK)
	// ActionCommit: consume it, make the position visible to flow control now, go on.
	ActionCommit = Action(C.AERON_ACTION_COMMIT)
	// ActionContinue: consume it and go on.
	ActionContinue = Action(C.AERON_ACTION_CONTINUE)
)

// ControlledFragmentHandler is a FragmentHandler choosing what happens to each fragment.
type ControlledFragmentHandler func(buffer []byte, header *Header) Action

// completeWith turns a message's first fragment header into the whole message's: its
// frame length covers totalLength payload bytes, its flags add the last fragment's, and its
// position is after the last fragment (as Aeron's assembler does).
func (h *Header) completeWith(totalLength int, last *Header) {
	h.d.frame_length = C.int32_t(dataHeaderLength + totalLength)
	h.d.flags |= last.d.flags
	h.d.position = last.d.position
}
