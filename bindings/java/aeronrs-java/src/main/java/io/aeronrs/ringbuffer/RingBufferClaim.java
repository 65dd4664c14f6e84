package io.aeronrs.ringbuffer;

import io.aeronrs.exceptions.AeronException;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Room claimed in a {@link RingBuffer} by {@link RingBuffer#tryClaim}, written in place and
 * then committed or aborted. One per producing thread; claiming does not allocate.
 */
public final class RingBufferClaim
{
    final MemorySegment out = Arena.ofAuto().allocate(16, 8);
    private final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    RingBuffer ringBuffer;
    long index = -1;

    void claimed(final RingBuffer ringBuffer, final int length)
    {
        this.ringBuffer = ringBuffer;
        index = out.get(ValueLayout.JAVA_LONG, 0);
        buffer.wrap(out.get(ValueLayout.JAVA_LONG, 8), length);
    }

    void finished()
    {
        ringBuffer = null;
        index = -1;
        buffer.wrap(0, 0);
    }

    /** The claimed payload, from 0 for {@link #length()} bytes; empty when nothing is claimed. */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /** The claimed length. */
    public int length()
    {
        return buffer.capacity();
    }

    /** Publishes the message to the consumer. */
    public void commit()
    {
        if (null == ringBuffer)
        {
            throw new AeronException(AeronException.EPERM, "RingBufferClaim: nothing is claimed");
        }
        ringBuffer.finishClaim(this, true);
    }

    /** Turns the claim into padding the consumer skips. */
    public void abort()
    {
        if (null == ringBuffer)
        {
            throw new AeronException(AeronException.EPERM, "RingBufferClaim: nothing is claimed");
        }
        ringBuffer.finishClaim(this, false);
    }
}
