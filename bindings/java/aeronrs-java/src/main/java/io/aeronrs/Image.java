package io.aeronrs;

import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Layouts;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One publisher's stream as a subscription sees it, as {@code io.aeron.Image}
 * ({@code aeron_image_t}). Handed to the image handlers and by {@link Subscription#images()};
 * closed when it becomes unavailable, after which its queries throw {@link ClosedException}
 * (the constants stay readable).
 */
public final class Image
{
    private static final MethodHandle CONSTANTS = NativeLibrary.downcall(
        "aeron_image_constants", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle POSITION = NativeLibrary.criticalDowncall(
        "aeron_image_position", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle SET_POSITION = NativeLibrary.downcall(
        "aeron_image_set_position", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle IS_END_OF_STREAM = NativeLibrary.criticalDowncall(
        "aeron_image_is_end_of_stream", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    private static final MethodHandle END_OF_STREAM_POSITION = NativeLibrary.criticalDowncall(
        "aeron_image_end_of_stream_position", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle ACTIVE_TRANSPORT_COUNT = NativeLibrary.downcall(
        "aeron_image_active_transport_count", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle IS_CLOSED = NativeLibrary.criticalDowncall(
        "aeron_image_is_closed", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    private static final MethodHandle REJECT = NativeLibrary.downcall(
        "aeron_image_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    private final Subscription subscription;
    private final MemorySegment handle;
    private final String sourceIdentity;
    private final long correlationId;
    private final long joinPosition;
    private final int positionBitsToShift;
    private final int termBufferLength;
    private final int mtuLength;
    private final int sessionId;
    private final int initialTermId;
    private final int subscriberPositionId;
    private volatile boolean closed;

    Image(final Subscription subscription, final MemorySegment handle)
    {
        this.subscription = subscription;
        this.handle = handle;
        final var c = Layouts.IMAGE_CONSTANTS;
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment constants = local.allocate(c);
            Errors.check("aeron_image_constants", (int)CONSTANTS.invokeExact(handle, constants));
            sourceIdentity = Native.string(constants.get(ADDRESS, Layouts.offset(c, "source_identity")));
            correlationId = constants.get(JAVA_LONG, Layouts.offset(c, "correlation_id"));
            joinPosition = constants.get(JAVA_LONG, Layouts.offset(c, "join_position"));
            positionBitsToShift = (int)constants.get(JAVA_LONG, Layouts.offset(c, "position_bits_to_shift"));
            termBufferLength = (int)constants.get(JAVA_LONG, Layouts.offset(c, "term_buffer_length"));
            mtuLength = (int)constants.get(JAVA_LONG, Layouts.offset(c, "mtu_length"));
            sessionId = constants.get(ValueLayout.JAVA_INT, Layouts.offset(c, "session_id"));
            initialTermId = constants.get(ValueLayout.JAVA_INT, Layouts.offset(c, "initial_term_id"));
            subscriberPositionId = constants.get(ValueLayout.JAVA_INT, Layouts.offset(c, "subscriber_position_id"));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The C image handle. For the library's own use. */
    MemorySegment handle()
    {
        return handle;
    }

    void markClosed()
    {
        closed = true;
    }

    private void checkOpen()
    {
        if (closed || subscription.isClosed())
        {
            throw new ClosedException("image");
        }
    }

    /** The subscription the image belongs to. */
    public Subscription subscription()
    {
        return subscription;
    }

    /** The publisher's session id. */
    public int sessionId()
    {
        return sessionId;
    }

    /** The image's correlation id (unique per image in the driver). */
    public long correlationId()
    {
        return correlationId;
    }

    /** Where the stream came from: {@code aeron:ipc}, or the sender's {@code address:port}. */
    public String sourceIdentity()
    {
        return sourceIdentity;
    }

    /** The position the subscriber joined the stream at. */
    public long joinPosition()
    {
        return joinPosition;
    }

    /** The stream's first term id. */
    public int initialTermId()
    {
        return initialTermId;
    }

    /** Length of each term of the log. */
    public int termBufferLength()
    {
        return termBufferLength;
    }

    /** log2 of the term length. */
    public int positionBitsToShift()
    {
        return positionBitsToShift;
    }

    /** The MTU of the stream's frames. */
    public int mtuLength()
    {
        return mtuLength;
    }

    /** Counter id of this subscriber's position. */
    public int subscriberPositionId()
    {
        return subscriberPositionId;
    }

    /** Whether the image became unavailable (or its subscription closed). */
    public boolean isClosed()
    {
        if (closed || subscription.isClosed())
        {
            return true;
        }
        try
        {
            return (boolean)IS_CLOSED.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** This subscriber's position in the stream. */
    public long position()
    {
        checkOpen();
        try
        {
            return (long)POSITION.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Moves this subscriber's position (within the current term, frame aligned), e.g. to skip
     * ahead; by the polling thread only.
     */
    public void position(final long newPosition)
    {
        checkOpen();
        try
        {
            Errors.check("aeron_image_set_position", (int)SET_POSITION.invokeExact(handle, newPosition));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Whether the publisher ended the stream and this subscriber consumed all of it. */
    public boolean isEndOfStream()
    {
        checkOpen();
        try
        {
            return (boolean)IS_END_OF_STREAM.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Where the stream ends, if the publisher ended it ({@code Long.MAX_VALUE} while open). */
    public long endOfStreamPosition()
    {
        checkOpen();
        try
        {
            return (long)END_OF_STREAM_POSITION.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** How many transports (multi-destination receive) feed the image. */
    public int activeTransportCount()
    {
        checkOpen();
        try
        {
            return Errors.check("aeron_image_active_transport_count", (int)ACTIVE_TRANSPORT_COUNT.invokeExact(handle));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Asks the driver to reject this image (the publisher is told {@code reason}). */
    public void reject(final String reason)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            Errors.check("aeron_image_reject", (int)REJECT.invokeExact(handle, local.allocateFrom(reason)));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    public String toString()
    {
        return "Image{sessionId=" + sessionId + ", correlationId=" + correlationId + ", sourceIdentity=" +
            sourceIdentity + ", closed=" + closed + "}";
    }
}
