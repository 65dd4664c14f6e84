package io.aeronrs.bus;

import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * What every writer and reader of one bus must agree on ({@code aeronrs_mapped_bus_config_t}),
 * starting from aeronrs's defaults ({@code aeronrs_mapped_bus_config_init}: variable-length
 * records, 64 MiB segments, a 2 s rollback timeout, prefaulted segments).
 */
public final class MappedBusConfig
{
    /** How records are laid out. */
    public enum RecordMode
    {
        /** Every record body has {@link #recordSize()} bytes (Mappedbus's layout). */
        FIXED_SIZE,
        /** Records are as long as their payload (rounded up to 8). */
        VARIABLE_LENGTH
    }

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
        JAVA_LONG.withName("segment_length"),
        JAVA_INT.withName("record_mode"),
        JAVA_INT.withName("record_size"),
        JAVA_LONG.withName("rollback_timeout_ns"),
        JAVA_BOOLEAN.withName("prefault"),
        MemoryLayout.paddingLayout(7));

    private static final MethodHandle CONFIG_INIT = NativeLibrary.downcall(
        "aeronrs_mapped_bus_config_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    private long segmentLength;
    private RecordMode recordMode;
    private int recordSize;
    private long rollbackTimeoutNs;
    private boolean prefault;

    /** A config with aeronrs's defaults. */
    public MappedBusConfig()
    {
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment config = local.allocate(LAYOUT);
            Errors.check("aeronrs_mapped_bus_config_init", (int)CONFIG_INIT.invokeExact(config));
            segmentLength = config.get(JAVA_LONG, 0);
            recordMode = RecordMode.values()[config.get(JAVA_INT, 8)];
            recordSize = config.get(JAVA_INT, 12);
            rollbackTimeoutNs = config.get(JAVA_LONG, 16);
            prefault = config.get(JAVA_BOOLEAN, 24);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Bytes of each segment records may use (the file is this rounded up to 4096). */
    public MappedBusConfig segmentLength(final long length)
    {
        segmentLength = length;
        return this;
    }

    public long segmentLength()
    {
        return segmentLength;
    }

    public MappedBusConfig recordMode(final RecordMode mode)
    {
        recordMode = mode;
        return this;
    }

    public RecordMode recordMode()
    {
        return recordMode;
    }

    /** Body bytes of every record in fixed-size mode (a multiple of 4). */
    public MappedBusConfig recordSize(final int size)
    {
        recordSize = size;
        return this;
    }

    public int recordSize()
    {
        return recordSize;
    }

    /** How long a reader waits for an allocated record's commit before rolling it back. */
    public MappedBusConfig rollbackTimeoutNs(final long timeoutNs)
    {
        rollbackTimeoutNs = timeoutNs;
        return this;
    }

    public long rollbackTimeoutNs()
    {
        return rollbackTimeoutNs;
    }

    /** Map each segment's pages when opening it. */
    public MappedBusConfig prefault(final boolean prefault)
    {
        this.prefault = prefault;
        return this;
    }

    public boolean prefault()
    {
        return prefault;
    }

    /** This config as the C struct, in {@code arena}. */
    MemorySegment toNative(final Arena arena)
    {
        final MemorySegment config = arena.allocate(LAYOUT);
        config.set(JAVA_LONG, 0, segmentLength);
        config.set(JAVA_INT, 8, recordMode.ordinal());
        config.set(JAVA_INT, 12, recordSize);
        config.set(JAVA_LONG, 16, rollbackTimeoutNs);
        config.set(JAVA_BOOLEAN, 24, prefault);
        return config;
    }
}
