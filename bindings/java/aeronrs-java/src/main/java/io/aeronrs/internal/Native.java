package io.aeronrs.internal;

import io.aeronrs.exceptions.AeronException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.locks.LockSupport;

/** Small helpers shared by the wrappers: strings, out-pointers, waiting, rethrowing. */
public final class Native
{
    /** Longest C string read back from the library (channels, labels, messages). */
    private static final long MAX_STRING_LENGTH = 64 * 1024;
    private static final int EINTR = 4;

    private Native()
    {
    }

    /**
     * A {@link Throwable} from {@code invokeExact} as an unchecked exception. Downcalls only
     * throw what the JVM throws (errors, a closed arena), never checked exceptions.
     */
    public static RuntimeException rethrow(final Throwable t)
    {
        if (t instanceof RuntimeException r)
        {
            return r;
        }
        if (t instanceof Error e)
        {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** A NUL-terminated copy of {@code value} in {@code arena}; NULL for null. */
    public static MemorySegment cString(final Arena arena, final String value)
    {
        return null == value ? MemorySegment.NULL : arena.allocateFrom(value);
    }

    /** The C string at {@code address}; null for NULL. */
    public static String string(final MemorySegment address)
    {
        return MemorySegment.NULL.equals(address) ? null : address.reinterpret(MAX_STRING_LENGTH).getString(0);
    }

    /** A pointer-sized out-parameter in {@code arena}, NULL at first. */
    public static MemorySegment pointerOut(final Arena arena)
    {
        final MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        return out;
    }

    /** The pointer stored in {@code out}. */
    public static MemorySegment pointer(final MemorySegment out)
    {
        return out.get(ValueLayout.ADDRESS, 0);
    }

    /** Gives the CPU away briefly while waiting for the driver or the conductor. */
    public static void idle()
    {
        LockSupport.parkNanos(100_000);
        if (Thread.currentThread().isInterrupted())
        {
            throw new AeronException(EINTR, "interrupted while waiting for the media driver");
        }
    }
}
