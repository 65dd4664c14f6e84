package io.aeronrs.bus;

import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Appends records to a persistent memory-mapped bus ({@code aeronrs_mapped_bus_writer_*}):
 * several writers, in several processes, may append to one bus. Writes do not allocate.
 */
public final class MappedBusWriter implements AutoCloseable
{
    /** A write's result: a reader rolled the record back before its commit; write it again. */
    public static final int ROLLED_BACK = -2;

    private static final MethodHandle OPEN = NativeLibrary.downcall(
        "aeronrs_mapped_bus_writer_open", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle WRITE = NativeLibrary.criticalDowncall(
        "aeronrs_mapped_bus_writer_write", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle WRITE_TYPED = NativeLibrary.criticalDowncall(
        "aeronrs_mapped_bus_writer_write_typed",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle FLUSH = NativeLibrary.downcall(
        "aeronrs_mapped_bus_writer_flush", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CLOSE = NativeLibrary.downcall(
        "aeronrs_mapped_bus_writer_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    private final MemorySegment handle;
    // aeronrs_mapped_bus_position_t of the last write: segment, offset.
    private final MemorySegment position = Arena.ofAuto().allocate(16, 8);
    private volatile boolean closed;

    private MappedBusWriter(final MemorySegment handle)
    {
        this.handle = handle;
    }

    /** Opens the bus at {@code path} for appending, creating its first segment file if there is none. */
    public static MappedBusWriter open(final Path path, final MappedBusConfig config)
    {
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment out = Native.pointerOut(local);
            Errors.check("aeronrs_mapped_bus_writer_open",
                (int)OPEN.invokeExact(out, local.allocateFrom(path.toString()), config.toNative(local)));
            return new MappedBusWriter(Native.pointer(out));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    private static MemorySegment bytes(final DirectBuffer buffer, final int offset, final int length)
    {
        buffer.boundsCheck(offset, length);
        final byte[] array = buffer.byteArray();
        if (null == array)
        {
            return MemorySegment.ofAddress(buffer.addressOffset() + offset).reinterpret(length);
        }
        return MemorySegment.ofArray(array).asSlice(buffer.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET + offset, length);
    }

    /**
     * Appends a byte message (its length is the record's metadata).
     *
     * @return true when committed, false when a reader rolled it back first (write it again).
     */
    public boolean write(final DirectBuffer buffer, final int offset, final int length)
    {
        checkOpen();
        final int result;
        try
        {
            result = (int)WRITE.invokeExact(handle, bytes(buffer, offset, length), (long)length, position);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        return Errors.check("aeronrs_mapped_bus_writer_write", result == ROLLED_BACK ? 1 : result) == 0;
    }

    /**
     * Appends a typed message (fixed-size mode only): {@code messageType} is the metadata.
     *
     * @return true when committed, false when rolled back (write it again).
     */
    public boolean writeTyped(final int messageType, final DirectBuffer buffer, final int offset, final int length)
    {
        checkOpen();
        final int result;
        try
        {
            result = (int)WRITE_TYPED.invokeExact(handle, messageType, bytes(buffer, offset, length), (long)length,
                position);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        return Errors.check("aeronrs_mapped_bus_writer_write_typed", result == ROLLED_BACK ? 1 : result) == 0;
    }

    /** The segment index of the last record written. */
    public long lastSegment()
    {
        return position.get(JAVA_LONG, 0);
    }

    /** The byte offset in its segment of the last record written. */
    public long lastOffset()
    {
        return position.get(JAVA_LONG, 8);
    }

    /** Writes what this writer appended to disk ({@code msync}), for durability across power loss. */
    public void flush()
    {
        checkOpen();
        try
        {
            Errors.check("aeronrs_mapped_bus_writer_flush", (int)FLUSH.invokeExact(handle));
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
            throw new ClosedException("mapped bus writer");
        }
    }

    /** Closes the writer; its records stay in the files. Idempotent. */
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
