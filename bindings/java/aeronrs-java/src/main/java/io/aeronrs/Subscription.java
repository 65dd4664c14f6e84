package io.aeronrs;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Descriptors;
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
import java.util.Arrays;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A subscription to one stream of a channel, as {@code io.aeron.Subscription}: polled by
 * one thread at a time, its {@link Image}s are the publishers' streams.
 * <p>
 * A poll is one native call, {@code aeronrs_subscription_poll_batch}, that describes up to
 * the fragment limit of fragments (payload address and length, header fields) into this
 * subscription's descriptor array, without consuming them; the handler is then called in
 * Java for each, and one more call, {@code aeronrs_fragment_batch_commit}, consumes what
 * was handled. No call from C back into Java per fragment, and no allocation per fragment:
 * the {@link org.agrona.DirectBuffer} and {@link Header} handed to the handler are reused.
 */
public final class Subscription implements AutoCloseable
{
    private static final MethodHandle POLL_BATCH = NativeLibrary.criticalDowncall(
        "aeronrs_subscription_poll_batch", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    // The descriptors by raw address (LP64: a pointer passes as a 64-bit integer), so that
    // committing from the middle of the array needs no segment object.
    private static final MethodHandle BATCH_COMMIT = NativeLibrary.criticalDowncall(
        "aeronrs_fragment_batch_commit", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    // The empty-poll test (a spinning subscriber mostly finds nothing): far cheaper than the
    // batch poll's full path.
    private static final MethodHandle HAS_NOTHING_TO_POLL = NativeLibrary.criticalDowncall(
        "aeronrs_subscription_has_nothing_to_poll", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    private static final MethodHandle CONSTANTS = NativeLibrary.downcall(
        "aeron_subscription_constants", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle CHANNEL_STATUS = NativeLibrary.downcall(
        "aeron_subscription_channel_status", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle IS_CONNECTED = NativeLibrary.criticalDowncall(
        "aeron_subscription_is_connected", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    private static final MethodHandle CLOSE = NativeLibrary.downcall(
        "aeron_subscription_close", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle LOCAL_SOCKADDRS = NativeLibrary.downcall(
        "aeron_subscription_local_sockaddrs", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle RESOLVED_ENDPOINT = NativeLibrary.downcall(
        "aeron_subscription_resolved_endpoint", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle TRY_RESOLVE_PORT = NativeLibrary.downcall(
        "aeron_subscription_try_resolve_channel_endpoint_port",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle ASYNC_ADD_DESTINATION = NativeLibrary.downcall(
        "aeron_subscription_async_add_destination", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle ASYNC_REMOVE_DESTINATION = NativeLibrary.downcall(
        "aeron_subscription_async_remove_destination",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));

    private static final Image[] NO_IMAGES = new Image[0];
    private static final int INITIAL_DESCRIPTORS = 256;
    /** The most fragments one native call describes; larger limits are served in several calls. */
    private static final int MAX_DESCRIPTORS = 1 << 16;

    private final Aeron aeron;
    private final String channel;
    private final int streamId;
    private final AvailableImageHandler availableImageHandler;
    private final UnavailableImageHandler unavailableImageHandler;
    private final Object imagesLock = new Object();
    private final UnsafeBuffer fragment = new UnsafeBuffer(0, 0);
    private final Header header = new Header();
    private volatile Image[] images = NO_IMAGES;
    private MemorySegment handle = MemorySegment.NULL;
    private long token;
    private long registrationId;
    private int channelStatusId;
    // Freed by the GC with this object: a poll still running on another thread when the
    // subscription closes keeps writing to memory that is still there.
    private MemorySegment descriptors = Arena.ofAuto().allocate(Descriptors.LENGTH * INITIAL_DESCRIPTORS, 8);
    private int capacity = INITIAL_DESCRIPTORS;
    private Image lastImage;
    private boolean polling;
    private volatile boolean closed;

    Subscription(
        final Aeron aeron,
        final String channel,
        final int streamId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler)
    {
        this.aeron = aeron;
        this.channel = channel;
        this.streamId = streamId;
        this.availableImageHandler = availableImageHandler;
        this.unavailableImageHandler = unavailableImageHandler;
    }

    void attach(final MemorySegment handle, final long token)
    {
        final var c = Layouts.SUBSCRIPTION_CONSTANTS;
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment constants = local.allocate(c);
            Errors.check("aeron_subscription_constants", (int)CONSTANTS.invokeExact(handle, constants));
            registrationId = constants.get(JAVA_LONG, Layouts.offset(c, "registration_id"));
            channelStatusId = constants.get(JAVA_INT, Layouts.offset(c, "channel_status_indicator_id"));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        this.token = token;
        this.handle = handle;
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new ClosedException("subscription");
        }
    }

    /**
     * Polls the images in turn (starting one further each call) for up to
     * {@code fragmentLimit} fragments and hands each to {@code handler}. All delivered
     * fragments are consumed; if the handler throws, the fragments up to and including the
     * one it threw on are consumed, and the exception propagates.
     *
     * @return the number of fragments delivered.
     */
    public int poll(final FragmentHandler handler, final int fragmentLimit)
    {
        int total = 0;
        while (total < fragmentLimit)
        {
            final int count = describe(fragmentLimit - total);
            if (count == 0)
            {
                break;
            }
            int delivered = 0;
            try
            {
                polling = true;
                for (; delivered < count; delivered++)
                {
                    final long base = delivered * Descriptors.LENGTH;
                    fragment.wrap(descriptors.get(JAVA_LONG, base + Descriptors.BUFFER),
                        (int)descriptors.get(JAVA_LONG, base + Descriptors.PAYLOAD_LENGTH));
                    header.wrap(descriptors, delivered, imageAt(base));
                    handler.onFragment(fragment, 0, fragment.capacity(), header);
                }
            }
            finally
            {
                polling = false;
                fragment.wrap(0, 0);
                commit(0, delivered < count ? delivered + 1 : count);
            }
            total += count;
            if (count < capacity)
            {
                break;
            }
        }
        return total;
    }

    /**
     * Polls as {@link #poll} but lets {@code handler} decide per fragment (see
     * {@link ControlledFragmentHandler.Action}); the actions keep Aeron's meaning, per image:
     * ABORT leaves that fragment and stops the image's poll, BREAK consumes it and stops,
     * COMMIT consumes it and moves the subscriber position at once, CONTINUE consumes it.
     * If the handler throws, that fragment is not consumed (as ABORT), and the exception
     * propagates.
     *
     * @return the number of fragments consumed.
     */
    public int controlledPoll(final ControlledFragmentHandler handler, final int fragmentLimit)
    {
        final int count = describe(Math.min(fragmentLimit, MAX_DESCRIPTORS));
        int consumed = 0;
        int index = 0;
        try
        {
            polling = true;
            while (index < count)
            {
                final long image = descriptors.get(JAVA_LONG, index * Descriptors.LENGTH + Descriptors.IMAGE);
                int lastConsumed = -1;
                int lastCommitted = -1;
                boolean stopped = false;
                try
                {
                    for (; index < count &&
                        descriptors.get(JAVA_LONG, index * Descriptors.LENGTH + Descriptors.IMAGE) == image; index++)
                    {
                        if (stopped)
                        {
                            continue;
                        }
                        final long base = index * Descriptors.LENGTH;
                        fragment.wrap(descriptors.get(JAVA_LONG, base + Descriptors.BUFFER),
                            (int)descriptors.get(JAVA_LONG, base + Descriptors.PAYLOAD_LENGTH));
                        header.wrap(descriptors, index, imageAt(base));
                        final ControlledFragmentHandler.Action action =
                            handler.onFragment(fragment, 0, fragment.capacity(), header);
                        switch (action)
                        {
                            case ABORT -> stopped = true;
                            case BREAK ->
                            {
                                lastConsumed = index;
                                consumed++;
                                stopped = true;
                            }
                            case COMMIT ->
                            {
                                lastConsumed = index;
                                consumed++;
                                commit(index, 1);
                                lastCommitted = index;
                            }
                            case CONTINUE ->
                            {
                                lastConsumed = index;
                                consumed++;
                            }
                        }
                    }
                }
                finally
                {
                    // The image's position moves past the last consumed fragment of its run.
                    if (lastConsumed > lastCommitted)
                    {
                        commit(lastConsumed, 1);
                    }
                }
            }
        }
        finally
        {
            polling = false;
            fragment.wrap(0, 0);
        }
        return consumed;
    }

    /** Describes up to {@code limit} fragments into the descriptor array; returns how many. */
    private int describe(final int limit)
    {
        checkOpen();
        if (polling)
        {
            throw new AeronException(AeronException.EPERM, "poll of a subscription from inside its own handler");
        }
        if (limit <= 0)
        {
            return 0;
        }
        if (limit > capacity && capacity < MAX_DESCRIPTORS)
        {
            final int grown = Math.min(MAX_DESCRIPTORS, Integer.highestOneBit(limit - 1) << 1);
            descriptors = Arena.ofAuto().allocate(Descriptors.LENGTH * grown, 8);
            capacity = grown;
        }
        final int count;
        try
        {
            if ((boolean)HAS_NOTHING_TO_POLL.invokeExact(handle))
            {
                return 0;
            }
            count = (int)POLL_BATCH.invokeExact(handle, descriptors, (long)Math.min(limit, capacity));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        if (count < 0)
        {
            throw Errors.lastError("aeronrs_subscription_poll_batch");
        }
        return count;
    }

    /** Consumes descriptors {@code [from, from + count)}: their images' positions move past them. */
    private void commit(final int from, final int count)
    {
        if (count <= 0)
        {
            return;
        }
        final int result;
        try
        {
            result = (int)BATCH_COMMIT.invokeExact(descriptors.address() + from * Descriptors.LENGTH, (long)count);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        if (result < 0)
        {
            throw Errors.lastError("aeronrs_fragment_batch_commit");
        }
    }

    /** The Java image of the descriptor at {@code base}. */
    private Image imageAt(final long base)
    {
        final long address = descriptors.get(JAVA_LONG, base + Descriptors.IMAGE);
        final Image last = lastImage;
        if (null != last && last.handle().address() == address)
        {
            return last;
        }
        for (final Image image : images)
        {
            if (image.handle().address() == address)
            {
                lastImage = image;
                return image;
            }
        }
        // Polled before its available-image handler ran on the conductor thread.
        final Image image = imageFor(MemorySegment.ofAddress(address));
        lastImage = image;
        return image;
    }

    /** The Java image for a C image, made and added on first sight. */
    private Image imageFor(final MemorySegment nativeImage)
    {
        synchronized (imagesLock)
        {
            for (final Image image : images)
            {
                if (image.handle().address() == nativeImage.address())
                {
                    return image;
                }
            }
            final Image image = new Image(this, nativeImage);
            final Image[] current = images;
            final Image[] updated = Arrays.copyOf(current, current.length + 1);
            updated[current.length] = image;
            images = updated;
            return image;
        }
    }

    void onAvailableImage(final MemorySegment nativeImage)
    {
        final Image image = imageFor(nativeImage);
        if (null != availableImageHandler)
        {
            availableImageHandler.onAvailableImage(image);
        }
    }

    void onUnavailableImage(final MemorySegment nativeImage)
    {
        Image removed = null;
        synchronized (imagesLock)
        {
            final Image[] current = images;
            for (int i = 0; i < current.length; i++)
            {
                if (current[i].handle().address() == nativeImage.address())
                {
                    removed = current[i];
                    final Image[] updated = new Image[current.length - 1];
                    System.arraycopy(current, 0, updated, 0, i);
                    System.arraycopy(current, i + 1, updated, i, current.length - i - 1);
                    images = updated;
                    break;
                }
            }
        }
        if (null == removed)
        {
            return;
        }
        try
        {
            if (null != unavailableImageHandler)
            {
                unavailableImageHandler.onUnavailableImage(removed);
            }
        }
        finally
        {
            removed.markClosed();
        }
    }

    /** The client this subscription belongs to. */
    public Aeron aeron()
    {
        return aeron;
    }

    /** The channel URI as given when adding it. */
    public String channel()
    {
        return channel;
    }

    /** The stream id. */
    public int streamId()
    {
        return streamId;
    }

    /** The registration id of the subscription. */
    public long registrationId()
    {
        return registrationId;
    }

    /** Counter id of the channel status indicator (-1 for IPC). */
    public int channelStatusId()
    {
        return channelStatusId;
    }

    /** The images (publishers' streams) now available, in the order they joined. */
    public List<Image> images()
    {
        checkOpen();
        return List.of(images);
    }

    /** How many images are available. */
    public int imageCount()
    {
        checkOpen();
        return images.length;
    }

    /** The image at {@code index} of {@link #images()}. */
    public Image imageAtIndex(final int index)
    {
        checkOpen();
        return images[index];
    }

    /** The image of the publisher with {@code sessionId}, or null. */
    public Image imageBySessionId(final int sessionId)
    {
        checkOpen();
        for (final Image image : images)
        {
            if (image.sessionId() == sessionId)
            {
                return image;
            }
        }
        return null;
    }

    /** Whether any image is connected. */
    public boolean isConnected()
    {
        if (closed)
        {
            return false;
        }
        try
        {
            return (boolean)IS_CONNECTED.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Whether there are no images. */
    public boolean hasNoImages()
    {
        return images.length == 0;
    }

    /** Whether the subscription (or its client) is closed. */
    public boolean isClosed()
    {
        return closed;
    }

    /** The receive channel status: 1 active, -1 errored (IPC: always 1). */
    public long channelStatus()
    {
        checkOpen();
        try
        {
            return (long)CHANNEL_STATUS.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The addresses the receive endpoint is bound to, as {@code host:port}. */
    public List<String> localSocketAddresses()
    {
        checkOpen();
        return LocalAddresses.read((iovecs, count) ->
        {
            try
            {
                return (int)LOCAL_SOCKADDRS.invokeExact(handle, iovecs, count);
            }
            catch (final Throwable t)
            {
                throw Native.rethrow(t);
            }
        });
    }

    /** The receive endpoint's first bound address ({@code host:port}), or null if none yet. */
    public String resolvedEndpoint()
    {
        checkOpen();
        return readString(RESOLVED_ENDPOINT, "aeron_subscription_resolved_endpoint");
    }

    /** The channel with the endpoint's bound port in place of port 0, or null if not yet resolved. */
    public String tryResolveChannelEndpointPort()
    {
        checkOpen();
        return readString(TRY_RESOLVE_PORT, "aeron_subscription_try_resolve_channel_endpoint_port");
    }

    private String readString(final MethodHandle call, final String operation)
    {
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment text = local.allocate(4096);
            final int result = Errors.check(operation, (int)call.invokeExact(handle, text, text.byteSize()));
            return result == 0 ? null : text.getString(0);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Adds a receive destination to a multi-destination subscription; waits for the driver. */
    public void addDestination(final String endpointChannel)
    {
        checkOpen();
        aeron.awaitDestination("addDestination", out -> Publication.withUri(endpointChannel, uri ->
            destination(ASYNC_ADD_DESTINATION, out, uri)));
    }

    /** Removes a receive destination; waits for the driver. */
    public void removeDestination(final String endpointChannel)
    {
        checkOpen();
        aeron.awaitDestination("removeDestination", out -> Publication.withUri(endpointChannel, uri ->
            destination(ASYNC_REMOVE_DESTINATION, out, uri)));
    }

    private int destination(final MethodHandle call, final MemorySegment out, final MemorySegment uri)
    {
        try
        {
            return (int)call.invokeExact(out, aeron.handle(), handle, uri);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Closes the subscription: its images become unavailable (the unavailable-image handler
     * runs for each, on this thread). By the polling thread. Idempotent.
     */
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
        if (polling)
        {
            throw new AeronException(AeronException.EPERM, "close of a subscription from inside its own handler");
        }
        try
        {
            final int ignored = (int)CLOSE.invokeExact(handle, MemorySegment.NULL, MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        finally
        {
            closed = true;
            aeron.forgetSubscription(token);
            for (final Image image : images)
            {
                image.markClosed();
            }
        }
    }

    @Override
    public String toString()
    {
        return "Subscription{channel=" + channel + ", streamId=" + streamId + ", registrationId=" + registrationId +
            ", images=" + images.length + ", closed=" + closed + "}";
    }
}
