package io.aeronrs;

import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.ClientCalls;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Layouts;
import io.aeronrs.internal.Native;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A counter this client allocated in the driver ({@link Aeron#addCounter}), as
 * {@code io.aeron.Counter}: a 64-bit value in the driver's counters that any process can
 * read ({@code aeron_counter_addr}). The value is accessed as a segment of the client's
 * mapping: after the client closes, access throws instead of touching unmapped memory.
 */
public final class Counter implements AutoCloseable
{
    private static final VarHandle VALUE = ValueLayout.JAVA_LONG.varHandle();

    private final Aeron aeron;
    private final MemorySegment handle;
    private final MemorySegment value;
    private final long registrationId;
    private final int id;
    private final boolean isStatic;
    private volatile boolean closed;

    Counter(final Aeron aeron, final MemorySegment handle, final Arena clientArena, final boolean isStatic)
    {
        this.aeron = aeron;
        this.handle = handle;
        this.isStatic = isStatic;
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment constants = local.allocate(Layouts.COUNTER_CONSTANTS);
            Errors.check("aeron_counter_constants", (int)ClientCalls.COUNTER_CONSTANTS.invokeExact(handle, constants));
            registrationId = constants.get(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.COUNTER_CONSTANTS, "registration_id"));
            id = constants.get(ValueLayout.JAVA_INT, Layouts.offset(Layouts.COUNTER_CONSTANTS, "counter_id"));
            final long address = (long)ClientCalls.COUNTER_ADDR.invokeExact(handle);
            value = MemorySegment.ofAddress(address).reinterpret(Long.BYTES, clientArena, null);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The counter's id in the driver's counters. */
    public int id()
    {
        return id;
    }

    /** The registration id of the counter. */
    public long registrationId()
    {
        return registrationId;
    }

    /** Whether this is a static counter (kept by the driver after the client closes). */
    public boolean isStatic()
    {
        return isStatic;
    }

    /** The counter's label, as the driver's counters hold it. */
    public String label()
    {
        checkOpen();
        return aeron.countersReader().getCounterLabel(id);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new ClosedException("counter");
        }
    }

    /** The value (volatile read). */
    public long get()
    {
        checkOpen();
        return (long)VALUE.getVolatile(value, 0L);
    }

    /** The value (acquire read). */
    public long getAcquire()
    {
        checkOpen();
        return (long)VALUE.getAcquire(value, 0L);
    }

    /** The value (plain read). */
    public long getPlain()
    {
        checkOpen();
        return (long)VALUE.get(value, 0L);
    }

    /** Sets the value (volatile write). */
    public void set(final long newValue)
    {
        checkOpen();
        VALUE.setVolatile(value, 0L, newValue);
    }

    /** Sets the value (release write: earlier writes are visible to who reads it with acquire). */
    public void setRelease(final long newValue)
    {
        checkOpen();
        VALUE.setRelease(value, 0L, newValue);
    }

    /** Sets the value (plain write). */
    public void setPlain(final long newValue)
    {
        checkOpen();
        VALUE.set(value, 0L, newValue);
    }

    /** Adds one atomically; returns the value before. */
    public long increment()
    {
        checkOpen();
        return (long)VALUE.getAndAdd(value, 0L, 1L);
    }

    /** Adds one with a release write (one writer only); returns the value before. */
    public long incrementRelease()
    {
        checkOpen();
        final long current = (long)VALUE.get(value, 0L);
        VALUE.setRelease(value, 0L, current + 1);
        return current;
    }

    /** Adds {@code delta} atomically; returns the value before. */
    public long getAndAdd(final long delta)
    {
        checkOpen();
        return (long)VALUE.getAndAdd(value, 0L, delta);
    }

    /** Sets {@code update} if the value is {@code expected}; returns whether it did. */
    public boolean compareAndSet(final long expected, final long update)
    {
        checkOpen();
        return VALUE.compareAndSet(value, 0L, expected, update);
    }

    /** Sets {@code update} atomically; returns the value before. */
    public long getAndSet(final long update)
    {
        checkOpen();
        return (long)VALUE.getAndSet(value, 0L, update);
    }

    /** Raises the value to {@code proposed} if that is higher; returns whether it did. */
    public boolean proposeMax(final long proposed)
    {
        checkOpen();
        long current;
        do
        {
            current = (long)VALUE.getVolatile(value, 0L);
            if (proposed <= current)
            {
                return false;
            }
        }
        while (!VALUE.compareAndSet(value, 0L, current, proposed));
        return true;
    }

    /** Whether this handle (or its client) is closed. */
    public boolean isClosed()
    {
        return closed;
    }

    /** Frees the counter in the driver (a static counter stays). Idempotent. */
    @Override
    public void close()
    {
        if (aeron.release(this))
        {
            closeNative();
        }
    }

    void closeNative()
    {
        closed = true;
        try
        {
            final int ignored = (int)ClientCalls.COUNTER_CLOSE.invokeExact(handle, MemorySegment.NULL, MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    public String toString()
    {
        return "Counter{id=" + id + ", registrationId=" + registrationId + ", closed=" + closed + "}";
    }
}
