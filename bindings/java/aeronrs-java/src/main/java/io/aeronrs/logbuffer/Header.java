package io.aeronrs.logbuffer;

import io.aeronrs.Image;
import io.aeronrs.internal.Descriptors;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The frame header of the fragment being handled, as {@code io.aeron.logbuffer.Header}:
 * read from the {@code aeronrs_fragment_descriptor_t} the native poll wrote. Valid during
 * the handler call only; one instance per subscription is reused for every fragment.
 */
public final class Header
{
    /** BEGIN flag: the first fragment of a message. */
    public static final byte BEGIN_FRAG_FLAG = (byte)0x80;
    /** END flag: the last fragment of a message. */
    public static final byte END_FRAG_FLAG = 0x40;
    /** Both: an unfragmented message. */
    public static final byte UNFRAGMENTED = (byte)0xC0;
    /** Data frames are padded to this alignment in the log. */
    public static final int FRAME_ALIGNMENT = 32;
    /** The data header length. */
    public static final int HEADER_LENGTH = 32;

    private MemorySegment descriptors = MemorySegment.NULL;
    private long base;
    private Image context;
    private int frameLengthOverride = -1;

    /** Points this header at descriptor {@code index} of {@code descriptors}. For the library's own use. */
    public void wrap(final MemorySegment descriptors, final int index, final Image context)
    {
        this.descriptors = descriptors;
        this.base = index * Descriptors.LENGTH;
        this.context = context;
        this.frameLengthOverride = -1;
    }

    /**
     * Reports a reassembled message's length as its frame length, as Aeron's assemblers do
     * (header length plus the whole message). For the library's own use.
     */
    public void fragmentedFrameLength(final int frameLength)
    {
        frameLengthOverride = frameLength;
    }

    /** The stream position just after this fragment. */
    public long position()
    {
        return descriptors.get(ValueLayout.JAVA_LONG, base + Descriptors.POSITION);
    }

    /** The image the fragment came from. */
    public Image context()
    {
        return context;
    }

    /** The stream's first term id. */
    public int initialTermId()
    {
        return descriptors.get(ValueLayout.JAVA_INT, base + Descriptors.INITIAL_TERM_ID);
    }

    /** log2 of the term length. */
    public int positionBitsToShift()
    {
        return descriptors.get(ValueLayout.JAVA_INT, base + Descriptors.POSITION_BITS_TO_SHIFT);
    }

    /** The frame length (header plus payload; for a reassembled message, its whole length plus the header). */
    public int frameLength()
    {
        return frameLengthOverride >= 0 ? frameLengthOverride : descriptors.get(ValueLayout.JAVA_INT, base + Descriptors.FRAME_LENGTH);
    }

    /** The session id of the stream. */
    public int sessionId()
    {
        return descriptors.get(ValueLayout.JAVA_INT, base + Descriptors.SESSION_ID);
    }

    /** The stream id. */
    public int streamId()
    {
        return descriptors.get(ValueLayout.JAVA_INT, base + Descriptors.STREAM_ID);
    }

    /** The term the frame is in. */
    public int termId()
    {
        return descriptors.get(ValueLayout.JAVA_INT, base + Descriptors.TERM_ID);
    }

    /** The frame's offset in its term. */
    public int termOffset()
    {
        return descriptors.get(ValueLayout.JAVA_INT, base + Descriptors.TERM_OFFSET);
    }

    /** Where the next frame starts in the term: this one's offset plus its aligned length. */
    public int nextTermOffset()
    {
        final int frameLength = descriptors.get(ValueLayout.JAVA_INT, base + Descriptors.FRAME_LENGTH);
        return termOffset() + ((frameLength + FRAME_ALIGNMENT - 1) & -FRAME_ALIGNMENT);
    }

    /** The frame type (1: DATA). */
    public int type()
    {
        return descriptors.get(ValueLayout.JAVA_SHORT, base + Descriptors.TYPE) & 0xFFFF;
    }

    /** The frame flags: {@link #BEGIN_FRAG_FLAG}, {@link #END_FRAG_FLAG}. */
    public byte flags()
    {
        return descriptors.get(ValueLayout.JAVA_BYTE, base + Descriptors.FLAGS);
    }

    /** The frame header's version byte. */
    public byte version()
    {
        return descriptors.get(ValueLayout.JAVA_BYTE, base + Descriptors.VERSION);
    }

    /** The frame's reserved value (set by the publisher, e.g. with {@link BufferClaim#reservedValue}). */
    public long reservedValue()
    {
        return descriptors.get(ValueLayout.JAVA_LONG, base + Descriptors.RESERVED_VALUE);
    }

    @Override
    public String toString()
    {
        return "Header{sessionId=" + sessionId() + ", streamId=" + streamId() + ", termId=" + termId() +
            ", termOffset=" + termOffset() + ", frameLength=" + frameLength() + ", flags=" + flags() +
            ", position=" + position() + "}";
    }
}
