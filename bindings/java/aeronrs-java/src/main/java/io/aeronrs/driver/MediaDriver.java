package io.aeronrs.driver;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;
import io.aeronrs.internal.Settings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * aeronrs's media driver embedded in this process ({@code aeronmd.h}), as
 * {@code io.aeron.driver.MediaDriver}: {@link #launch(Context)} it, connect clients of any
 * process to its directory, {@link #close()} it. Byte compatible with Aeron 1.48: Java
 * Aeron and C clients can use it too.
 */
public final class MediaDriver implements AutoCloseable
{
    private static final MethodHandle CONTEXT_INIT = NativeLibrary.downcall(
        "aeron_driver_context_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CONTEXT_CLOSE = NativeLibrary.downcall(
        "aeron_driver_context_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CONTEXT_GET_DIR = NativeLibrary.downcall(
        "aeron_driver_context_get_dir", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle INIT = NativeLibrary.downcall(
        "aeron_driver_init", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle START = NativeLibrary.downcall(
        "aeron_driver_start", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BOOLEAN));
    private static final MethodHandle DO_WORK = NativeLibrary.downcall(
        "aeron_driver_main_do_work", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CLOSE = NativeLibrary.downcall(
        "aeron_driver_close", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /**
     * The driver's settings, each applied through its {@code aeron_driver_context_set_*}
     * setter at launch (a value the driver refuses fails the launch); what is not set keeps
     * the default (the {@code AERON_*} environment variables, else Aeron's).
     */
    public static final class Context
    {
        private final Settings settings = new Settings();
        private ThreadingMode threadingMode;

        private Context set(final String name, final Settings.Kind kind, final Object value)
        {
            settings.set("aeron_driver_context_set_" + name, kind, value);
            return this;
        }

        /** The Aeron directory ({@code AERON_DIR}). */
        public Context aeronDirectoryName(final String dir)
        {
            return set("dir", Settings.Kind.STRING, dir);
        }

        /** The Aeron directory set here, or null for the default. */
        public String aeronDirectoryName()
        {
            return (String)settings.get("aeron_driver_context_set_dir");
        }

        /** How agents map onto threads. */
        public Context threadingMode(final ThreadingMode mode)
        {
            threadingMode = mode;
            return set("threading_mode", Settings.Kind.INT, mode.value);
        }

        /** Delete the directory when starting (when no driver is active in it). */
        public Context dirDeleteOnStart(final boolean delete)
        {
            return set("dir_delete_on_start", Settings.Kind.BOOLEAN, delete);
        }

        /** Delete the directory on close. */
        public Context dirDeleteOnShutdown(final boolean delete)
        {
            return set("dir_delete_on_shutdown", Settings.Kind.BOOLEAN, delete);
        }

        /** Warn when the directory exists at start. */
        public Context warnIfDirectoryExists(final boolean warn)
        {
            return set("dir_warn_if_exists", Settings.Kind.BOOLEAN, warn);
        }

        /** Create log buffers as sparse files. */
        public Context termBufferSparseFile(final boolean sparse)
        {
            return set("term_buffer_sparse_file", Settings.Kind.BOOLEAN, sparse);
        }

        /** Term length of network publications. */
        public Context publicationTermBufferLength(final int length)
        {
            return set("term_buffer_length", Settings.Kind.LONG, (long)length);
        }

        /** Term length of IPC publications. */
        public Context ipcTermBufferLength(final int length)
        {
            return set("ipc_term_buffer_length", Settings.Kind.LONG, (long)length);
        }

        /** MTU of network publications. */
        public Context mtuLength(final int length)
        {
            return set("mtu_length", Settings.Kind.LONG, (long)length);
        }

        /** MTU of IPC publications. */
        public Context ipcMtuLength(final int length)
        {
            return set("ipc_mtu_length", Settings.Kind.LONG, (long)length);
        }

        /** Flow control window of network publications. */
        public Context publicationTermWindowLength(final int length)
        {
            return set("publication_term_window_length", Settings.Kind.LONG, (long)length);
        }

        /** Flow control window of IPC publications. */
        public Context ipcPublicationTermWindowLength(final int length)
        {
            return set("ipc_publication_term_window_length", Settings.Kind.LONG, (long)length);
        }

        /** Initial receiver window. */
        public Context initialWindowLength(final int length)
        {
            return set("rcv_initial_window_length", Settings.Kind.LONG, (long)length);
        }

        /** SO_RCVBUF of UDP sockets (0: the OS default). */
        public Context socketRcvbufLength(final int length)
        {
            return set("socket_so_rcvbuf", Settings.Kind.LONG, (long)length);
        }

        /** SO_SNDBUF of UDP sockets (0: the OS default). */
        public Context socketSndbufLength(final int length)
        {
            return set("socket_so_sndbuf", Settings.Kind.LONG, (long)length);
        }

        /** How long a silent client stays alive. */
        public Context clientLivenessTimeoutNs(final long timeoutNs)
        {
            return set("client_liveness_timeout_ns", Settings.Kind.LONG, timeoutNs);
        }

        /** How long a silent image stays alive. */
        public Context imageLivenessTimeoutNs(final long timeoutNs)
        {
            return set("image_liveness_timeout_ns", Settings.Kind.LONG, timeoutNs);
        }

        /** How long a closed publication lingers. */
        public Context publicationLingerTimeoutNs(final long timeoutNs)
        {
            return set("publication_linger_timeout_ns", Settings.Kind.LONG, timeoutNs);
        }

        /** After how long a claim never committed is padded over. */
        public Context publicationUnblockTimeoutNs(final long timeoutNs)
        {
            return set("publication_unblock_timeout_ns", Settings.Kind.LONG, timeoutNs);
        }

        /** How long a publication without status messages stays connected. */
        public Context publicationConnectionTimeoutNs(final long timeoutNs)
        {
            return set("publication_connection_timeout_ns", Settings.Kind.LONG, timeoutNs);
        }

        /** How long clients may go without a driver heartbeat. */
        public Context driverTimeoutMs(final long timeoutMs)
        {
            return set("driver_timeout_ms", Settings.Kind.LONG, timeoutMs);
        }

        /** The conductor's timer interval. */
        public Context timerIntervalNs(final long intervalNs)
        {
            return set("timer_interval_ns", Settings.Kind.LONG, intervalNs);
        }

        /** Whether spies count as connected subscribers. */
        public Context spiesSimulateConnection(final boolean simulate)
        {
            return set("spies_simulate_connection", Settings.Kind.BOOLEAN, simulate);
        }

        /** Whether streams are reliable (NAKs and retransmits). */
        public Context reliableStream(final boolean reliable)
        {
            return set("reliable_stream", Settings.Kind.BOOLEAN, reliable);
        }

        /** Whether subscriptions are tethered by default. */
        public Context tetherSubscriptions(final boolean tether)
        {
            return set("tether_subscriptions", Settings.Kind.BOOLEAN, tether);
        }

        /** Length of the counters values buffer. */
        public Context countersValuesBufferLength(final int length)
        {
            return set("counters_buffer_length", Settings.Kind.LONG, (long)length);
        }

        /** Length of the error log. */
        public Context errorBufferLength(final int length)
        {
            return set("error_buffer_length", Settings.Kind.LONG, (long)length);
        }

        /** Length of the to-driver command buffer. */
        public Context conductorBufferLength(final int length)
        {
            return set("to_conductor_buffer_length", Settings.Kind.LONG, (long)length);
        }

        /** Length of the to-clients broadcast buffer. */
        public Context toClientsBufferLength(final int length)
        {
            return set("to_clients_buffer_length", Settings.Kind.LONG, (long)length);
        }

        /** Length of the loss report buffer. */
        public Context lossReportBufferLength(final int length)
        {
            return set("loss_report_buffer_length", Settings.Kind.LONG, (long)length);
        }

        /** Whether to check free storage before creating log buffers. */
        public Context performStorageChecks(final boolean check)
        {
            return set("perform_storage_checks", Settings.Kind.BOOLEAN, check);
        }

        /** Print the configuration at start. */
        public Context printConfigurationOnStart(final boolean print)
        {
            return set("print_configuration", Settings.Kind.BOOLEAN, print);
        }

        /** Idle strategy of the conductor by name: {@code sleep-ns}, {@code yield}, {@code backoff}, {@code noop}, {@code spin}. */
        public Context conductorIdleStrategy(final String name)
        {
            return set("conductor_idle_strategy", Settings.Kind.STRING, name);
        }

        /** Idle strategy of the sender by name. */
        public Context senderIdleStrategy(final String name)
        {
            return set("sender_idle_strategy", Settings.Kind.STRING, name);
        }

        /** Idle strategy of the receiver by name. */
        public Context receiverIdleStrategy(final String name)
        {
            return set("receiver_idle_strategy", Settings.Kind.STRING, name);
        }

        /** Idle strategy of the single thread (SHARED, INVOKER) by name. */
        public Context sharedIdleStrategy(final String name)
        {
            return set("shared_idle_strategy", Settings.Kind.STRING, name);
        }

        /** Idle strategy of the sender and receiver thread (SHARED_NETWORK) by name. */
        public Context sharedNetworkIdleStrategy(final String name)
        {
            return set("sharednetwork_idle_strategy", Settings.Kind.STRING, name);
        }

        /**
         * Init args of the conductor's idle strategy: a duration for {@code sleep-ns} (e.g. {@code 100us}),
         * {@code max_spins-max_yields-min_park-max_park} for {@code backoff}.
         */
        public Context conductorIdleStrategyInitArgs(final String args)
        {
            return set("conductor_idle_strategy_init_args", Settings.Kind.STRING, args);
        }

        /**
         * Init args of the sender's idle strategy: a duration for {@code sleep-ns} (e.g. {@code 100us}),
         * {@code max_spins-max_yields-min_park-max_park} for {@code backoff}.
         */
        public Context senderIdleStrategyInitArgs(final String args)
        {
            return set("sender_idle_strategy_init_args", Settings.Kind.STRING, args);
        }

        /**
         * Init args of the receiver's idle strategy: a duration for {@code sleep-ns} (e.g. {@code 100us}),
         * {@code max_spins-max_yields-min_park-max_park} for {@code backoff}.
         */
        public Context receiverIdleStrategyInitArgs(final String args)
        {
            return set("receiver_idle_strategy_init_args", Settings.Kind.STRING, args);
        }

        /**
         * Init args of the single thread's idle strategy: a duration for {@code sleep-ns} (e.g. {@code 100us}),
         * {@code max_spins-max_yields-min_park-max_park} for {@code backoff}.
         */
        public Context sharedIdleStrategyInitArgs(final String args)
        {
            return set("shared_idle_strategy_init_args", Settings.Kind.STRING, args);
        }

        /**
         * Init args of the sender and receiver thread's idle strategy: a duration for {@code sleep-ns} (e.g. {@code 100us}),
         * {@code max_spins-max_yields-min_park-max_park} for {@code backoff}.
         */
        public Context sharedNetworkIdleStrategyInitArgs(final String args)
        {
            return set("sharednetwork_idle_strategy_init_args", Settings.Kind.STRING, args);
        }

        /** Loads libaeronrs from {@code path} (see {@link NativeLibrary#load(Path)}). */
        public Context libraryPath(final Path path)
        {
            NativeLibrary.load(path);
            return this;
        }
    }

    private final Context ctx;
    private final MemorySegment context;
    private final MemorySegment driver;
    private final String aeronDirectoryName;
    private final boolean invoker;
    private volatile boolean closed;

    private MediaDriver(final Context ctx)
    {
        this.ctx = ctx;
        invoker = ctx.threadingMode == ThreadingMode.INVOKER;
        try (Arena local = Arena.ofConfined())
        {
            final MemorySegment out = Native.pointerOut(local);
            Errors.check("aeron_driver_context_init", (int)CONTEXT_INIT.invokeExact(out));
            context = Native.pointer(out);
            MemorySegment made = MemorySegment.NULL;
            try
            {
                ctx.settings.applyTo(context);
                aeronDirectoryName = Native.string((MemorySegment)CONTEXT_GET_DIR.invokeExact(context));
                Errors.check("aeron_driver_init", (int)INIT.invokeExact(out, context));
                made = Native.pointer(out);
                Errors.check("aeron_driver_start", (int)START.invokeExact(made, invoker));
            }
            catch (final Throwable t)
            {
                if (!MemorySegment.NULL.equals(made))
                {
                    final int ignored = (int)CLOSE.invokeExact(made);
                }
                final int ignored = (int)CONTEXT_CLOSE.invokeExact(context);
                throw t;
            }
            driver = made;
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Launches a driver with the default context (environment variables, Aeron's defaults). */
    public static MediaDriver launch()
    {
        return launch(new Context());
    }

    /**
     * Launches a driver: creates its directory and CnC file and starts its agents.
     *
     * @throws AeronException if a setting is refused, or another driver is active in the directory.
     */
    public static MediaDriver launch(final Context ctx)
    {
        return new MediaDriver(ctx);
    }

    /** The context the driver was launched with. */
    public Context context()
    {
        return ctx;
    }

    /** The driver's Aeron directory: what clients connect to. */
    public String aeronDirectoryName()
    {
        return aeronDirectoryName;
    }

    /**
     * One duty cycle of an {@link ThreadingMode#INVOKER} driver, on the calling thread.
     *
     * @return the work done (0: idle).
     */
    public int doWork()
    {
        if (closed)
        {
            throw new ClosedException("media driver");
        }
        if (!invoker)
        {
            throw new AeronException(AeronException.EPERM, "doWork needs ThreadingMode.INVOKER");
        }
        try
        {
            return Errors.check("aeron_driver_main_do_work", (int)DO_WORK.invokeExact(driver));
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /** Whether the driver is closed. */
    public boolean isClosed()
    {
        return closed;
    }

    /** Stops the driver (its clients time out or see it shut down), and frees it. Idempotent. */
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
            final int result = (int)CLOSE.invokeExact(driver);
            final int ignored = (int)CONTEXT_CLOSE.invokeExact(context);
            Errors.check("aeron_driver_close", result);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }
}
