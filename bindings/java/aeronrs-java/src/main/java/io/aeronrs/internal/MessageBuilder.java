package io.aeronrs.internal;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Collects a fragmented message's parts for the fragment assemblers: a byte array that
 * grows (doubling) only when a message is longer than any before it.
 */
public final class MessageBuilder
{
    private final UnsafeBuffer buffer;
    private int limit;
    private int nextTermOffset = -1;

    /** @param initialLength bytes to start with. */
    public MessageBuilder(final int initialLength)
    {
        buffer = new UnsafeBuffer(new byte[Math.max(64, initialLength)]);
    }

    /** The message so far, from 0 to {@link #limit()}. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** Bytes collected. */
    public int limit()
    {
        return limit;
    }

    /** Drops the last {@code length} bytes (a final fragment that was aborted). */
    public void limit(final int newLimit)
    {
        limit = newLimit;
    }

    /** Where in the term the next part must start to belong to this message (-1: no message). */
    public int nextTermOffset()
    {
        return nextTermOffset;
    }

    public void nextTermOffset(final int offset)
    {
        nextTermOffset = offset;
    }

    /** Starts over: no message. */
    public void reset()
    {
        limit = 0;
        nextTermOffset = -1;
    }

    /** Appends {@code length} bytes of {@code source} from {@code offset}. */
    public void append(final DirectBuffer source, final int offset, final int length)
    {
        final int needed = limit + length;
        if (needed > buffer.capacity())
        {
            int capacity = buffer.capacity();
            while (capacity < needed)
            {
                capacity = capacity > (Integer.MAX_VALUE >> 1) ? Integer.MAX_VALUE - 8 : capacity << 1;
            }
            final byte[] grown = new byte[capacity];
            buffer.getBytes(0, grown, 0, limit);
            buffer.wrap(grown);
        }
        buffer.putBytes(limit, source, offset, length);
        limit = needed;
    }
}
