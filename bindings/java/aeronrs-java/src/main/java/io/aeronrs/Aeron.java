package io.aeronrs;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.ClientCalls;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;
import io.aeronrs.internal.Settings;
import io.aeronrs.status.CountersReader;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToIntFunction;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A client of an Aeron media driver (aeronrs's or any Aeron 1.48 driver), as
 * {@code io.aeron.Aeron}: {@link #connect(Context)}, then add publications, subscriptions
 * and counters. Over {@code aeron_init}/{@code aeron_start}; the client conductor is the C
 * client's own thread, or the caller's through {@link #doWork()} with
 * {@link Context#useConductorAgentInvoker(boolean)}.
 * <p>
 * Closing the client closes everything it added. Use of anything after it is closed throws
 * {@link ClosedException} (offers return {@link Publication#CLOSED}). As with Aeron, close a
 * resource only when no other thread is still using it.
 */
public final class Aeron implements AutoCloseable
{
    /** Where the client finds its driver and how it behaves; settings go to {@code aeron_context_set_*}. */
    public static final class Context
    {
        private final Settings settings = new Settings();
        private ErrorHandler errorHandler;
        private AvailableImageHandler availableImageHandler;
        private UnavailableImageHandler unavailableImageHandler;
        private AvailableCounterHandler availableCounterHandler;
        private UnavailableCounterHandler unavailableCounterHandler;
        private Runnable closeHandler;
        private boolean useConductorAgentInvoker;

        /** The Aeron directory of the driver ({@code AERON_DIR}; default as Aeron's). */
        public Context aeronDirectoryName(final String dir)
        {
            settings.set("aeron_context_set_dir", Settings.Kind.STRING, dir);
            return this;
        }

        /** The Aeron directory set here, or null for the C default. */
        public String aeronDirectoryName()
        {
            return (String)settings.get("aeron_context_set_dir");
        }

        /** How long the driver may be silent before the client gives up on it (default 10 s). */
        public Context driverTimeoutMs(final long timeoutMs)
        {
            settings.set("aeron_context_set_driver_timeout_ms", Settings.Kind.LONG, timeoutMs);
            return this;
        }

        /** How often the client heartbeats to the driver. */
        public Context keepAliveIntervalNs(final long intervalNs)
        {
            settings.set("aeron_context_set_keepalive_interval_ns", Settings.Kind.LONG, intervalNs);
            return this;
        }

        /** How long closed resources stay mapped (default 3 s), so late users find them closed. */
        public Context resourceLingerDurationNs(final long durationNs)
        {
            settings.set("aeron_context_set_resource_linger_duration_ns", Settings.Kind.LONG, durationNs);
            return this;
        }

        /** How long the client conductor thread sleeps when idle. */
        public Context idleSleepDurationNs(final long durationNs)
        {
            settings.set("aeron_context_set_idle_sleep_duration_ns", Settings.Kind.LONG, durationNs);
            return this;
        }

        /** Whether to touch every page of mapped log buffers when mapping them. */
        public Context preTouchMappedMemory(final boolean preTouch)
        {
            settings.set("aeron_context_set_pre_touch_mapped_memory", Settings.Kind.BOOLEAN, preTouch);
            return this;
        }

        /** The client's name, shown by the driver's tools. */
        public Context clientName(final String name)
        {
            settings.set("aeron_context_set_client_name", Settings.Kind.STRING, name);
            return this;
        }

        /** Run the client conductor on the caller's thread through {@link Aeron#doWork()}. */
        public Context useConductorAgentInvoker(final boolean useInvoker)
        {
            useConductorAgentInvoker = useInvoker;
            settings.set("aeron_context_set_use_conductor_agent_invoker", Settings.Kind.BOOLEAN, useInvoker);
            return this;
        }

        /** Receives errors the client reports asynchronously (an {@link AeronException} with the code). */
        public Context errorHandler(final ErrorHandler handler)
        {
            errorHandler = handler;
            return this;
        }

        /** The default available-image handler of subscriptions added without one. */
        public Context availableImageHandler(final AvailableImageHandler handler)
        {
            availableImageHandler = handler;
            return this;
        }

        /** The default unavailable-image handler of subscriptions added without one. */
        public Context unavailableImageHandler(final UnavailableImageHandler handler)
        {
            unavailableImageHandler = handler;
            return this;
        }

        /** Told of counters as they are allocated. */
        public Context availableCounterHandler(final AvailableCounterHandler handler)
        {
            availableCounterHandler = handler;
            return this;
        }

        /** Told of counters as they are freed. */
        public Context unavailableCounterHandler(final UnavailableCounterHandler handler)
        {
            unavailableCounterHandler = handler;
            return this;
        }

        /** Told when the client closes (also on a driver timeout). */
        public Context closeHandler(final Runnable handler)
        {
            closeHandler = handler;
            return this;
        }

        /** Loads libaeronrs from {@code path} (see {@link NativeLibrary#load(Path)}). */
        public Context libraryPath(final Path path)
        {
            NativeLibrary.load(path);
            return this;
        }
    }

    private static final MethodHandle ON_ERROR;
    private static final MethodHandle ON_CLOSE;
    private static final MethodHandle ON_COUNTER;
    private static final MethodHandle ON_IMAGE;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            ON_ERROR = lookup.findVirtual(Aeron.class, "onError",
                MethodType.methodType(void.class, MemorySegment.class, int.class, MemorySegment.class));
            ON_CLOSE = lookup.findVirtual(Aeron.class, "onClose", MethodType.methodType(void.class, MemorySegment.class));
            ON_COUNTER = lookup.findVirtual(Aeron.class, "onCounter", MethodType.methodType(
                void.class, boolean.class, MemorySegment.class, MemorySegment.class, long.class, int.class));
            ON_IMAGE = lookup.findVirtual(Aeron.class, "onImage", MethodType.methodType(
                void.class, boolean.class, MemorySegment.class, MemorySegment.class, MemorySegment.class));
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Context ctx;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment context;
    private final MemorySegment client;
    private final CountersReader countersReader;
    private final MemorySegment availableImageStub;
    private final MemorySegment unavailableImageStub;
    private final Set<Object> resources = Collections.newSetFromMap(new IdentityHashMap<>());
    private final ConcurrentHashMap<Long, Subscription> subscriptionsByToken = new ConcurrentHashMap<>();
    private final AtomicLong nextToken = new AtomicLong();
    private volatile boolean closed;

    private Aeron(final Context ctx)
    {
        this.ctx = ctx;
        final MemorySegment out = Native.pointerOut(arena);
        try
        {
            Errors.check("aeron_context_init", (int)ClientCalls.CONTEXT_INIT.invokeExact(out));
        }
        catch (final Throwable t)
        {
            arena.close();
            throw Native.rethrow(t);
        }
        context = Native.pointer(out);
        MemorySegment started = MemorySegment.NULL;
        try
        {
            ctx.settings.applyTo(context);
            installHandlers();
            Errors.check("aeron_init", (int)ClientCalls.INIT.invokeExact(out, context));
            started = Native.pointer(out);
            Errors.check("aeron_start", (int)ClientCalls.START.invokeExact(started));
        }
        catch (final Throwable t)
        {
            final AeronException e = t instanceof AeronException a ? a : null;
            closeNatively(started);
            if (null != e)
            {
                throw e;
            }
            throw Native.rethrow(t);
        }
        client = started;
        final FunctionDescriptor imageHandler = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS);
        availableImageStub = NativeLibrary.upcall(MethodHandles.insertArguments(ON_IMAGE.bindTo(this), 0, true),
            imageHandler, arena);
        unavailableImageStub = NativeLibrary.upcall(MethodHandles.insertArguments(ON_IMAGE.bindTo(this), 0, false),
            imageHandler, arena);
        try
        {
            countersReader = new CountersReader(this, (MemorySegment)ClientCalls.COUNTERS_READER.invokeExact(client),
                arena);
        }
        catch (final Throwable t)
        {
            closeNatively(client);
            throw Native.rethrow(t);
        }
    }

    private void installHandlers() throws Throwable
    {
        final FunctionDescriptor counterHandler = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT);
        if (null != ctx.errorHandler)
        {
            final MemorySegment stub = NativeLibrary.upcall(ON_ERROR.bindTo(this),
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, ADDRESS), arena);
            Errors.check("aeron_context_set_error_handler",
                (int)ClientCalls.CONTEXT_SET_ERROR_HANDLER.invokeExact(context, stub, MemorySegment.NULL));
        }
        if (null != ctx.closeHandler)
        {
            final MemorySegment stub = NativeLibrary.upcall(ON_CLOSE.bindTo(this), FunctionDescriptor.ofVoid(ADDRESS), arena);
            Errors.check("aeron_context_set_on_close_client",
                (int)ClientCalls.CONTEXT_SET_ON_CLOSE_CLIENT.invokeExact(context, stub, MemorySegment.NULL));
        }
        if (null != ctx.availableCounterHandler)
        {
            final MemorySegment stub = NativeLibrary.upcall(
                MethodHandles.insertArguments(ON_COUNTER.bindTo(this), 0, true), counterHandler, arena);
            Errors.check("aeron_context_set_on_available_counter",
                (int)ClientCalls.CONTEXT_SET_ON_AVAILABLE_COUNTER.invokeExact(context, stub, MemorySegment.NULL));
        }
        if (null != ctx.unavailableCounterHandler)
        {
            final MemorySegment stub = NativeLibrary.upcall(
                MethodHandles.insertArguments(ON_COUNTER.bindTo(this), 0, false), counterHandler, arena);
            Errors.check("aeron_context_set_on_unavailable_counter",
                (int)ClientCalls.CONTEXT_SET_ON_UNAVAILABLE_COUNTER.invokeExact(context, stub, MemorySegment.NULL));
        }
    }

    private void closeNatively(final MemorySegment started)
    {
        try
        {
            if (!MemorySegment.NULL.equals(started))
            {
                final int ignored = (int)ClientCalls.CLOSE.invokeExact(started);
            }
            final int ignored = (int)ClientCalls.CONTEXT_CLOSE.invokeExact(context);
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

    /** Connects to the driver with the default context (environment variables, Aeron's defaults). */
    public static Aeron connect()
    {
        return connect(new Context());
    }

    /**
     * Connects to the driver: maps its CnC file and starts the client conductor.
     *
     * @throws AeronException e.g. with {@link AeronException#CLIENT_ERROR_DRIVER_TIMEOUT} when no
     *                        driver is active in the directory.
     */
    public static Aeron connect(final Context ctx)
    {
        return new Aeron(ctx);
    }

    /**
     * Whether a driver is active in {@code dir}: its CnC file exists and its heartbeat is
     * younger than {@code timeoutMs} ({@code aeron_is_driver_active}).
     */
    public static boolean isDriverActive(final String dir, final long timeoutMs)
    {
        try (Arena local = Arena.ofConfined())
        {
            return (boolean)ClientCalls.IS_DRIVER_ACTIVE.invokeExact(local.allocateFrom(dir), timeoutMs,
                MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The context this client was connected with. */
    public Context context()
    {
        return ctx;
    }

    /** The C client handle. For the library's own use. */
    MemorySegment handle()
    {
        return client;
    }

    /** Whether {@link #close()} was called (or the driver timed the client out). */
    public boolean isClosed()
    {
        if (closed)
        {
            return true;
        }
        try
        {
            return (boolean)ClientCalls.IS_CLOSED.invokeExact(client);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    void checkOpen()
    {
        if (closed)
        {
            throw new ClosedException("Aeron client");
        }
    }

    /** The client's id in the driver. */
    public long clientId()
    {
        checkOpen();
        try
        {
            return (long)ClientCalls.CLIENT_ID.invokeExact(client);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** A correlation id unique across the driver's clients. */
    public long nextCorrelationId()
    {
        checkOpen();
        try
        {
            return (long)ClientCalls.NEXT_CORRELATION_ID.invokeExact(client);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The driver's counters, read through this client. */
    public CountersReader countersReader()
    {
        checkOpen();
        return countersReader;
    }

    /**
     * One duty cycle of the client conductor, when connected with
     * {@link Context#useConductorAgentInvoker(boolean)}: call it regularly.
     *
     * @return the work done.
     */
    public int doWork()
    {
        checkOpen();
        try
        {
            return Errors.check("aeron_main_do_work", (int)ClientCalls.MAIN_DO_WORK.invokeExact(client));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Adds a publication many threads may offer to; waits for the driver. */
    public ConcurrentPublication addPublication(final String channel, final int streamId)
    {
        final MemorySegment handle = await("addPublication(" + channel + ", " + streamId + ")", channel,
            (out, uri) -> (int)ClientCalls.ASYNC_ADD_PUBLICATION.invokeExact(out, client, uri, streamId),
            (out, async) -> (int)ClientCalls.ASYNC_ADD_PUBLICATION_POLL.invokeExact(out, async));
        final ConcurrentPublication publication;
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment constants = local.allocate(io.aeronrs.internal.Layouts.PUBLICATION_CONSTANTS);
            Errors.check("aeron_publication_constants",
                (int)ClientCalls.PUBLICATION_CONSTANTS.invokeExact(handle, constants));
            publication = new ConcurrentPublication(this, handle, constants);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        return register(publication, publication::closeNative);
    }

    /** Adds a publication with its own session that one thread at a time offers to; waits for the driver. */
    public ExclusivePublication addExclusivePublication(final String channel, final int streamId)
    {
        final MemorySegment handle = await("addExclusivePublication(" + channel + ", " + streamId + ")", channel,
            (out, uri) -> (int)ClientCalls.ASYNC_ADD_EXCLUSIVE_PUBLICATION.invokeExact(out, client, uri, streamId),
            (out, async) -> (int)ClientCalls.ASYNC_ADD_EXCLUSIVE_PUBLICATION_POLL.invokeExact(out, async));
        final ExclusivePublication publication;
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment constants = local.allocate(io.aeronrs.internal.Layouts.PUBLICATION_CONSTANTS);
            Errors.check("aeron_exclusive_publication_constants",
                (int)ClientCalls.EXCLUSIVE_PUBLICATION_CONSTANTS.invokeExact(handle, constants));
            publication = new ExclusivePublication(this, handle, constants);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
        return register(publication, publication::closeNative);
    }

    /** Adds a subscription with the context's image handlers; waits for the driver. */
    public Subscription addSubscription(final String channel, final int streamId)
    {
        return addSubscription(channel, streamId, ctx.availableImageHandler, ctx.unavailableImageHandler);
    }

    /**
     * Adds a subscription; waits for the driver. The handlers (null for none) run on the
     * client conductor thread as publishers join and leave.
     */
    public Subscription addSubscription(
        final String channel,
        final int streamId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler)
    {
        final long token = nextToken.incrementAndGet();
        final Subscription subscription =
            new Subscription(this, channel, streamId, availableImageHandler, unavailableImageHandler);
        // Images may arrive before the add completes: the handlers find the subscription by token.
        subscriptionsByToken.put(token, subscription);
        final MemorySegment clientd = MemorySegment.ofAddress(token);
        try
        {
            final MemorySegment handle = await("addSubscription(" + channel + ", " + streamId + ")", channel,
                (out, uri) -> (int)ClientCalls.ASYNC_ADD_SUBSCRIPTION.invokeExact(out, client, uri, streamId,
                    availableImageStub, clientd, unavailableImageStub, clientd),
                (out, async) -> (int)ClientCalls.ASYNC_ADD_SUBSCRIPTION_POLL.invokeExact(out, async));
            subscription.attach(handle, token);
        }
        catch (final RuntimeException e)
        {
            subscriptionsByToken.remove(token);
            throw e;
        }
        return register(subscription, subscription::closeNative);
    }

    /** Adds a counter of {@code typeId} with an empty key and {@code label}; waits for the driver. */
    public Counter addCounter(final int typeId, final String label)
    {
        final byte[] labelBytes = label.getBytes(StandardCharsets.UTF_8);
        return addCounter(typeId, null, 0, 0, labelBytes, 0, labelBytes.length, false, 0);
    }

    /** Adds a counter with the key and label bytes given (at most 112 and 380); waits for the driver. */
    public Counter addCounter(
        final int typeId,
        final DirectBuffer keyBuffer, final int keyOffset, final int keyLength,
        final DirectBuffer labelBuffer, final int labelOffset, final int labelLength)
    {
        final byte[] key = new byte[keyLength];
        if (keyLength > 0)
        {
            keyBuffer.getBytes(keyOffset, key);
        }
        final byte[] label = new byte[labelLength];
        labelBuffer.getBytes(labelOffset, label);
        return addCounter(typeId, key, 0, keyLength, label, 0, labelLength, false, 0);
    }

    /**
     * Finds or adds the static counter of {@code typeId} and {@code registrationId}, which
     * outlives this client; waits for the driver.
     */
    public Counter addStaticCounter(final int typeId, final String label, final long registrationId)
    {
        final byte[] labelBytes = label.getBytes(StandardCharsets.UTF_8);
        return addCounter(typeId, null, 0, 0, labelBytes, 0, labelBytes.length, true, registrationId);
    }

    private Counter addCounter(
        final int typeId, final byte[] key, final int keyOffset, final int keyLength,
        final byte[] label, final int labelOffset, final int labelLength,
        final boolean isStatic, final long registrationId)
    {
        final MemorySegment handle;
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment keySegment = keyLength == 0 ? MemorySegment.NULL :
                local.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE,
                    java.util.Arrays.copyOfRange(key, keyOffset, keyOffset + keyLength));
            final MemorySegment labelSegment = local.allocate(Math.max(1, labelLength));
            MemorySegment.copy(label, labelOffset, labelSegment, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, labelLength);
            handle = await("addCounter(" + typeId + ")", null,
                (out, unused) -> isStatic ?
                    (int)ClientCalls.ASYNC_ADD_STATIC_COUNTER.invokeExact(out, client, typeId, keySegment,
                        (long)keyLength, labelSegment, (long)labelLength, registrationId) :
                    (int)ClientCalls.ASYNC_ADD_COUNTER.invokeExact(out, client, typeId, keySegment,
                        (long)keyLength, labelSegment, (long)labelLength),
                (out, async) -> (int)ClientCalls.ASYNC_ADD_COUNTER_POLL.invokeExact(out, async));
        }
        final Counter counter = new Counter(this, handle, arena, isStatic);
        return register(counter, counter::closeNative);
    }

    /** An add started by an {@code asyncAdd*} call, polled by the matching {@code get*}. */
    private record PendingAdd(MemorySegment async, Poll poll, Subscription subscription, long token)
    {
    }

    private final ConcurrentHashMap<Long, PendingAdd> pendingAdds = new ConcurrentHashMap<>();

    /**
     * Starts adding a publication without waiting ({@code aeron_async_add_publication});
     * {@link #getPublication(long)} with the returned registration id completes it.
     */
    public long asyncAddPublication(final String channel, final int streamId)
    {
        return startAdd("asyncAddPublication(" + channel + ", " + streamId + ")", channel,
            (out, uri) -> (int)ClientCalls.ASYNC_ADD_PUBLICATION.invokeExact(out, client, uri, streamId),
            ClientCalls.ASYNC_ADD_PUBLICATION_REGISTRATION_ID,
            (out, async) -> (int)ClientCalls.ASYNC_ADD_PUBLICATION_POLL.invokeExact(out, async), null, 0);
    }

    /** As {@link #asyncAddPublication}, for an exclusive publication; complete it with {@link #getExclusivePublication}. */
    public long asyncAddExclusivePublication(final String channel, final int streamId)
    {
        return startAdd("asyncAddExclusivePublication(" + channel + ", " + streamId + ")", channel,
            (out, uri) -> (int)ClientCalls.ASYNC_ADD_EXCLUSIVE_PUBLICATION.invokeExact(out, client, uri, streamId),
            ClientCalls.ASYNC_ADD_EXCLUSIVE_PUBLICATION_REGISTRATION_ID,
            (out, async) -> (int)ClientCalls.ASYNC_ADD_EXCLUSIVE_PUBLICATION_POLL.invokeExact(out, async), null, 0);
    }

    /** As {@link #asyncAddPublication}, for a subscription; complete it with {@link #getSubscription}. */
    public long asyncAddSubscription(
        final String channel,
        final int streamId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler)
    {
        final long token = nextToken.incrementAndGet();
        final Subscription subscription =
            new Subscription(this, channel, streamId, availableImageHandler, unavailableImageHandler);
        subscriptionsByToken.put(token, subscription);
        final MemorySegment clientd = MemorySegment.ofAddress(token);
        try
        {
            return startAdd("asyncAddSubscription(" + channel + ", " + streamId + ")", channel,
                (out, uri) -> (int)ClientCalls.ASYNC_ADD_SUBSCRIPTION.invokeExact(out, client, uri, streamId,
                    availableImageStub, clientd, unavailableImageStub, clientd),
                ClientCalls.ASYNC_ADD_SUBSCRIPTION_REGISTRATION_ID,
                (out, async) -> (int)ClientCalls.ASYNC_ADD_SUBSCRIPTION_POLL.invokeExact(out, async), subscription, token);
        }
        catch (final RuntimeException e)
        {
            subscriptionsByToken.remove(token);
            throw e;
        }
    }

    /** As {@link #asyncAddSubscription(String, int, AvailableImageHandler, UnavailableImageHandler)} with the context's handlers. */
    public long asyncAddSubscription(final String channel, final int streamId)
    {
        return asyncAddSubscription(channel, streamId, ctx.availableImageHandler, ctx.unavailableImageHandler);
    }

    private long startAdd(
        final String operation, final String uri, final Start start, final MethodHandle registrationId,
        final Poll poll, final Subscription subscription, final long token)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment asyncOut = Native.pointerOut(local);
            if (start.start(asyncOut, Native.cString(local, uri)) < 0)
            {
                throw Errors.lastRegistrationError(operation);
            }
            final MemorySegment async = Native.pointer(asyncOut);
            final long id = (long)registrationId.invokeExact(async);
            pendingAdds.put(id, new PendingAdd(async, poll, subscription, token));
            return id;
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The C handle of a completed add, null while pending; throws the driver's refusal. */
    private MemorySegment pollAdd(final String operation, final long registrationId)
    {
        checkOpen();
        final PendingAdd pending = pendingAdds.get(registrationId);
        if (null == pending)
        {
            throw new AeronException(AeronException.EINVAL, operation + ": no add pending with registration id " +
                registrationId);
        }
        synchronized (pending)
        {
            if (!pendingAdds.containsKey(registrationId))
            {
                return null;
            }
            try (Arena local = Arena.ofConfined())
            {
                final MemorySegment out = Native.pointerOut(local);
                final int result = pending.poll().poll(out, pending.async());
                if (result == 0)
                {
                    return null;
                }
                // 1 or -1: the C side freed the async handle.
                pendingAdds.remove(registrationId);
                if (result < 0)
                {
                    if (null != pending.subscription())
                    {
                        subscriptionsByToken.remove(pending.token());
                    }
                    throw Errors.lastRegistrationError(operation);
                }
                return Native.pointer(out);
            }
            catch (final Throwable t)
            {
                throw Native.rethrow(t);
            }
        }
    }

    /** The publication of {@link #asyncAddPublication}, or null while the driver has not answered. */
    public ConcurrentPublication getPublication(final long registrationId)
    {
        final MemorySegment handle = pollAdd("getPublication", registrationId);
        if (null == handle)
        {
            return null;
        }
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment constants = local.allocate(io.aeronrs.internal.Layouts.PUBLICATION_CONSTANTS);
            Errors.check("aeron_publication_constants",
                (int)ClientCalls.PUBLICATION_CONSTANTS.invokeExact(handle, constants));
            final ConcurrentPublication publication = new ConcurrentPublication(this, handle, constants);
            return register(publication, publication::closeNative);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The publication of {@link #asyncAddExclusivePublication}, or null while pending. */
    public ExclusivePublication getExclusivePublication(final long registrationId)
    {
        final MemorySegment handle = pollAdd("getExclusivePublication", registrationId);
        if (null == handle)
        {
            return null;
        }
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment constants = local.allocate(io.aeronrs.internal.Layouts.PUBLICATION_CONSTANTS);
            Errors.check("aeron_exclusive_publication_constants",
                (int)ClientCalls.EXCLUSIVE_PUBLICATION_CONSTANTS.invokeExact(handle, constants));
            final ExclusivePublication publication = new ExclusivePublication(this, handle, constants);
            return register(publication, publication::closeNative);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** The subscription of {@link #asyncAddSubscription}, or null while pending. */
    public Subscription getSubscription(final long registrationId)
    {
        final PendingAdd pending = pendingAdds.get(registrationId);
        final MemorySegment handle = pollAdd("getSubscription", registrationId);
        if (null == handle)
        {
            return null;
        }
        pending.subscription().attach(handle, pending.token());
        return register(pending.subscription(), pending.subscription()::closeNative);
    }

    @FunctionalInterface
    interface Start
    {
        int start(MemorySegment asyncOut, MemorySegment uri) throws Throwable;
    }

    @FunctionalInterface
    interface Poll
    {
        int poll(MemorySegment resultOut, MemorySegment async) throws Throwable;
    }

    /** Starts an async add and polls it to completion; the C client times it out. */
    private MemorySegment await(final String operation, final String uri, final Start start, final Poll poll)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment asyncOut = Native.pointerOut(local);
            final MemorySegment uriSegment = Native.cString(local, uri);
            if (start.start(asyncOut, uriSegment) < 0)
            {
                throw Errors.lastRegistrationError(operation);
            }
            final MemorySegment async = Native.pointer(asyncOut);
            final MemorySegment resultOut = Native.pointerOut(local);
            while (true)
            {
                final int result = poll.poll(resultOut, async);
                if (result > 0)
                {
                    return Native.pointer(resultOut);
                }
                if (result < 0)
                {
                    throw Errors.lastRegistrationError(operation);
                }
                if (ctx.useConductorAgentInvoker)
                {
                    doWork();
                }
                Native.idle();
                checkOpen();
            }
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Runs a destination command ({@code start} fills the async handle) and waits for the driver. */
    void awaitDestination(final String operation, final ToIntFunction<MemorySegment> start)
    {
        checkOpen();
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment asyncOut = Native.pointerOut(local);
            if (start.applyAsInt(asyncOut) < 0)
            {
                throw Errors.lastRegistrationError(operation);
            }
            final MemorySegment async = Native.pointer(asyncOut);
            while (true)
            {
                final int result = (int)ClientCalls.ASYNC_DESTINATION_POLL.invokeExact(async);
                if (result > 0)
                {
                    return;
                }
                if (result < 0)
                {
                    throw Errors.lastRegistrationError(operation);
                }
                if (ctx.useConductorAgentInvoker)
                {
                    doWork();
                }
                Native.idle();
            }
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    private <T> T register(final T resource, final Runnable closeNative)
    {
        synchronized (resources)
        {
            if (!closed)
            {
                resources.add(resource);
                return resource;
            }
        }
        closeNative.run();
        throw new ClosedException("Aeron client");
    }

    /** Removes {@code resource} from the client: true the first time, when the caller must close it natively. */
    boolean release(final Object resource)
    {
        synchronized (resources)
        {
            return resources.remove(resource);
        }
    }

    void forgetSubscription(final long token)
    {
        subscriptionsByToken.remove(token);
    }

    /** Closes every publication, subscription and counter of this client, then the client. Idempotent. */
    @Override
    public void close()
    {
        final List<Object> open;
        synchronized (resources)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            open = new ArrayList<>(resources);
            resources.clear();
        }
        for (final Object resource : open)
        {
            switch (resource)
            {
                case Publication p -> p.closeNative();
                case Subscription s -> s.closeNative();
                case Counter c -> c.closeNative();
                default -> throw new IllegalStateException("unknown resource " + resource);
            }
        }
        closeNatively(client);
        subscriptionsByToken.clear();
        // The C client freed the handles of adds still pending.
        pendingAdds.clear();
    }

    // Upcalls, on the client conductor thread. An exception must not leave an upcall (the
    // JVM would end), so each hands it to the error handler or prints it.

    private void onError(final MemorySegment clientd, final int errcode, final MemorySegment message)
    {
        try
        {
            ctx.errorHandler.onError(new AeronException(errcode, Native.string(message)));
        }
        catch (final Throwable t)
        {
            t.printStackTrace();
        }
    }

    private void onClose(final MemorySegment clientd)
    {
        try
        {
            ctx.closeHandler.run();
        }
        catch (final Throwable t)
        {
            handleUpcallError(t);
        }
    }

    private void onCounter(
        final boolean available, final MemorySegment clientd, final MemorySegment reader,
        final long registrationId, final int counterId)
    {
        try
        {
            if (null == countersReader)
            {
                return;
            }
            if (available)
            {
                ctx.availableCounterHandler.onAvailableCounter(countersReader, registrationId, counterId);
            }
            else
            {
                ctx.unavailableCounterHandler.onUnavailableCounter(countersReader, registrationId, counterId);
            }
        }
        catch (final Throwable t)
        {
            handleUpcallError(t);
        }
    }

    private void onImage(
        final boolean available, final MemorySegment clientd, final MemorySegment subscription, final MemorySegment image)
    {
        try
        {
            final Subscription target = subscriptionsByToken.get(clientd.address());
            if (null != target)
            {
                if (available)
                {
                    target.onAvailableImage(subscription, image);
                }
                else
                {
                    target.onUnavailableImage(image);
                }
            }
        }
        catch (final Throwable t)
        {
            handleUpcallError(t);
        }
    }

    void handleUpcallError(final Throwable t)
    {
        try
        {
            if (null != ctx.errorHandler)
            {
                ctx.errorHandler.onError(t);
                return;
            }
        }
        catch (final Throwable ignored)
        {
            // fall through to printing both
        }
        t.printStackTrace();
    }
}
