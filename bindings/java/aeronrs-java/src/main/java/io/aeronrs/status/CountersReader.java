package io.aeronrs.status;

import io.aeronrs.Aeron;
import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Layouts;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Reads the driver's counters (the CnC counters region, Agrona's layout) through a client's
 * {@code aeron_counters_reader_t}, with the methods of Agrona's {@code CountersReader}.
 * Values are read as segments of the client's mapping, valid while the client is open.
 */
public final class CountersReader
{
    /** No counter. */
    public static final int NULL_COUNTER_ID = -1;
    /** A slot never used. */
    public static final int RECORD_UNUSED = 0;
    /** A slot holding a live counter. */
    public static final int RECORD_ALLOCATED = 1;
    /** A slot freed and waiting for reuse. */
    public static final int RECORD_RECLAIMED = -1;
    /** Bytes per counter in the values region. */
    public static final int COUNTER_LENGTH = 128;
    /** Longest key of a counter. */
    public static final int MAX_KEY_LENGTH = 112;
    /** Longest label of a counter. */
    public static final int MAX_LABEL_LENGTH = 380;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final MethodHandle GET_BUFFERS = NativeLibrary.downcall(
        "aeron_counters_reader_get_buffers", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle MAX_COUNTER_ID = NativeLibrary.downcall(
        "aeron_counters_reader_max_counter_id", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle FIND = NativeLibrary.downcall(
        "aeron_counters_reader_find_by_type_id_and_registration_id",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    private static final FunctionDescriptor LONG_FIELD = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);
    private static final MethodHandle REGISTRATION_ID = NativeLibrary.downcall(
        "aeron_counters_reader_counter_registration_id", LONG_FIELD);
    private static final MethodHandle OWNER_ID = NativeLibrary.downcall(
        "aeron_counters_reader_counter_owner_id", LONG_FIELD);
    private static final MethodHandle REFERENCE_ID = NativeLibrary.downcall(
        "aeron_counters_reader_counter_reference_id", LONG_FIELD);
    private static final MethodHandle FREE_FOR_REUSE_DEADLINE = NativeLibrary.downcall(
        "aeron_counters_reader_free_for_reuse_deadline_ms", LONG_FIELD);
    private static final MethodHandle STATE = NativeLibrary.downcall(
        "aeron_counters_reader_counter_state", LONG_FIELD);
    private static final MethodHandle TYPE_ID = NativeLibrary.downcall(
        "aeron_counters_reader_counter_type_id", LONG_FIELD);
    private static final MethodHandle KEY = NativeLibrary.downcall(
        "aeron_counters_reader_metadata_key", LONG_FIELD);
    private static final MethodHandle LABEL = NativeLibrary.downcall(
        "aeron_counters_reader_counter_label", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));

    /** Receives the metadata of each allocated counter ({@link #forEach(MetaData)}). */
    @FunctionalInterface
    public interface MetaData
    {
        /**
         * @param counterId the counter's id.
         * @param typeId    its type.
         * @param keyBuffer its key ({@link #MAX_KEY_LENGTH} bytes; valid during the call).
         * @param label     its label.
         */
        void accept(int counterId, int typeId, DirectBuffer keyBuffer, String label);
    }

    private final Aeron aeron;
    private final MemorySegment reader;
    private final MemorySegment values;
    private final MemorySegment metadata;

    /**
     * For the library's own use: wraps the reader of {@code aeron}.
     *
     * @param aeron       the client.
     * @param reader      its {@code aeron_counters_reader_t}.
     * @param clientArena the client's arena, closed when it closes.
     */
    public CountersReader(final Aeron aeron, final MemorySegment reader, final Arena clientArena)
    {
        this.aeron = aeron;
        this.reader = reader;
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment buffers = local.allocate(Layouts.COUNTERS_READER_BUFFERS);
            Errors.check("aeron_counters_reader_get_buffers", (int)GET_BUFFERS.invokeExact(reader, buffers));
            final var l = Layouts.COUNTERS_READER_BUFFERS;
            values = buffers.get(ADDRESS, Layouts.offset(l, "values"))
                .reinterpret(buffers.get(JAVA_LONG, Layouts.offset(l, "values_length")), clientArena, null);
            metadata = buffers.get(ADDRESS, Layouts.offset(l, "metadata"))
                .reinterpret(buffers.get(JAVA_LONG, Layouts.offset(l, "metadata_length")), clientArena, null);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    private void checkOpen()
    {
        if (aeron.isClosed())
        {
            throw new ClosedException("Aeron client");
        }
    }

    /** The highest counter id the counters region can hold. */
    public int maxCounterId()
    {
        checkOpen();
        try
        {
            return (int)MAX_COUNTER_ID.invokeExact(reader);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The value of counter {@code counterId} (volatile read). */
    public long getCounterValue(final int counterId)
    {
        checkOpen();
        return (long)LONG.getVolatile(values, valueOffset(counterId));
    }

    private long valueOffset(final int counterId)
    {
        final long offset = (long)counterId * COUNTER_LENGTH;
        if (counterId < 0 || offset + COUNTER_LENGTH > values.byteSize())
        {
            throw new IndexOutOfBoundsException("counter id " + counterId + " out of range");
        }
        return offset;
    }

    /** The id of the counter of {@code typeId} with {@code registrationId}, or {@link #NULL_COUNTER_ID}. */
    public int findByTypeIdAndRegistrationId(final int typeId, final long registrationId)
    {
        checkOpen();
        try
        {
            return (int)FIND.invokeExact(reader, typeId, registrationId);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The registration id of counter {@code counterId}. */
    public long getCounterRegistrationId(final int counterId)
    {
        return longField(REGISTRATION_ID, "registration_id", counterId);
    }

    /** The owner (client id) of counter {@code counterId}. */
    public long getCounterOwnerId(final int counterId)
    {
        return longField(OWNER_ID, "owner_id", counterId);
    }

    /** The reference id of counter {@code counterId}. */
    public long getCounterReferenceId(final int counterId)
    {
        return longField(REFERENCE_ID, "reference_id", counterId);
    }

    /** When counter {@code counterId}'s slot may be reused (epoch ms). */
    public long getFreeForReuseDeadline(final int counterId)
    {
        return longField(FREE_FOR_REUSE_DEADLINE, "free_for_reuse_deadline_ms", counterId);
    }

    /** The state of counter {@code counterId}'s slot: {@link #RECORD_ALLOCATED} and so on. */
    public int getCounterState(final int counterId)
    {
        return intField(STATE, "state", counterId);
    }

    /** The type id of counter {@code counterId}. */
    public int getCounterTypeId(final int counterId)
    {
        return intField(TYPE_ID, "type_id", counterId);
    }

    /** The label of counter {@code counterId}. */
    public String getCounterLabel(final int counterId)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment text = local.allocate(MAX_LABEL_LENGTH + 1);
            final int length = Errors.check("aeron_counters_reader_counter_label",
                (int)LABEL.invokeExact(reader, counterId, text, text.byteSize()));
            final byte[] bytes = text.asSlice(0, Math.min(length, MAX_LABEL_LENGTH)).toArray(ValueLayout.JAVA_BYTE);
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Calls {@code consumer} for each allocated counter, in id order. */
    public void forEach(final MetaData consumer)
    {
        final int max = maxCounterId();
        final UnsafeBuffer key = new UnsafeBuffer(0, 0);
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment keyOut = Native.pointerOut(local);
            for (int id = 0; id <= max; id++)
            {
                final int state = getCounterState(id);
                if (state == RECORD_UNUSED)
                {
                    break;
                }
                if (state == RECORD_ALLOCATED)
                {
                    Errors.check("aeron_counters_reader_metadata_key", (int)KEY.invokeExact(reader, id, keyOut));
                    key.wrap(Native.pointer(keyOut).address(), MAX_KEY_LENGTH);
                    consumer.accept(id, getCounterTypeId(id), key, getCounterLabel(id));
                }
            }
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        finally
        {
            key.wrap(0, 0);
        }
    }

    private long longField(final MethodHandle call, final String name, final int counterId)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment out = local.allocate(JAVA_LONG);
            Errors.check("aeron_counters_reader_counter_" + name, (int)call.invokeExact(reader, counterId, out));
            return out.get(JAVA_LONG, 0);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    private int intField(final MethodHandle call, final String name, final int counterId)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment out = local.allocate(JAVA_INT);
            Errors.check("aeron_counters_reader_counter_" + name, (int)call.invokeExact(reader, counterId, out));
            return out.get(JAVA_INT, 0);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The values region of the client's mapping. For the library's own use. */
    MemorySegment values()
    {
        return values;
    }

    /** The metadata region of the client's mapping. For the library's own use. */
    MemorySegment metadata()
    {
        return metadata;
    }
}
