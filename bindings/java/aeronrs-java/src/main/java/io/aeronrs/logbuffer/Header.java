package io.aeronrs.logbuffer;

import io.aeronrs.Image;
import org.agrona.DirectBuffer;

/**
 * The frame header of the fragment being handled, as {@code io.aeron.logbuffer.Header}:
 * read from the frame in the image's term (the poll reads the log directly). Valid during
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

    // Aeron's data header (spec/wire-protocol.md §3): offsets in the frame.
    private static final int VERSION_OFFSET = 4;
    private static final int FLAGS_OFFSET = 5;
    private static final int TYPE_OFFSET = 6;
    private static final int TERM_OFFSET_OFFSET = 8;
    private static final int SESSION_ID_OFFSET = 12;
    private static final int STREAM_ID_OFFSET = 16;
    private static final int TERM_ID_OFFSET = 20;
    private static final int RESERVED_VALUE_OFFSET = 24;

    private DirectBuffer term;
    private int frameOffset;
    private int frameLength;
    private int initialTermId;
    private int positionBitsToShift;
    private Image context;
    private int frameLengthOverride = -1;

    /** Points this header at the image whose frames follow. For the library's own use. */
    public void image(final Image context, final DirectBuffer term, final int initialTermId, final int positionBitsToShift)
    {
        this.context = context;
        this.term = term;
        this.initialTermId = initialTermId;
        this.positionBitsToShift = positionBitsToShift;
    }

    /**
     * Points this header at the frame of {@code frameLength} bytes at {@code frameOffset} of
     * the term given to {@link #image}. For the library's own use.
     */
    public void frame(final int frameOffset, final int frameLength)
    {
        this.frameOffset = frameOffset;
        this.frameLength = frameLength;
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
        final int resultingOffset = (termOffset() + frameLength + FRAME_ALIGNMENT - 1) & -FRAME_ALIGNMENT;
        return ((long)(termId() - initialTermId) << positionBitsToShift) + resultingOffset;
    }

    /** The image the fragment came from. */
    public Image context()
    {
        return context;
    }

    /** The stream's first term id. */
    public int initialTermId()
    {
        return initialTermId;
    }

    /** log2 of the term length. */
    public int positionBitsToShift()
    {
        return positionBitsToShift;
    }

    /** The frame length (header plus payload; for a reassembled message, its whole length plus the header). */
    public int frameLength()
    {
        return frameLengthOverride >= 0 ? frameLengthOverride : frameLength;
    }

    /** The session id of the stream. */
    public int sessionId()
    {
        return term.getInt(frameOffset + SESSION_ID_OFFSET);
    }

    /** The stream id. */
    public int streamId()
    {
        return term.getInt(frameOffset + STREAM_ID_OFFSET);
    }

    /** The term the frame is in. */
    public int termId()
    {
        return term.getInt(frameOffset + TERM_ID_OFFSET);
    }

    /** The frame's offset in its term. */
    public int termOffset()
    {
        return term.getInt(frameOffset + TERM_OFFSET_OFFSET);
    }

    /** Where the next frame starts in the term: this one's offset plus its aligned length. */
    public int nextTermOffset()
    {
        return termOffset() + ((frameLength + FRAME_ALIGNMENT - 1) & -FRAME_ALIGNMENT);
    }

    /** The frame type (1: DATA). */
    public int type()
    {
        return term.getShort(frameOffset + TYPE_OFFSET) & 0xFFFF;
    }

    /** The frame flags: {@link #BEGIN_FRAG_FLAG}, {@link #END_FRAG_FLAG}. */
    public byte flags()
    {
        return term.getByte(frameOffset + FLAGS_OFFSET);
    }

    /** The frame header's version byte. */
    public byte version()
    {
        return term.getByte(frameOffset + VERSION_OFFSET);
    }

    /** The frame's reserved value (set by the publisher, e.g. with {@link BufferClaim#reservedValue}). */
    public long reservedValue()
    {
        return term.getLong(frameOffset + RESERVED_VALUE_OFFSET);
    }

    @Override
    public String toString()
    {
        return "Header{sessionId=" + sessionId() + ", streamId=" + streamId() + ", termId=" + termId() +
            ", termOffset=" + termOffset() + ", frameLength=" + frameLength() + ", flags=" + flags() +
            ", position=" + position() + "}";
    }
}
