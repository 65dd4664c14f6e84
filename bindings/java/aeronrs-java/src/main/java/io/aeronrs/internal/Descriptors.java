package io.aeronrs.internal;

/**
 * The layout of {@code aeronrs_fragment_descriptor_t} (include/aeronrs.h; 80 bytes, asserted
 * on the C side), which {@code aeronrs_subscription_poll_batch} fills.
 */
public final class Descriptors
{
    private Descriptors()
    {
    }

    /** Bytes per descriptor. */
    public static final long LENGTH = 80;
    public static final long BUFFER = 0;
    public static final long PAYLOAD_LENGTH = 8;
    public static final long IMAGE = 16;
    public static final long IMAGE_CORRELATION_ID = 24;
    public static final long POSITION = 32;
    public static final long RESERVED_VALUE = 40;
    public static final long TERM_ID = 48;
    public static final long TERM_OFFSET = 52;
    public static final long SESSION_ID = 56;
    public static final long STREAM_ID = 60;
    public static final long FRAME_LENGTH = 64;
    public static final long INITIAL_TERM_ID = 68;
    public static final long POSITION_BITS_TO_SHIFT = 72;
    public static final long VERSION = 76;
    public static final long FLAGS = 77;
    public static final long TYPE = 78;
}
