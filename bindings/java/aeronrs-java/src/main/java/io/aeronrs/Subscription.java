package io.aeronrs;

import io.aeronrs.exceptions.AeronException;
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
 * A poll makes no call into C: each {@link Image} reads its mapped log and moves its
 * subscriber position itself (see {@link Image}), and the handler is called for each
 * fragment with no allocation: the {@link org.agrona.DirectBuffer} and {@link Header} handed
 * to it are reused. The images are the ones the image handlers reported (upcalls on the
 * client conductor thread); an image that became unavailable is released by the next poll
 * (or the close), on the polling thread, so its mapping never goes away under a poll.
 */
public final class Subscription implements AutoCloseable
{
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

    private final Aeron aeron;
    private final String channel;
    private final int streamId;
    private final AvailableImageHandler availableImageHandler;
    private final UnavailableImageHandler unavailableImageHandler;
    private final Object imagesLock = new Object();
    private final UnsafeBuffer fragment = new UnsafeBuffer(0, 0);
    private final Header header = new Header();
    private volatile Image[] images = NO_IMAGES;
    /** Images gone unavailable, still retained: released by the polling thread (under imagesLock to swap). */
    private volatile Image[] retired = NO_IMAGES;
    /** Set (under imagesLock) when the close begins: images announced from then on are not taken. */
    private boolean closing;
    private MemorySegment handle = MemorySegment.NULL;
    private long token;
    private long registrationId;
    private int channelStatusId;
    private int roundRobinIndex;
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
        final Image[] images = beginPoll();
        final int length = images.length;
        int fragmentsRead = 0;
        if (length == 0 || fragmentLimit <= 0)
        {
            return 0;
        }
        int startingIndex = roundRobinIndex++;
        if (startingIndex >= length)
        {
            roundRobinIndex = startingIndex = 0;
        }
        try
        {
            polling = true;
            for (int i = startingIndex; i < length && fragmentsRead < fragmentLimit; i++)
            {
                fragmentsRead += images[i].poll(handler, fragmentLimit - fragmentsRead, fragment, header);
            }
            for (int i = 0; i < startingIndex && fragmentsRead < fragmentLimit; i++)
            {
                fragmentsRead += images[i].poll(handler, fragmentLimit - fragmentsRead, fragment, header);
            }
        }
        finally
        {
            polling = false;
            // A handler that kept the buffer finds nothing in it afterwards.
            if (0 != fragment.addressOffset())
            {
                fragment.wrap(0, 0);
            }
        }
        return fragmentsRead;
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
        final Image[] images = beginPoll();
        final int length = images.length;
        int fragmentsRead = 0;
        if (length == 0 || fragmentLimit <= 0)
        {
            return 0;
        }
        int startingIndex = roundRobinIndex++;
        if (startingIndex >= length)
        {
            roundRobinIndex = startingIndex = 0;
        }
        try
        {
            polling = true;
            for (int i = startingIndex; i < length && fragmentsRead < fragmentLimit; i++)
            {
                fragmentsRead += images[i].controlledPoll(handler, fragmentLimit - fragmentsRead, fragment, header);
            }
            for (int i = 0; i < startingIndex && fragmentsRead < fragmentLimit; i++)
            {
                fragmentsRead += images[i].controlledPoll(handler, fragmentLimit - fragmentsRead, fragment, header);
            }
        }
        finally
        {
            polling = false;
            // A handler that kept the buffer finds nothing in it afterwards.
            if (0 != fragment.addressOffset())
            {
                fragment.wrap(0, 0);
            }
        }
        return fragmentsRead;
    }

    /** {@link Image#poll}: one image of this subscription, with the same checks and reused buffers. */
    int poll(final Image image, final FragmentHandler handler, final int fragmentLimit)
    {
        beginPoll();
        // Closed before it was queued for release: a released image is never read.
        if (image.isMarkedClosed() || fragmentLimit <= 0)
        {
            return 0;
        }
        try
        {
            polling = true;
            return image.poll(handler, fragmentLimit, fragment, header);
        }
        finally
        {
            polling = false;
            if (0 != fragment.addressOffset())
            {
                fragment.wrap(0, 0);
            }
        }
    }

    /** {@link Image#controlledPoll}, as {@link #poll(Image, FragmentHandler, int)}. */
    int controlledPoll(final Image image, final ControlledFragmentHandler handler, final int fragmentLimit)
    {
        beginPoll();
        if (image.isMarkedClosed() || fragmentLimit <= 0)
        {
            return 0;
        }
        try
        {
            polling = true;
            return image.controlledPoll(handler, fragmentLimit, fragment, header);
        }
        finally
        {
            polling = false;
            if (0 != fragment.addressOffset())
            {
                fragment.wrap(0, 0);
            }
        }
    }

    /**
     * The checks every poll makes, then the images to poll. Releases the images gone
     * unavailable since the last poll: this thread is the only one that reads their logs,
     * and it is between polls now.
     */
    private Image[] beginPoll()
    {
        checkOpen();
        if (polling)
        {
            throw new AeronException(AeronException.EPERM, "poll of a subscription from inside its own handler");
        }
        if (retired.length != 0)
        {
            releaseRetired();
        }
        return images;
    }

    private void releaseRetired()
    {
        final Image[] toRelease;
        synchronized (imagesLock)
        {
            toRelease = retired;
            retired = NO_IMAGES;
        }
        for (final Image image : toRelease)
        {
            image.release();
        }
    }

    /** The Java image for a C image, made (retaining the C image) and added on first sight; null once closing. */
    private Image imageFor(final MemorySegment nativeSubscription, final MemorySegment nativeImage)
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
            if (closing)
            {
                return null;
            }
            final Image image = new Image(this, nativeSubscription, nativeImage);
            final Image[] current = images;
            final Image[] updated = Arrays.copyOf(current, current.length + 1);
            updated[current.length] = image;
            images = updated;
            return image;
        }
    }

    /** On the conductor thread: {@code nativeSubscription} is this subscription's C handle (also before the add returned it). */
    void onAvailableImage(final MemorySegment nativeSubscription, final MemorySegment nativeImage)
    {
        final Image image = imageFor(nativeSubscription, nativeImage);
        if (null != image && null != availableImageHandler)
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
            synchronized (imagesLock)
            {
                if (closing)
                {
                    // The close released every image before the native close that told us.
                    removed.release();
                }
                else
                {
                    // For the polling thread to release between polls (it may be reading the log now).
                    final Image[] current = retired;
                    final Image[] updated = Arrays.copyOf(current, current.length + 1);
                    updated[current.length] = removed;
                    retired = updated;
                }
            }
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
        // No poll runs now (the polling thread closes): give back every retain while the C
        // subscription is still open; the native close then keeps the images for their linger.
        final Image[] held;
        synchronized (imagesLock)
        {
            closing = true;
            held = images;
        }
        releaseRetired();
        for (final Image image : held)
        {
            image.release();
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
