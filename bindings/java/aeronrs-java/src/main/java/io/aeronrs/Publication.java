package io.aeronrs;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Layouts;
import io.aeronrs.internal.Native;
import io.aeronrs.logbuffer.BufferClaim;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * A publication: where messages to one stream of a channel are offered. As
 * {@code io.aeron.Publication}: {@link ConcurrentPublication} (any thread may offer) from
 * {@link Aeron#addPublication}, {@link ExclusivePublication} (one thread) from
 * {@link Aeron#addExclusivePublication}.
 * <p>
 * {@code offer} and {@code tryClaim} return the new stream position, or one of the negative
 * results {@link #NOT_CONNECTED}, {@link #BACK_PRESSURED}, {@link #ADMIN_ACTION} (retry
 * those), {@link #CLOSED}, {@link #MAX_POSITION_EXCEEDED}. A bad call (a message longer than
 * {@link #maxMessageLength()}, a claim longer than {@link #maxPayloadLength()}) throws
 * {@link AeronException} with {@link AeronException#EINVAL}. They do not allocate.
 */
public abstract class Publication implements AutoCloseable
{
    /** No subscriber is connected. */
    public static final long NOT_CONNECTED = -1;
    /** Subscribers are behind (flow control): try again. */
    public static final long BACK_PRESSURED = -2;
    /** The log rotated to a new term during the offer: try again. */
    public static final long ADMIN_ACTION = -3;
    /** The publication (or its client) is closed. */
    public static final long CLOSED = -4;
    /** The stream reached its largest possible position. */
    public static final long MAX_POSITION_EXCEEDED = -5;
    /** The C result for a failed call; turned into an exception here, never returned. */
    static final long PUBLICATION_ERROR = -6;

    final Aeron aeron;
    final MemorySegment handle;
    private final String channel;
    private final long originalRegistrationId;
    private final long registrationId;
    private final long maxPossiblePosition;
    private final int positionBitsToShift;
    private final int termBufferLength;
    private final int maxMessageLength;
    private final int maxPayloadLength;
    private final int streamId;
    private final int sessionId;
    private final int initialTermId;
    private final int publicationLimitCounterId;
    private final int channelStatusId;
    volatile boolean closed;

    Publication(final Aeron aeron, final MemorySegment handle, final MemorySegment constants)
    {
        this.aeron = aeron;
        this.handle = handle;
        final var c = Layouts.PUBLICATION_CONSTANTS;
        channel = Native.string(constants.get(ValueLayout.ADDRESS, Layouts.offset(c, "channel")));
        originalRegistrationId = constants.get(ValueLayout.JAVA_LONG, Layouts.offset(c, "original_registration_id"));
        registrationId = constants.get(ValueLayout.JAVA_LONG, Layouts.offset(c, "registration_id"));
        maxPossiblePosition = constants.get(ValueLayout.JAVA_LONG, Layouts.offset(c, "max_possible_position"));
        positionBitsToShift = (int)constants.get(ValueLayout.JAVA_LONG, Layouts.offset(c, "position_bits_to_shift"));
        termBufferLength = (int)constants.get(ValueLayout.JAVA_LONG, Layouts.offset(c, "term_buffer_length"));
        maxMessageLength = (int)constants.get(ValueLayout.JAVA_LONG, Layouts.offset(c, "max_message_length"));
        maxPayloadLength = (int)constants.get(ValueLayout.JAVA_LONG, Layouts.offset(c, "max_payload_length"));
        streamId = constants.get(ValueLayout.JAVA_INT, Layouts.offset(c, "stream_id"));
        sessionId = constants.get(ValueLayout.JAVA_INT, Layouts.offset(c, "session_id"));
        initialTermId = constants.get(ValueLayout.JAVA_INT, Layouts.offset(c, "initial_term_id"));
        publicationLimitCounterId = constants.get(ValueLayout.JAVA_INT, Layouts.offset(c, "publication_limit_counter_id"));
        channelStatusId = constants.get(ValueLayout.JAVA_INT, Layouts.offset(c, "channel_status_indicator_id"));
    }

    // The C calls, made by the subclass through its own constant method handles.
    abstract long nativeOffer(long address, long length);

    abstract long nativeOffer(MemorySegment segment, long length);

    abstract long nativeOfferWithSupplier(long address, long length, MemorySegment supplier);

    abstract long nativeOfferVector(MemorySegment iovecs, long count);

    abstract long nativeTryClaim(long length, MemorySegment claim);

    abstract long nativePosition();

    abstract long nativePositionLimit();

    abstract boolean nativeIsConnected();

    abstract long nativeChannelStatus();

    abstract void nativeClose();

    abstract int nativeLocalSocketAddresses(MemorySegment iovecs, long count);

    abstract int nativeAsyncDestination(MemorySegment asyncOut, MemorySegment uri, boolean add);

    abstract int nativeAsyncRemoveDestinationById(MemorySegment asyncOut, long destinationRegistrationId);

    /** Offers the whole of {@code buffer} ({@code buffer.capacity()} bytes). */
    public final long offer(final DirectBuffer buffer)
    {
        return offer(buffer, 0, buffer.capacity());
    }

    /**
     * Offers {@code length} bytes of {@code buffer} from {@code offset} as one message
     * (fragmented when longer than {@link #maxPayloadLength()}).
     *
     * @return the new position, or a negative result (see {@link Publication}).
     * @throws IndexOutOfBoundsException if the range is outside the buffer.
     * @throws AeronException            if the message is too long ({@link AeronException#EINVAL}).
     */
    public final long offer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (closed)
        {
            return CLOSED;
        }
        buffer.boundsCheck(offset, length);
        final byte[] array = buffer.byteArray();
        final long result;
        if (null == array)
        {
            result = nativeOffer(buffer.addressOffset() + offset, length);
        }
        else
        {
            result = nativeOffer(heapSegment(array, buffer.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET + offset,
                length), length);
        }
        return checkOfferResult(result, "offer");
    }

    /**
     * Offers the bytes of two buffers as one message ({@code aeron_publication_offerv}),
     * e.g. a header and a body.
     */
    public final long offer(
        final DirectBuffer bufferOne, final int offsetOne, final int lengthOne,
        final DirectBuffer bufferTwo, final int offsetTwo, final int lengthTwo)
    {
        if (closed)
        {
            return CLOSED;
        }
        bufferOne.boundsCheck(offsetOne, lengthOne);
        bufferTwo.boundsCheck(offsetTwo, lengthTwo);
        final Scratch scratch = Scratch.get();
        final MemorySegment iovecs = scratch.iovecs;
        scratch.reserve((long)lengthOne + lengthTwo);
        // The C side reads native memory only: heap bytes go through this thread's scratch.
        iovecs.set(ValueLayout.JAVA_LONG, 0, scratch.nativeAddress(bufferOne, offsetOne, lengthOne, 0));
        iovecs.set(ValueLayout.JAVA_LONG, 8, lengthOne);
        iovecs.set(ValueLayout.JAVA_LONG, 16, scratch.nativeAddress(bufferTwo, offsetTwo, lengthTwo, lengthOne));
        iovecs.set(ValueLayout.JAVA_LONG, 24, lengthTwo);
        return checkOfferResult(nativeOfferVector(iovecs, 2), "offer");
    }

    /**
     * Offers as {@link #offer(DirectBuffer, int, int)}, with {@code supplier} giving each
     * frame's reserved value ({@code aeron_*_offer} with a reserved value supplier: one call
     * from C into Java per frame). If the supplier throws, the frame's value is 0, the
     * message is still published, and the exception is thrown when the offer returns.
     */
    public final long offer(
        final DirectBuffer buffer, final int offset, final int length, final ReservedValueSupplier supplier)
    {
        if (closed)
        {
            return CLOSED;
        }
        buffer.boundsCheck(offset, length);
        final ReservedValues values = ReservedValues.CURRENT.get();
        final long address;
        if (null == buffer.byteArray())
        {
            address = buffer.addressOffset() + offset;
        }
        else
        {
            // A call that calls back cannot take heap memory: the bytes go through native memory.
            final Scratch scratch = Scratch.get();
            scratch.reserve(length);
            address = scratch.nativeAddress(buffer, offset, length, 0);
        }
        values.supplier = supplier;
        final long result;
        try
        {
            result = nativeOfferWithSupplier(address, length, ReservedValues.STUB);
        }
        finally
        {
            values.supplier = null;
        }
        final Throwable failure = values.failure;
        if (null != failure)
        {
            values.failure = null;
            throw Native.rethrow(failure);
        }
        return checkOfferResult(result, "offer");
    }

    /** The reserved value supplier of the offer running on this thread, for the one upcall stub. */
    static final class ReservedValues
    {
        static final ThreadLocal<ReservedValues> CURRENT = ThreadLocal.withInitial(ReservedValues::new);
        static final MemorySegment STUB;

        static
        {
            try
            {
                final java.lang.invoke.MethodHandle target = java.lang.invoke.MethodHandles.lookup().findStatic(
                    ReservedValues.class, "supply",
                    java.lang.invoke.MethodType.methodType(long.class, long.class, long.class, long.class));
                // int64_t (*)(void *clientd, uint8_t *buffer, size_t frame_length); pointers as
                // 64-bit integers (LP64).
                STUB = io.aeronrs.internal.NativeLibrary.upcall(target, java.lang.foreign.FunctionDescriptor.of(
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Arena.global());
            }
            catch (final ReflectiveOperationException e)
            {
                throw new ExceptionInInitializerError(e);
            }
        }

        final org.agrona.concurrent.UnsafeBuffer frame = new org.agrona.concurrent.UnsafeBuffer(0, 0);
        ReservedValueSupplier supplier;
        Throwable failure;

        // The upcall, on the offering thread inside the C offer. An exception must not
        // leave it (the JVM would end): it is kept for the offer to throw.
        private static long supply(final long clientd, final long buffer, final long frameLength)
        {
            final ReservedValues values = CURRENT.get();
            try
            {
                values.frame.wrap(buffer, (int)frameLength);
                return null == values.failure && null != values.supplier ?
                    values.supplier.get(values.frame, 0, (int)frameLength) : 0;
            }
            catch (final Throwable t)
            {
                values.failure = t;
                return 0;
            }
            finally
            {
                values.frame.wrap(0, 0);
            }
        }
    }

    /** Offers the whole of {@code segment} (native or heap memory). */
    public final long offer(final MemorySegment segment)
    {
        return offer(segment, 0, Math.toIntExact(segment.byteSize()));
    }

    /** Offers {@code length} bytes of {@code segment} from {@code offset}. */
    public final long offer(final MemorySegment segment, final long offset, final int length)
    {
        if (closed)
        {
            return CLOSED;
        }
        return checkOfferResult(nativeOffer(segment.asSlice(offset, length), length), "offer");
    }

    /**
     * Claims room for a message of {@code length} bytes (at most {@link #maxPayloadLength()})
     * written in place through {@code bufferClaim}; commit or abort it soon after, the
     * subscribers wait at the claim until then.
     *
     * @return the position after the claimed message, or a negative result.
     */
    public final long tryClaim(final int length, final BufferClaim bufferClaim)
    {
        if (closed)
        {
            return CLOSED;
        }
        if (length < 0)
        {
            throw new AeronException(AeronException.EINVAL, "tryClaim: length " + length + " is negative");
        }
        final long result = nativeTryClaim(length, bufferClaim.nativeClaim());
        if (result > 0)
        {
            bufferClaim.claimed(this);
        }
        return checkOfferResult(result, "tryClaim");
    }

    /** A byte array and a segment over all of it; immutable, so threads may share one. */
    private record HeapSegment(byte[] array, MemorySegment segment)
    {
    }

    // The array of the last heap offer: offers from the same array (the usual case) reuse
    // its segment instead of making one per call.
    private HeapSegment lastHeapSegment;

    private MemorySegment heapSegment(final byte[] array, final long arrayOffset, final int length)
    {
        HeapSegment cached = lastHeapSegment;
        if (null == cached || cached.array() != array)
        {
            cached = new HeapSegment(array, MemorySegment.ofArray(array));
            lastHeapSegment = cached;
        }
        // The C side reads `length` bytes from the segment's start: a range at the start of
        // the array needs no slice.
        return 0 == arrayOffset ? cached.segment() : cached.segment().asSlice(arrayOffset, length);
    }

    final long checkOfferResult(final long result, final String operation)
    {
        if (result == PUBLICATION_ERROR)
        {
            throw Errors.lastError(operation);
        }
        return result;
    }

    final void checkOpen()
    {
        if (closed)
        {
            throw new ClosedException("publication");
        }
    }

    /** The client this publication belongs to. */
    public final Aeron aeron()
    {
        return aeron;
    }

    /** The channel URI as given when adding it. */
    public final String channel()
    {
        return channel;
    }

    /** The stream id within the channel. */
    public final int streamId()
    {
        return streamId;
    }

    /** The session id of this publisher's stream. */
    public final int sessionId()
    {
        return sessionId;
    }

    /** The term id the stream began with. */
    public final int initialTermId()
    {
        return initialTermId;
    }

    /** Length of each of the log's three terms. */
    public final int termBufferLength()
    {
        return termBufferLength;
    }

    /** Longest message {@code offer} accepts. */
    public final int maxMessageLength()
    {
        return maxMessageLength;
    }

    /** Longest payload of one frame: the most {@code tryClaim} accepts (MTU minus header). */
    public final int maxPayloadLength()
    {
        return maxPayloadLength;
    }

    /** Right shift that turns a position into a term count. */
    public final int positionBitsToShift()
    {
        return positionBitsToShift;
    }

    /** The largest position the stream can reach. */
    public final long maxPossiblePosition()
    {
        return maxPossiblePosition;
    }

    /** The registration id of this handle. */
    public final long registrationId()
    {
        return registrationId;
    }

    /** The registration id of the driver's publication, shared by all handles on it. */
    public final long originalRegistrationId()
    {
        return originalRegistrationId;
    }

    /** Counter id of the publisher limit (flow control). */
    public final int publicationLimitId()
    {
        return publicationLimitCounterId;
    }

    /** Counter id of the channel status indicator (-1 for IPC). */
    public final int channelStatusId()
    {
        return channelStatusId;
    }

    /** Whether a subscriber is connected (false once closed). */
    public final boolean isConnected()
    {
        return !closed && nativeIsConnected();
    }

    /** Whether the publication (or its client) is closed. */
    public final boolean isClosed()
    {
        return closed;
    }

    /** The current position of the stream, or {@link #CLOSED}. */
    public final long position()
    {
        return closed ? CLOSED : nativePosition();
    }

    /** The position the publisher may not pass (flow control), or {@link #CLOSED}. */
    public final long positionLimit()
    {
        return closed ? CLOSED : nativePositionLimit();
    }

    /** {@link #positionLimit()} minus {@link #position()}, or {@link #CLOSED}. */
    public final long availableWindow()
    {
        if (closed)
        {
            return CLOSED;
        }
        return nativePositionLimit() - nativePosition();
    }

    /** The send channel status: 1 active, -1 errored, 0 initialising (IPC: always 1). */
    public final long channelStatus()
    {
        checkOpen();
        return nativeChannelStatus();
    }

    /** The addresses the send endpoint is bound to, as {@code host:port} (empty for IPC). */
    public final List<String> localSocketAddresses()
    {
        checkOpen();
        return LocalAddresses.read(this::nativeLocalSocketAddresses);
    }

    /** Adds a destination to a manual multi-destination-cast publication; waits for the driver. */
    public final void addDestination(final String endpointChannel)
    {
        checkOpen();
        aeron.awaitDestination("addDestination", out -> withUri(endpointChannel, uri -> nativeAsyncDestination(out, uri, true)));
    }

    /** Removes a destination of a manual multi-destination-cast publication; waits for the driver. */
    public final void removeDestination(final String endpointChannel)
    {
        checkOpen();
        aeron.awaitDestination("removeDestination", out -> withUri(endpointChannel, uri -> nativeAsyncDestination(out, uri, false)));
    }

    /** Removes the destination added with registration id {@code destinationRegistrationId}. */
    public final void removeDestination(final long destinationRegistrationId)
    {
        checkOpen();
        aeron.awaitDestination("removeDestination", out -> nativeAsyncRemoveDestinationById(out, destinationRegistrationId));
    }

    static int withUri(final String uri, final java.util.function.ToIntFunction<MemorySegment> call)
    {
        try (Arena arena = Arena.ofConfined())
        {
            return call.applyAsInt(arena.allocateFrom(uri));
        }
    }

    /**
     * Closes the publication: later offers return {@link #CLOSED}. The native handle lingers
     * for the client's resource linger duration, so a thread still offering meets a closed
     * publication, never freed memory. Idempotent.
     */
    @Override
    public final void close()
    {
        if (aeron.release(this))
        {
            closeNative();
        }
    }

    /** Called once, by the client (on close of this or of the client). */
    final void closeNative()
    {
        closed = true;
        nativeClose();
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + "{channel=" + channel + ", streamId=" + streamId + ", sessionId=" +
            sessionId + ", registrationId=" + registrationId + ", closed=" + closed + "}";
    }

    /** Per-thread native memory for two-buffer offers. */
    static final class Scratch
    {
        private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

        final MemorySegment iovecs = Arena.ofAuto().allocate(Layouts.IOVEC, 2);
        private MemorySegment staging = Arena.ofAuto().allocate(4096, 64);

        static Scratch get()
        {
            return SCRATCH.get();
        }

        /** Makes the staging area at least {@code length} bytes (before any copy of an offer). */
        void reserve(final long length)
        {
            if (staging.byteSize() < length)
            {
                staging = Arena.ofAuto().allocate(Math.max(length, staging.byteSize() * 2), 64);
            }
        }

        /** Where the C side can read the range: the buffer itself, or a copy at {@code at}. */
        long nativeAddress(final DirectBuffer buffer, final int offset, final int length, final int at)
        {
            final byte[] array = buffer.byteArray();
            if (null == array)
            {
                return buffer.addressOffset() + offset;
            }
            final long arrayOffset = buffer.addressOffset() - BufferUtil.ARRAY_BASE_OFFSET + offset;
            MemorySegment.copy(array, (int)arrayOffset, staging, ValueLayout.JAVA_BYTE, at, length);
            return staging.address() + at;
        }
    }
}
