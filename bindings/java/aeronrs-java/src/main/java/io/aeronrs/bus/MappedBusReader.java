package io.aeronrs.bus;

import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Reads a persistent memory-mapped bus ({@code aeronrs_mapped_bus_reader_*}): every
 * committed record once, in order, skipping rolled-back ones. One thread per reader; a
 * poll is one downcall and does not allocate.
 */
public final class MappedBusReader implements AutoCloseable
{
    /** Where a reader starts. */
    public enum Start
    {
        /** The first record of the oldest segment. */
        REPLAY,
        /** The current end of the bus. */
        LIVE,
        /** A given position (a record boundary). */
        AT_POSITION
    }

    private static final MethodHandle OPEN = NativeLibrary.downcall(
        "aeronrs_mapped_bus_reader_open", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle POLL = NativeLibrary.criticalDowncall(
        "aeronrs_mapped_bus_reader_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle HAS_RECOVERED = NativeLibrary.downcall(
        "aeronrs_mapped_bus_reader_has_recovered", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    private static final MethodHandle POSITION = NativeLibrary.downcall(
        "aeronrs_mapped_bus_reader_position", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle CLOSE = NativeLibrary.downcall(
        "aeronrs_mapped_bus_reader_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    // aeronrs_mapped_bus_record_t: position (segment, offset), metadata, body, body_length.
    private static final long RECORD_LENGTH = 40;

    private final MemorySegment handle;
    private final MemorySegment record = Arena.ofAuto().allocate(RECORD_LENGTH, 8);
    private volatile boolean closed;

    private MappedBusReader(final MemorySegment handle)
    {
        this.handle = handle;
    }

    /** Opens the bus at {@code path} for reading from {@link Start#REPLAY} or {@link Start#LIVE}. */
    public static MappedBusReader open(final Path path, final MappedBusConfig config, final Start start)
    {
        return open(path, config, start, 0, 0);
    }

    /** Opens the bus at {@code path} for reading, at {@code segment} and {@code offset} for {@link Start#AT_POSITION}. */
    public static MappedBusReader open(
        final Path path, final MappedBusConfig config, final Start start, final long segment, final long offset)
    {
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment out = Native.pointerOut(local);
            final MemorySegment position = local.allocate(16, 8);
            position.set(JAVA_LONG, 0, segment);
            position.set(JAVA_LONG, 8, offset);
            Errors.check("aeronrs_mapped_bus_reader_open", (int)OPEN.invokeExact(
                out, local.allocateFrom(path.toString()), config.toNative(local), start.ordinal(), position));
            return new MappedBusReader(Native.pointer(out));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Reads the next committed record into {@code into}.
     *
     * @return true with {@code into} set, false if there is no record yet.
     */
    public boolean poll(final MappedBusRecord into)
    {
        checkOpen();
        final int result;
        try
        {
            result = (int)POLL.invokeExact(handle, record);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        if (Errors.check("aeronrs_mapped_bus_reader_poll", result) == 0)
        {
            return false;
        }
        into.segment = record.get(JAVA_LONG, 0);
        into.offset = record.get(JAVA_LONG, 8);
        into.metadata = record.get(JAVA_INT, 16);
        into.body.wrap(record.get(JAVA_LONG, 24), (int)record.get(JAVA_LONG, 32));
        return true;
    }

    /** Whether the reader has reached the end the bus had when it was opened. */
    public boolean hasRecovered()
    {
        checkOpen();
        try
        {
            return (boolean)HAS_RECOVERED.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The segment index where the next record will be looked for. */
    public long positionSegment()
    {
        return position(0);
    }

    /** The byte offset where the next record will be looked for. */
    public long positionOffset()
    {
        return position(8);
    }

    private long position(final long field)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment position = local.allocate(16, 8);
            Errors.check("aeronrs_mapped_bus_reader_position", (int)POSITION.invokeExact(handle, position));
            return position.get(JAVA_LONG, field);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new ClosedException("mapped bus reader");
        }
    }

    /** Closes the reader. Idempotent. */
    @Override
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            try
            {
                final int ignored = (int)CLOSE.invokeExact(handle);
            }
            catch (final Throwable t)
            {
                throw Native.rethrow(t);
            }
        }
    }
}
