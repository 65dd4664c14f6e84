package aeronrs.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BiConsumer;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The publish/subscribe essentials of aeronrs's C client API (aeronc.h) for Java through the
 * Foreign Function and Memory API: libaeronrs.so is loaded from the path given by the
 * {@code aeronrs.lib} system property. A client, publications, and subscriptions delivering
 * reassembled messages to a Java handler.
 */
public final class AeronFfm
{
    public static final long NOT_CONNECTED = -1;
    public static final long BACK_PRESSURED = -2;
    public static final long ADMIN_ACTION = -3;
    public static final long CLOSED = -4;
    public static final long MAX_POSITION_EXCEEDED = -5;
    public static final long PUBLICATION_ERROR = -6;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBRARY = SymbolLookup.libraryLookup(
        Path.of(System.getProperty("aeronrs.lib", "target/release/libaeronrs.so")), Arena.global());

    private static MethodHandle function(final String name, final FunctionDescriptor descriptor)
    {
        return LINKER.downcallHandle(
            LIBRARY.find(name).orElseThrow(() -> new IllegalStateException("no symbol " + name)), descriptor);
    }

    private static final MethodHandle ERRCODE = function("aeron_errcode", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle ERRMSG = function("aeron_errmsg", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle CONTEXT_INIT = function("aeron_context_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CONTEXT_SET_DIR =
        function("aeron_context_set_dir", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle CONTEXT_SET_DRIVER_TIMEOUT_MS =
        function("aeron_context_set_driver_timeout_ms", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CONTEXT_SET_IDLE_SLEEP =
        function("aeron_context_set_idle_sleep_duration_ns", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CONTEXT_CLOSE = function("aeron_context_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle INIT = function("aeron_init", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle START = function("aeron_start", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CLOSE = function("aeron_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CLIENT_ID = function("aeron_client_id", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle ADD_PUBLICATION = function(
        "aeron_async_add_publication", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle ADD_PUBLICATION_POLL =
        function("aeron_async_add_publication_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle OFFER = function(
        "aeron_publication_offer", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle PUBLICATION_IS_CONNECTED =
        function("aeron_publication_is_connected", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
    private static final MethodHandle PUBLICATION_SESSION_ID =
        function("aeron_publication_session_id", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle PUBLICATION_CLOSE =
        function("aeron_publication_close", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle ADD_SUBSCRIPTION = function("aeron_async_add_subscription", FunctionDescriptor.of(
        JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle ADD_SUBSCRIPTION_POLL =
        function("aeron_async_add_subscription_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle SUBSCRIPTION_POLL = function(
        "aeron_subscription_poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle SUBSCRIPTION_IMAGE_COUNT =
        function("aeron_subscription_image_count", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SUBSCRIPTION_CLOSE =
        function("aeron_subscription_close", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle ASSEMBLER_CREATE = function(
        "aeron_fragment_assembler_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle ASSEMBLER_DELETE =
        function("aeron_fragment_assembler_delete", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle HEADER_POSITION =
        function("aeron_header_position", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MemorySegment ASSEMBLER_HANDLER =
        LIBRARY.find("aeron_fragment_assembler_handler").orElseThrow();

    /** An aeronrs call failed: aeron_errcode() and aeron_errmsg() of the calling thread. */
    public static final class AeronException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        public final int code;

        AeronException(final String op, final int code, final String message)
        {
            super(op + ": (" + code + ") " + message);
            this.code = code;
        }
    }

    private AeronFfm()
    {
    }

    /** The calling thread's last error; FFM downcalls run on the calling thread. */
    static AeronException lastError(final String op)
    {
        try
        {
            final int code = (int)ERRCODE.invokeExact();
            final MemorySegment message = ((MemorySegment)ERRMSG.invokeExact()).reinterpret(8192);
            return new AeronException(op, code, message.getString(0));
        }
        catch (final Throwable t)
        {
            throw new IllegalStateException(t);
        }
    }

    static int check(final String op, final int result)
    {
        if (result < 0)
        {
            throw lastError(op);
        }
        return result;
    }

    @FunctionalInterface
    interface IntCall
    {
        int call() throws Throwable;
    }

    static int call(final String op, final IntCall call)
    {
        try
        {
            return check(op, call.call());
        }
        catch (final AeronException e)
        {
            throw e;
        }
        catch (final Throwable t)
        {
            throw new IllegalStateException(op, t);
        }
    }

    /** Polls an async add until it completes (1), at most {@code timeout}. */
    static void await(final String op, final Duration timeout, final IntCall poll) throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (call(op, poll) == 0)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AeronException(op, -1, "timed out");
            }
            Thread.sleep(1);
        }
    }

    /** A connected client. */
    public static final class Client implements AutoCloseable
    {
        private final Arena arena = Arena.ofShared();
        private final MemorySegment context;
        private final MemorySegment client;

        public Client(final String aeronDir, final Duration driverTimeout)
        {
            final MemorySegment out = arena.allocate(ADDRESS);
            call("aeron_context_init", () -> (int)CONTEXT_INIT.invokeExact(out));
            context = out.get(ADDRESS, 0);
            final MemorySegment dir = arena.allocateFrom(aeronDir);
            call("aeron_context_set_dir", () -> (int)CONTEXT_SET_DIR.invokeExact(context, dir));
            call("aeron_context_set_driver_timeout_ms",
                () -> (int)CONTEXT_SET_DRIVER_TIMEOUT_MS.invokeExact(context, driverTimeout.toMillis()));
            call("aeron_context_set_idle_sleep_duration_ns",
                () -> (int)CONTEXT_SET_IDLE_SLEEP.invokeExact(context, 1_000_000L));
            try
            {
                call("aeron_init", () -> (int)INIT.invokeExact(out, context));
            }
            catch (final AeronException e)
            {
                call("aeron_context_close", () -> (int)CONTEXT_CLOSE.invokeExact(context));
                arena.close();
                throw e;
            }
            client = out.get(ADDRESS, 0);
            call("aeron_start", () -> (int)START.invokeExact(client));
        }

        public long clientId()
        {
            try
            {
                return (long)CLIENT_ID.invokeExact(client);
            }
            catch (final Throwable t)
            {
                throw new IllegalStateException(t);
            }
        }

        public Publication addPublication(final String channel, final int streamId) throws InterruptedException
        {
            final MemorySegment asyncOut = arena.allocate(ADDRESS);
            final MemorySegment uri = arena.allocateFrom(channel);
            call("aeron_async_add_publication",
                () -> (int)ADD_PUBLICATION.invokeExact(asyncOut, client, uri, streamId));
            final MemorySegment async = asyncOut.get(ADDRESS, 0);
            final MemorySegment out = arena.allocate(ADDRESS);
            await("aeron_async_add_publication_poll", Duration.ofSeconds(20),
                () -> (int)ADD_PUBLICATION_POLL.invokeExact(out, async));
            return new Publication(out.get(ADDRESS, 0));
        }

        public Subscription addSubscription(final String channel, final int streamId) throws InterruptedException
        {
            final MemorySegment asyncOut = arena.allocate(ADDRESS);
            final MemorySegment uri = arena.allocateFrom(channel);
            final MemorySegment none = MemorySegment.NULL;
            call("aeron_async_add_subscription", () -> (int)ADD_SUBSCRIPTION.invokeExact(
                asyncOut, client, uri, streamId, none, none, none, none));
            final MemorySegment async = asyncOut.get(ADDRESS, 0);
            final MemorySegment out = arena.allocate(ADDRESS);
            await("aeron_async_add_subscription_poll", Duration.ofSeconds(20),
                () -> (int)ADD_SUBSCRIPTION_POLL.invokeExact(out, async));
            return new Subscription(out.get(ADDRESS, 0));
        }

        @Override
        public void close()
        {
            call("aeron_close", () -> (int)CLOSE.invokeExact(client));
            call("aeron_context_close", () -> (int)CONTEXT_CLOSE.invokeExact(context));
            arena.close();
        }
    }

    /** A concurrent publication; usable from any thread. */
    public static final class Publication implements AutoCloseable
    {
        private final MemorySegment publication;
        private final Arena arena = Arena.ofShared();
        private MemorySegment buffer = MemorySegment.NULL;

        Publication(final MemorySegment publication)
        {
            this.publication = publication;
        }

        /**
         * Offers {@code message}: the new position, or a negative result (retry on
         * NOT_CONNECTED, BACK_PRESSURED, ADMIN_ACTION); throws when the call was wrong.
         */
        public synchronized long offer(final byte[] message)
        {
            if (buffer.byteSize() < message.length)
            {
                buffer = arena.allocate(Math.max(64, message.length));
            }
            MemorySegment.copy(message, 0, buffer, ValueLayout.JAVA_BYTE, 0, message.length);
            try
            {
                final long result = (long)OFFER.invokeExact(
                    publication, buffer, (long)message.length, MemorySegment.NULL, MemorySegment.NULL);
                if (result == PUBLICATION_ERROR)
                {
                    throw lastError("aeron_publication_offer");
                }
                return result;
            }
            catch (final AeronException e)
            {
                throw e;
            }
            catch (final Throwable t)
            {
                throw new IllegalStateException(t);
            }
        }

        public boolean isConnected()
        {
            try
            {
                return (boolean)PUBLICATION_IS_CONNECTED.invokeExact(publication);
            }
            catch (final Throwable t)
            {
                throw new IllegalStateException(t);
            }
        }

        public int sessionId()
        {
            return call("aeron_publication_session_id", () -> (int)PUBLICATION_SESSION_ID.invokeExact(publication));
        }

        @Override
        public void close()
        {
            call("aeron_publication_close",
                () -> (int)PUBLICATION_CLOSE.invokeExact(publication, MemorySegment.NULL, MemorySegment.NULL));
            arena.close();
        }
    }

    /** A subscription delivering whole messages; polled by one thread at a time. */
    public static final class Subscription implements AutoCloseable
    {
        private static final MethodHandle ON_MESSAGE;

        static
        {
            try
            {
                ON_MESSAGE = MethodHandles.lookup().findVirtual(Subscription.class, "onMessage",
                    MethodType.methodType(void.class, MemorySegment.class, MemorySegment.class, long.class,
                        MemorySegment.class));
            }
            catch (final ReflectiveOperationException e)
            {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Arena arena = Arena.ofShared();
        private final MemorySegment subscription;
        private final MemorySegment assembler;
        private BiConsumer<byte[], Long> handler;
        private RuntimeException failure;

        Subscription(final MemorySegment subscription)
        {
            this.subscription = subscription;
            final MemorySegment upcall = LINKER.upcallStub(ON_MESSAGE.bindTo(this),
                FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG, ADDRESS), arena);
            final MemorySegment out = arena.allocate(ADDRESS);
            call("aeron_fragment_assembler_create",
                () -> (int)ASSEMBLER_CREATE.invokeExact(out, upcall, MemorySegment.NULL));
            assembler = out.get(ADDRESS, 0);
        }

        private void onMessage(
            final MemorySegment clientd, final MemorySegment buffer, final long length, final MemorySegment header)
        {
            // An exception must not leave an upcall (the JVM would end): keep it for poll.
            if (null != failure)
            {
                return;
            }
            try
            {
                final byte[] message = buffer.reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
                final long position = (long)HEADER_POSITION.invokeExact(header);
                handler.accept(message, position);
            }
            catch (final RuntimeException e)
            {
                failure = e;
            }
            catch (final Throwable t)
            {
                failure = new IllegalStateException(t);
            }
        }

        /** Hands up to {@code fragmentLimit} fragments' messages (bytes, position after) to {@code handler}. */
        public int poll(final BiConsumer<byte[], Long> handler, final int fragmentLimit)
        {
            this.handler = handler;
            try
            {
                final int fragments = call("aeron_subscription_poll", () -> (int)SUBSCRIPTION_POLL.invokeExact(
                    subscription, ASSEMBLER_HANDLER, assembler, (long)fragmentLimit));
                if (null != failure)
                {
                    final RuntimeException e = failure;
                    failure = null;
                    throw e;
                }
                return fragments;
            }
            finally
            {
                this.handler = null;
            }
        }

        public int imageCount()
        {
            return call("aeron_subscription_image_count",
                () -> (int)SUBSCRIPTION_IMAGE_COUNT.invokeExact(subscription));
        }

        @Override
        public void close()
        {
            call("aeron_subscription_close",
                () -> (int)SUBSCRIPTION_CLOSE.invokeExact(subscription, MemorySegment.NULL, MemorySegment.NULL));
            call("aeron_fragment_assembler_delete", () -> (int)ASSEMBLER_DELETE.invokeExact(assembler));
            arena.close();
        }
    }
}
