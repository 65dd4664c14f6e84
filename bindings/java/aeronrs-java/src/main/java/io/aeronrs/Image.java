package io.aeronrs;

import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Layouts;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;
import io.aeronrs.logbuffer.ControlledFragmentHandler;
import io.aeronrs.logbuffer.FragmentHandler;
import io.aeronrs.logbuffer.Header;
import org.agrona.concurrent.UnsafeBuffer;

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
 * <p>
 * Polls read the image's log directly, as Java Aeron does: {@code aeronrs_image_log} names
 * the mapped terms, the subscriber position counter and the image's closed flag once, and a
 * poll walks the frames with acquire loads of their lengths and moves the position with a
 * release store ({@code spec/log-buffer.md} §8), with no call into C. The mapping cannot go
 * away under a poll: the image is retained ({@code aeron_subscription_image_retain}) from
 * its first sight on and released by its subscription's polling thread, between polls,
 * once the image became unavailable (or when the subscription closes). Each poll tests the
 * native closed flag first, so a closed image's position counter, which the driver frees,
 * is never written.
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
    private static final MethodHandle LOG = NativeLibrary.downcall(
        "aeronrs_image_log", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle RETAIN = NativeLibrary.downcall(
        "aeron_subscription_image_retain", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle RELEASE = NativeLibrary.downcall(
        "aeron_subscription_image_release", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    private static final int PARTITION_COUNT = 3;
    // Aeron's data header: the type at byte 6, PAD = 0 (spec/log-buffer.md §5).
    private static final int TYPE_OFFSET = 6;
    private static final short PADDING_FRAME_TYPE = 0;

    private final Subscription subscription;
    /** The C subscription, for the retain and its release (open while this image is retained). */
    private final MemorySegment nativeSubscription;
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
    /** The three terms of the mapped log, by partition index. */
    private final UnsafeBuffer[] terms = new UnsafeBuffer[PARTITION_COUNT];
    private final int termLengthMask;
    /** The subscriber position counter: read and written only by the polling thread (and the driver reads it). */
    private final UnsafeBuffer subscriberPosition;
    /** The native image's closed flag (a byte, non-zero once closed). */
    private final UnsafeBuffer nativeClosed;
    private volatile boolean closed;
    /** Whether the retain taken at construction was given back (guarded by this). */
    private boolean released;

    Image(final Subscription subscription, final MemorySegment nativeSubscription, final MemorySegment handle)
    {
        this.subscription = subscription;
        this.nativeSubscription = nativeSubscription;
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

            final var l = Layouts.IMAGE_LOG;
            final MemorySegment log = local.allocate(l);
            Errors.check("aeronrs_image_log", (int)LOG.invokeExact(handle, log));
            final long termsAddress = log.get(ADDRESS, Layouts.offset(l, "terms")).address();
            final long termLength = log.get(JAVA_LONG, Layouts.offset(l, "term_length"));
            if (termLength != termBufferLength || Long.bitCount(termLength) != 1 ||
                log.get(JAVA_LONG, Layouts.offset(l, "log_length")) < PARTITION_COUNT * termLength)
            {
                throw new IllegalStateException("image log of " + termLength + "-byte terms does not match the image");
            }
            for (int i = 0; i < PARTITION_COUNT; i++)
            {
                terms[i] = new UnsafeBuffer(termsAddress + i * termLength, (int)termLength);
            }
            termLengthMask = (int)termLength - 1;
            subscriberPosition = new UnsafeBuffer(log.get(ADDRESS, Layouts.offset(l, "subscriber_position")).address(), 8);
            nativeClosed = new UnsafeBuffer(log.get(ADDRESS, Layouts.offset(l, "is_closed")).address(), 1);
            // Last: a failure above takes no reference that would never be released.
            Errors.check("aeron_subscription_image_retain", (int)RETAIN.invokeExact(nativeSubscription, handle));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Gives back the retain taken at construction, once: by the subscription's polling
     * thread between polls, or by its closing thread before the native close (which may
     * race an unavailable-image upcall that also releases: hence synchronized).
     */
    synchronized void release()
    {
        if (released)
        {
            return;
        }
        released = true;
        try
        {
            Errors.check("aeron_subscription_image_release", (int)RELEASE.invokeExact(nativeSubscription, handle));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Delivers up to {@code fragmentLimit} fragments from the subscriber position to the end
     * of its term to {@code handler} (payload in {@code fragment}, header in {@code header})
     * and moves the position past them, also past the one the handler threw on. Padding is
     * skipped. The polling thread only; returns the fragments delivered (0 once closed).
     */
    int poll(final FragmentHandler handler, final int fragmentLimit, final UnsafeBuffer fragment, final Header header)
    {
        // Acquire: pairs with the native close's release; once closed, the counter is the driver's.
        if (nativeClosed.getByteVolatile(0) != 0)
        {
            return 0;
        }
        // Only this thread writes the position (the driver only reads it).
        final long position = subscriberPosition.getLong(0);
        final int initialOffset = (int)position & termLengthMask;
        final UnsafeBuffer term = terms[(int)((position >>> positionBitsToShift) % PARTITION_COUNT)];
        if ((initialOffset & (Header.FRAME_ALIGNMENT - 1)) != 0)
        {
            // No frame starts off the alignment (set_position refuses it): stall as the native reader does.
            return 0;
        }
        // Acquire, as in the loop: the common empty poll ends here, in code small enough to inline.
        if (term.getIntVolatile(initialOffset) <= 0)
        {
            return 0;
        }
        return read(handler, fragmentLimit, fragment, header, term, position, initialOffset);
    }

    /** {@link #poll}'s loop over the frames from {@code initialOffset} of {@code term}, out of line. */
    private int read(
        final FragmentHandler handler, final int fragmentLimit, final UnsafeBuffer fragment, final Header header,
        final UnsafeBuffer term, final long position, final int initialOffset)
    {
        final int termLength = termLengthMask + 1;
        header.image(this, term, initialTermId, positionBitsToShift);
        int offset = initialOffset;
        int fragmentsRead = 0;
        try
        {
            while (fragmentsRead < fragmentLimit && offset < termLength)
            {
                // Acquire: the frame's header and payload were written before its length (release).
                final int frameLength = term.getIntVolatile(offset);
                if (frameLength < Header.HEADER_LENGTH || frameLength > termLength - offset)
                {
                    // Not yet published (0 or a claim's negative length), or not a frame that
                    // fits the term: nothing to read from here on.
                    break;
                }
                final int frameOffset = offset;
                offset += (frameLength + Header.FRAME_ALIGNMENT - 1) & -Header.FRAME_ALIGNMENT;
                if (term.getShort(frameOffset + TYPE_OFFSET) == PADDING_FRAME_TYPE)
                {
                    continue;
                }
                fragmentsRead++;
                header.frame(frameOffset, frameLength);
                final int length = frameLength - Header.HEADER_LENGTH;
                fragment.wrap(term.addressOffset() + frameOffset + Header.HEADER_LENGTH, length);
                handler.onFragment(fragment, 0, length, header);
            }
        }
        finally
        {
            if (offset > initialOffset)
            {
                // Release: the driver may let publishers reuse the space only after the reads above.
                subscriberPosition.putLongRelease(0, position + (offset - initialOffset));
            }
        }
        return fragmentsRead;
    }

    /**
     * As {@link #poll} with the handler's {@link ControlledFragmentHandler.Action}: ABORT
     * leaves its fragment and stops, BREAK consumes it and stops, COMMIT consumes it and
     * stores the position at once, CONTINUE consumes it. A fragment the handler threw on is
     * not consumed. Returns the fragments consumed.
     */
    int controlledPoll(
        final ControlledFragmentHandler handler, final int fragmentLimit, final UnsafeBuffer fragment, final Header header)
    {
        if (nativeClosed.getByteVolatile(0) != 0)
        {
            return 0;
        }
        final long position = subscriberPosition.getLong(0);
        final int initialOffset = (int)position & termLengthMask;
        final UnsafeBuffer term = terms[(int)((position >>> positionBitsToShift) % PARTITION_COUNT)];
        if ((initialOffset & (Header.FRAME_ALIGNMENT - 1)) != 0)
        {
            return 0;
        }
        if (term.getIntVolatile(initialOffset) <= 0)
        {
            return 0;
        }
        return controlledRead(handler, fragmentLimit, fragment, header, term, position, initialOffset);
    }

    /** {@link #controlledPoll}'s loop, out of line. */
    private int controlledRead(
        final ControlledFragmentHandler handler, final int fragmentLimit, final UnsafeBuffer fragment,
        final Header header, final UnsafeBuffer term, final long position, final int initialOffset)
    {
        final int termLength = termLengthMask + 1;
        header.image(this, term, initialTermId, positionBitsToShift);
        int offset = initialOffset;
        int committedOffset = initialOffset;
        int fragmentsRead = 0;
        try
        {
            while (fragmentsRead < fragmentLimit && offset < termLength)
            {
                final int frameLength = term.getIntVolatile(offset);
                if (frameLength < Header.HEADER_LENGTH || frameLength > termLength - offset)
                {
                    break;
                }
                final int frameOffset = offset;
                final int alignedLength = (frameLength + Header.FRAME_ALIGNMENT - 1) & -Header.FRAME_ALIGNMENT;
                if (term.getShort(frameOffset + TYPE_OFFSET) == PADDING_FRAME_TYPE)
                {
                    offset += alignedLength;
                    continue;
                }
                header.frame(frameOffset, frameLength);
                final int length = frameLength - Header.HEADER_LENGTH;
                fragment.wrap(term.addressOffset() + frameOffset + Header.HEADER_LENGTH, length);
                // The offset moves past the fragment only once the handler returned and did not abort.
                final ControlledFragmentHandler.Action action = handler.onFragment(fragment, 0, length, header);
                if (action == ControlledFragmentHandler.Action.ABORT)
                {
                    break;
                }
                offset += alignedLength;
                fragmentsRead++;
                if (action == ControlledFragmentHandler.Action.BREAK)
                {
                    break;
                }
                if (action == ControlledFragmentHandler.Action.COMMIT)
                {
                    committedOffset = offset;
                    subscriberPosition.putLongRelease(0, position + (offset - initialOffset));
                }
            }
        }
        finally
        {
            if (offset > committedOffset)
            {
                subscriberPosition.putLongRelease(0, position + (offset - initialOffset));
            }
        }
        return fragmentsRead;
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

    /** Whether the unavailable-image handler (or the subscription's close) closed this image. */
    boolean isMarkedClosed()
    {
        return closed;
    }

    /**
     * Polls this image alone for up to {@code fragmentLimit} fragments from its subscriber
     * position (one term at most), as {@code io.aeron.Image.poll}; by the subscription's
     * polling thread, with its checks. Returns the fragments delivered; 0 once closed.
     */
    public int poll(final FragmentHandler handler, final int fragmentLimit)
    {
        return subscription.poll(this, handler, fragmentLimit);
    }

    /** As {@link #poll(FragmentHandler, int)} with the handler's actions, as {@link Subscription#controlledPoll}. */
    public int controlledPoll(final ControlledFragmentHandler handler, final int fragmentLimit)
    {
        return subscription.controlledPoll(this, handler, fragmentLimit);
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
