package io.aeronrs.ringbuffer;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * aeronrs's standalone ring buffers ({@code aeronrs_ring_buffer_*}): Agrona's
 * {@code OneToOneRingBuffer} and {@code ManyToOneRingBuffer} layouts, in a file shared
 * between processes (Java Agrona, C and Rust producers and consumers interoperate) or in
 * memory the caller owns. Producers {@link #write} or {@link #tryClaim}; the one consumer
 * {@link #read}s with Agrona's {@link MessageHandler} or {@link ControlledMessageHandler}.
 * <p>
 * Unlike subscription polls, a read calls from C into Java once per message (the C read
 * consumes as it goes); writes and claims are plain downcalls and do not allocate.
 */
public final class RingBuffer implements AutoCloseable
{
    /** Which ring buffer. */
    public enum Kind
    {
        /** One producer, one consumer; capacity a power of two, at least 16. */
        ONE_TO_ONE(1),
        /** Many producers (threads or processes), one consumer; capacity a power of two, at least 8. */
        MANY_TO_ONE(2);

        final int value;

        Kind(final int value)
        {
            this.value = value;
        }
    }

    /** Bytes after the data region: a buffer's memory is capacity plus this. */
    public static final int TRAILER_LENGTH = 768;

    private static final MethodHandle CREATE = NativeLibrary.downcall(
        "aeronrs_ring_buffer_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle OPEN = NativeLibrary.downcall(
        "aeronrs_ring_buffer_open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle WRAP = NativeLibrary.downcall(
        "aeronrs_ring_buffer_wrap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = NativeLibrary.downcall(
        "aeronrs_ring_buffer_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle WRITE = NativeLibrary.criticalDowncall(
        "aeronrs_ring_buffer_write", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle WRITE_SEGMENT = NativeLibrary.criticalDowncall(
        "aeronrs_ring_buffer_write", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle TRY_CLAIM = NativeLibrary.criticalDowncall(
        "aeronrs_ring_buffer_try_claim", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle COMMIT = NativeLibrary.criticalDowncall(
        "aeronrs_ring_buffer_commit", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle ABORT = NativeLibrary.criticalDowncall(
        "aeronrs_ring_buffer_abort", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CONTROLLED_READ = NativeLibrary.downcall(
        "aeronrs_ring_buffer_controlled_read", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    private static final FunctionDescriptor QUERY = FunctionDescriptor.of(JAVA_LONG, ADDRESS);
    private static final MethodHandle PRODUCER_POSITION = NativeLibrary.criticalDowncall(
        "aeronrs_ring_buffer_producer_position", QUERY);
    private static final MethodHandle CONSUMER_POSITION = NativeLibrary.criticalDowncall(
        "aeronrs_ring_buffer_consumer_position", QUERY);
    private static final MethodHandle SIZE = NativeLibrary.criticalDowncall("aeronrs_ring_buffer_size", QUERY);
    private static final MethodHandle CAPACITY = NativeLibrary.downcall("aeronrs_ring_buffer_capacity", QUERY);
    private static final MethodHandle MAX_MSG_LENGTH = NativeLibrary.downcall("aeronrs_ring_buffer_max_msg_length", QUERY);
    private static final MethodHandle NEXT_CORRELATION_ID = NativeLibrary.downcall(
        "aeronrs_ring_buffer_next_correlation_id", QUERY);
    private static final MethodHandle CONSUMER_HEARTBEAT_TIME = NativeLibrary.downcall(
        "aeronrs_ring_buffer_consumer_heartbeat_time", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SET_CONSUMER_HEARTBEAT_TIME = NativeLibrary.downcall(
        "aeronrs_ring_buffer_set_consumer_heartbeat_time", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle UNBLOCK = NativeLibrary.downcall(
        "aeronrs_ring_buffer_unblock", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle ON_MESSAGE;

    static
    {
        try
        {
            ON_MESSAGE = MethodHandles.lookup().findVirtual(RingBuffer.class, "onMessage",
                MethodType.methodType(int.class, long.class, int.class, long.class, long.class));
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final ControlledMessageHandler.Action[] ACTIONS = ControlledMessageHandler.Action.values();

    private final Kind kind;
    private final MemorySegment handle;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment onMessageStub;
    private final UnsafeBuffer message = new UnsafeBuffer(0, 0);
    private final int capacity;
    private final int maxMessageLength;
    // The handler of the read in progress (one consumer thread).
    private MessageHandler handler;
    private ControlledMessageHandler controlledHandler;
    private Throwable handlerFailure;
    private boolean reading;
    private volatile boolean closed;

    private RingBuffer(final Kind kind, final MemorySegment handle)
    {
        this.kind = kind;
        this.handle = handle;
        // Pointers as 64-bit integers (LP64): no segment object per message.
        onMessageStub = NativeLibrary.upcall(ON_MESSAGE.bindTo(this),
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), arena);
        capacity = (int)query(CAPACITY);
        maxMessageLength = (int)query(MAX_MSG_LENGTH);
    }

    /** Creates (or truncates) the file {@code path} as an empty ring buffer of {@code capacity} data bytes. */
    public static RingBuffer create(final Kind kind, final Path path, final int capacity)
    {
        return make(kind, "aeronrs_ring_buffer_create", (out, local) ->
            (int)CREATE.invokeExact(out, kind.value, local.allocateFrom(path.toString()), (long)capacity));
    }

    /** Maps the existing ring buffer file {@code path} (its length gives the capacity). */
    public static RingBuffer open(final Kind kind, final Path path)
    {
        return make(kind, "aeronrs_ring_buffer_open", (out, local) ->
            (int)OPEN.invokeExact(out, kind.value, local.allocateFrom(path.toString())));
    }

    /**
     * Uses {@code memory} (capacity plus {@link #TRAILER_LENGTH} bytes, 8-byte aligned, native)
     * as a ring buffer, as it is: zero it for a fresh one. Keep its arena open until this is closed.
     */
    public static RingBuffer wrap(final Kind kind, final MemorySegment memory)
    {
        if (!memory.isNative())
        {
            throw new AeronException(AeronException.EINVAL, "RingBuffer.wrap needs native memory");
        }
        return make(kind, "aeronrs_ring_buffer_wrap", (out, local) ->
            (int)WRAP.invokeExact(out, kind.value, memory, memory.byteSize()));
    }

    @FunctionalInterface
    private interface Make
    {
        int make(MemorySegment out, Arena local) throws Throwable;
    }

    private static RingBuffer make(final Kind kind, final String operation, final Make make)
    {
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment out = Native.pointerOut(local);
            Errors.check(operation, make.make(out, local));
            return new RingBuffer(kind, Native.pointer(out));
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
            throw new ClosedException("ring buffer");
        }
    }

    /** Which ring buffer this is. */
    public Kind kind()
    {
        return kind;
    }

    /** Data capacity in bytes. */
    public int capacity()
    {
        return capacity;
    }

    /** Longest message accepted. */
    public int maxMsgLength()
    {
        return maxMessageLength;
    }

    /**
     * Writes {@code length} bytes of {@code buffer} from {@code offset} as one message of
     * {@code msgTypeId} (at least 1).
     *
     * @return true if written, false if the buffer is full.
     * @throws AeronException for a bad type id or a message longer than {@link #maxMsgLength()}.
     */
    public boolean write(final int msgTypeId, final DirectBuffer buffer, final int offset, final int length)
    {
        checkOpen();
        buffer.boundsCheck(offset, length);
        final byte[] array = buffer.byteArray();
        final int result;
        try
        {
            if (null == array)
            {
                result = (int)WRITE.invokeExact(handle, msgTypeId, buffer.addressOffset() + offset, (long)length);
            }
            else
            {
                final long arrayOffset = buffer.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET + offset;
                result = (int)WRITE_SEGMENT.invokeExact(
                    handle, msgTypeId, MemorySegment.ofArray(array).asSlice(arrayOffset, length), (long)length);
            }
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        return Errors.check("aeronrs_ring_buffer_write", result) == 1;
    }

    /**
     * Claims room for a {@code length}-byte message of {@code msgTypeId}, to fill through
     * {@code claim} and then commit or abort (the consumer waits at the claim until then).
     *
     * @return true if claimed, false if the buffer is full.
     */
    public boolean tryClaim(final int msgTypeId, final int length, final RingBufferClaim claim)
    {
        checkOpen();
        if (length < 0)
        {
            throw new AeronException(AeronException.EINVAL, "tryClaim: length " + length + " is negative");
        }
        final int result;
        try
        {
            final long out = claim.out.address();
            result = (int)TRY_CLAIM.invokeExact(handle, msgTypeId, (long)length, out, out + 8);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        if (Errors.check("aeronrs_ring_buffer_try_claim", result) == 1)
        {
            claim.claimed(this, length);
            return true;
        }
        return false;
    }

    void finishClaim(final RingBufferClaim claim, final boolean commit)
    {
        final long index = claim.index;
        claim.finished();
        checkOpen();
        try
        {
            Errors.check(commit ? "aeronrs_ring_buffer_commit" : "aeronrs_ring_buffer_abort",
                commit ? (int)COMMIT.invokeExact(handle, index) : (int)ABORT.invokeExact(handle, index));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Delivers up to {@code messageCountLimit} messages to {@code handler} (the consumer
     * thread only). If the handler throws, that message counts as read, the read stops and
     * the exception propagates.
     *
     * @return the number of messages read.
     */
    public int read(final MessageHandler handler, final int messageCountLimit)
    {
        this.handler = handler;
        try
        {
            return readMessages(messageCountLimit);
        }
        finally
        {
            this.handler = null;
        }
    }

    /**
     * As {@link #read}, with {@code handler} saying what to do with each message (Agrona's
     * actions: ABORT leaves it for the next read and stops, BREAK stops after it, COMMIT
     * frees the space read so far at once, CONTINUE goes on). If the handler throws, that
     * message is left unread (as ABORT) and the exception propagates.
     *
     * @return the number of messages consumed.
     */
    public int controlledRead(final ControlledMessageHandler handler, final int messageCountLimit)
    {
        controlledHandler = handler;
        try
        {
            return readMessages(messageCountLimit);
        }
        finally
        {
            controlledHandler = null;
        }
    }

    private int readMessages(final int limit)
    {
        checkOpen();
        if (reading)
        {
            throw new AeronException(AeronException.EPERM, "read of a ring buffer from inside its own handler");
        }
        if (limit <= 0)
        {
            return 0;
        }
        final int result;
        reading = true;
        try
        {
            result = (int)CONTROLLED_READ.invokeExact(handle, onMessageStub, MemorySegment.NULL, (long)limit);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        finally
        {
            reading = false;
            message.wrap(0, 0);
        }
        final Throwable failure = handlerFailure;
        if (null != failure)
        {
            handlerFailure = null;
            throw Native.rethrow(failure);
        }
        return Errors.check("aeronrs_ring_buffer_controlled_read", result);
    }

    // The upcall, on the reading thread inside the C read. An exception must not leave it
    // (the JVM would end): it is kept and thrown when the read returns.
    private int onMessage(final long clientd, final int msgTypeId, final long buffer, final long length)
    {
        if (null != handlerFailure)
        {
            return ControlledMessageHandler.Action.ABORT.ordinal();
        }
        try
        {
            message.wrap(buffer, (int)length);
            if (null != handler)
            {
                handler.onMessage(msgTypeId, message, 0, (int)length);
                return ControlledMessageHandler.Action.CONTINUE.ordinal();
            }
            // Agrona's Action order is the AERONRS_RB_* order: ABORT 0 .. CONTINUE 3.
            return controlledHandler.onMessage(msgTypeId, message, 0, (int)length).ordinal();
        }
        catch (final Throwable t)
        {
            handlerFailure = t;
            return null != handler ? ControlledMessageHandler.Action.BREAK.ordinal() :
                ControlledMessageHandler.Action.ABORT.ordinal();
        }
    }

    private long query(final MethodHandle call)
    {
        checkOpen();
        try
        {
            return (long)call.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Bytes ever claimed by producers. */
    public long producerPosition()
    {
        return query(PRODUCER_POSITION);
    }

    /** Bytes ever consumed. */
    public long consumerPosition()
    {
        return query(CONSUMER_POSITION);
    }

    /** Bytes claimed but not yet consumed. */
    public int size()
    {
        return (int)query(SIZE);
    }

    /** The next id of the buffer's correlation counter (shared by every process using it). */
    public long nextCorrelationId()
    {
        return query(NEXT_CORRELATION_ID);
    }

    /** The consumer's last heartbeat (epoch ms; 0 never). */
    public long consumerHeartbeatTime()
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment out = local.allocate(JAVA_LONG);
            Errors.check("aeronrs_ring_buffer_consumer_heartbeat_time", (int)CONSUMER_HEARTBEAT_TIME.invokeExact(handle, out));
            return out.get(JAVA_LONG, 0);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Records a consumer heartbeat (epoch ms); consumer thread only. */
    public void consumerHeartbeatTime(final long timeMs)
    {
        checkOpen();
        try
        {
            Errors.check("aeronrs_ring_buffer_set_consumer_heartbeat_time",
                (int)SET_CONSUMER_HEARTBEAT_TIME.invokeExact(handle, timeMs));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Consumer only: frees the head of a many-to-one buffer from a producer that died between
     * claim and commit.
     *
     * @return whether something was unblocked.
     */
    public boolean unblock()
    {
        checkOpen();
        try
        {
            return Errors.check("aeronrs_ring_buffer_unblock", (int)UNBLOCK.invokeExact(handle)) == 1;
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed()
    {
        return closed;
    }

    /** Unmaps the buffer (a file's messages stay in the file). Idempotent. */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            final int ignored = (int)CLOSE.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        finally
        {
            arena.close();
        }
    }
}
