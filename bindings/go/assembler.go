package aeron

// FragmentAssembler puts fragmented messages back together before handing them on, per
// publisher session (as Aeron's FragmentAssembler). Unfragmented messages pass straight
// through without a copy; fragments are copied into a per-session buffer. Use its
// OnFragment as the Poll handler, on the polling goroutine only.
type FragmentAssembler struct {
	handler         FragmentHandler
	initialCapacity int
	builders        map[int32]*messageBuilder
}

// messageBuilder collects one session's message in progress.
type messageBuilder struct {
	buffer []byte
	// header is the first fragment's, completed when the last arrives.
	header Header
	// nextTermOffset is where the next fragment must start; -1 when no message is open.
	nextTermOffset int32
}

// NewFragmentAssembler hands whole messages to handler; each session's buffer starts at
// initialCapacity bytes (grown as needed).
func NewFragmentAssembler(handler FragmentHandler, initialCapacity int) *FragmentAssembler {
	return &FragmentAssembler{handler: handler, initialCapacity: initialCapacity, builders: map[int32]*messageBuilder{}}
}

// OnFragment is the FragmentHandler to poll with.
func (a *FragmentAssembler) OnFragment(buffer []byte, header *Header) {
	if header.Flags()&FlagsUnfragmented == FlagsUnfragmented {
		a.handler(buffer, header)
		return
	}
	if b := a.append(buffer, header); b != nil {
		a.handler(b.buffer, &b.header)
		b.reset()
	}
}

// append adds a fragment to its session's message; the builder once the message is
// whole, else nil. A fragment that does not continue the open message (one was lost to a
// late join or a gap) drops it.
func (a *FragmentAssembler) append(buffer []byte, header *Header) *messageBuilder {
	b := a.builders[header.SessionID()]
	if header.Flags()&FlagBegin != 0 {
		if b == nil {
			b = &messageBuilder{buffer: make([]byte, 0, a.initialCapacity)}
			a.builders[header.SessionID()] = b
		}
		b.buffer = append(b.buffer[:0], buffer...)
		b.header = *header
		b.nextTermOffset = nextTermOffset(header)
		return nil
	}
	if b == nil || b.nextTermOffset < 0 || b.nextTermOffset != header.TermOffset() {
		if b != nil {
			b.reset()
		}
		return nil
	}
	b.buffer = append(b.buffer, buffer...)
	b.nextTermOffset = nextTermOffset(header)
	if header.Flags()&FlagEnd == 0 {
		return nil
	}
	b.header.completeWith(len(b.buffer), header)
	return b
}

func (b *messageBuilder) reset() {
	b.buffer = b.buffer[:0]
	b.nextTermOffset = -1
}

// nextTermOffset is the term offset after header's frame (frames are 32-byte aligned).
func nextTermOffset(header *Header) int32 {
	return (header.TermOffset() + header.FrameLength() + 31) &^ 31
}

// ControlledFragmentAssembler is FragmentAssembler for ControlledPoll: the whole
// message's handler decides the action. ABORT on a reassembled message keeps it open
// without its last fragment, which the next poll delivers again.
type ControlledFragmentAssembler struct {
	handler ControlledFragmentHandler
	inner   FragmentAssembler
}

// NewControlledFragmentAssembler hands whole messages to handler.
func NewControlledFragmentAssembler(handler ControlledFragmentHandler, initialCapacity int) *ControlledFragmentAssembler {
	return &ControlledFragmentAssembler{
		handler: handler,
		inner:   FragmentAssembler{initialCapacity: initialCapacity, builders: map[int32]*messageBuilder{}},
	}
}

// OnFragment is the ControlledFragmentHandler to poll with.
func (a *ControlledFragmentAssembler) OnFragment(buffer []byte, header *Header) Action {
	if header.Flags()&FlagsUnfragmented == FlagsUnfragmented {
		return a.handler(buffer, header)
	}
	b := a.inner.builders[header.SessionID()]
	var before []byte
	var beforeHeader Header
	var beforeNext int32 = -1
	if b != nil {
		before, beforeHeader, beforeNext = b.buffer, b.header, b.nextTermOffset
	}
	whole := a.inner.append(buffer, header)
	if whole == nil {
		return ActionContinue
	}
	action := a.handler(whole.buffer, &whole.header)
	if action == ActionAbort {
		// Back to before the last fragment: the next poll delivers it again.
		whole.buffer, whole.header, whole.nextTermOffset = before, beforeHeader, beforeNext
		return action
	}
	whole.reset()
	return action
}
