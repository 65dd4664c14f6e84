package io.aeronrs.bench;

import io.aeronrs.Aeron;
import io.aeronrs.ConcurrentPublication;
import io.aeronrs.Subscription;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * aeronrs-java against Java Aeron's client (io.aeron:aeron-client), on the same embedded
 * aeronrs driver, over IPC:
 * <ul>
 *     <li>{@code *Throughput}: 32-byte messages, offered and polled by one thread in bursts
 *     of {@value #BURST} (ops/µs = messages per µs through publication, log and
 *     subscription).</li>
 *     <li>{@code *RoundTrip}: a 32-byte ping offered on one stream, echoed by a pong thread of
 *     the same client kind on another stream, polled back (µs per round trip, sampled: mean
 *     and percentiles; on a machine with few cores the mean is the scheduler's tail).</li>
 *     <li>{@code *EmptyPoll}: a poll that finds nothing, what a spinning subscriber mostly does (ns).</li>
 * </ul>
 * Same channel, term length, message size, fragment limit and off-heap buffers for both.
 */
@Fork(value = 1, jvmArgs = {
    "--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow" })
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class IpcBenchmark
{
    static final int BURST = 64;
    static final int MESSAGE_LENGTH = 32;
    static final int FRAGMENT_LIMIT = 64;
    static final String CHANNEL = "aeron:ipc?term-length=4m";
    static final int STREAM = 1001;
    static final int PING_STREAM = 1002;
    static final int PONG_STREAM = 1003;

    /** aeronrs-java publication and subscription on one stream. */
    @State(Scope.Thread)
    public static class AeronrsStream
    {
        BenchDriver driver;
        Aeron aeron;
        ConcurrentPublication publication;
        Subscription subscription;
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(MESSAGE_LENGTH, 64));
        int received;
        final io.aeronrs.logbuffer.FragmentHandler handler = (b, offset, length, header) -> received++;

        @Setup(Level.Trial)
        public void setUp()
        {
            driver = new BenchDriver();
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            subscription = aeron.addSubscription(CHANNEL, STREAM);
            publication = aeron.addPublication(CHANNEL, STREAM);
            while (!publication.isConnected())
            {
                Thread.onSpinWait();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            aeron.close();
            driver.close();
        }
    }

    /** Java Aeron publication and subscription on one stream, through the aeronrs driver. */
    @State(Scope.Thread)
    public static class JavaStream
    {
        BenchDriver driver;
        io.aeron.Aeron aeron;
        io.aeron.Publication publication;
        io.aeron.Subscription subscription;
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(MESSAGE_LENGTH, 64));
        int received;
        final io.aeron.logbuffer.FragmentHandler handler = (b, offset, length, header) -> received++;

        @Setup(Level.Trial)
        public void setUp()
        {
            driver = new BenchDriver();
            aeron = io.aeron.Aeron.connect(new io.aeron.Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            subscription = aeron.addSubscription(CHANNEL, STREAM);
            publication = aeron.addPublication(CHANNEL, STREAM);
            while (!publication.isConnected())
            {
                Thread.onSpinWait();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            aeron.close();
            driver.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @OperationsPerInvocation(BURST)
    public int aeronrsThroughput(final AeronrsStream s)
    {
        int sent = 0;
        s.received = 0;
        while (sent < BURST)
        {
            if (s.publication.offer(s.buffer, 0, MESSAGE_LENGTH) > 0)
            {
                sent++;
            }
            else
            {
                s.subscription.poll(s.handler, FRAGMENT_LIMIT);
            }
        }
        while (s.received < BURST)
        {
            s.subscription.poll(s.handler, FRAGMENT_LIMIT);
        }
        return s.received;
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @OperationsPerInvocation(BURST)
    public int javaThroughput(final JavaStream s)
    {
        int sent = 0;
        s.received = 0;
        while (sent < BURST)
        {
            if (s.publication.offer(s.buffer, 0, MESSAGE_LENGTH) > 0)
            {
                sent++;
            }
            else
            {
                s.subscription.poll(s.handler, FRAGMENT_LIMIT);
            }
        }
        while (s.received < BURST)
        {
            s.subscription.poll(s.handler, FRAGMENT_LIMIT);
        }
        return s.received;
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public int aeronrsEmptyPoll(final AeronrsStream s)
    {
        return s.subscription.poll(s.handler, FRAGMENT_LIMIT);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public int javaEmptyPoll(final JavaStream s)
    {
        return s.subscription.poll(s.handler, FRAGMENT_LIMIT);
    }

    /** aeronrs-java ping publication and pong subscription, with a pong thread echoing. */
    @State(Scope.Thread)
    public static class AeronrsPingPong
    {
        BenchDriver driver;
        Aeron aeron;
        ConcurrentPublication ping;
        Subscription pong;
        Thread ponger;
        volatile boolean running = true;
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(MESSAGE_LENGTH, 64));
        boolean replied;
        final io.aeronrs.logbuffer.FragmentHandler handler = (b, offset, length, header) -> replied = true;

        @Setup(Level.Trial)
        public void setUp()
        {
            driver = new BenchDriver();
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            final Subscription pingSubscription = aeron.addSubscription(CHANNEL, PING_STREAM);
            final ConcurrentPublication pongPublication = aeron.addPublication(CHANNEL, PONG_STREAM);
            pong = aeron.addSubscription(CHANNEL, PONG_STREAM);
            ping = aeron.addPublication(CHANNEL, PING_STREAM);
            ponger = new Thread(() ->
            {
                final io.aeronrs.logbuffer.FragmentHandler echo = (b, offset, length, header) ->
                {
                    while (pongPublication.offer(b, offset, length) < 0 && running)
                    {
                        Thread.onSpinWait();
                    }
                };
                while (running)
                {
                    if (pingSubscription.poll(echo, FRAGMENT_LIMIT) == 0)
                    {
                        Thread.onSpinWait();
                    }
                }
            }, "aeronrs-pong");
            ponger.start();
            while (!ping.isConnected() || !pongPublication.isConnected())
            {
                Thread.onSpinWait();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            running = false;
            ponger.join();
            aeron.close();
            driver.close();
        }
    }

    /** Java Aeron ping publication and pong subscription, with a pong thread echoing. */
    @State(Scope.Thread)
    public static class JavaPingPong
    {
        BenchDriver driver;
        io.aeron.Aeron aeron;
        io.aeron.Publication ping;
        io.aeron.Subscription pong;
        Thread ponger;
        volatile boolean running = true;
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(MESSAGE_LENGTH, 64));
        boolean replied;
        final io.aeron.logbuffer.FragmentHandler handler = (b, offset, length, header) -> replied = true;

        @Setup(Level.Trial)
        public void setUp()
        {
            driver = new BenchDriver();
            aeron = io.aeron.Aeron.connect(new io.aeron.Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
            final io.aeron.Subscription pingSubscription = aeron.addSubscription(CHANNEL, PING_STREAM);
            final io.aeron.Publication pongPublication = aeron.addPublication(CHANNEL, PONG_STREAM);
            pong = aeron.addSubscription(CHANNEL, PONG_STREAM);
            ping = aeron.addPublication(CHANNEL, PING_STREAM);
            ponger = new Thread(() ->
            {
                final io.aeron.logbuffer.FragmentHandler echo = (b, offset, length, header) ->
                {
                    while (pongPublication.offer(b, offset, length) < 0 && running)
                    {
                        Thread.onSpinWait();
                    }
                };
                while (running)
                {
                    if (pingSubscription.poll(echo, FRAGMENT_LIMIT) == 0)
                    {
                        Thread.onSpinWait();
                    }
                }
            }, "java-pong");
            ponger.start();
            while (!ping.isConnected() || !pongPublication.isConnected())
            {
                Thread.onSpinWait();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            running = false;
            ponger.join();
            aeron.close();
            driver.close();
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public boolean aeronrsRoundTrip(final AeronrsPingPong s)
    {
        while (s.ping.offer(s.buffer, 0, MESSAGE_LENGTH) < 0)
        {
            Thread.onSpinWait();
        }
        s.replied = false;
        while (!s.replied)
        {
            s.pong.poll(s.handler, FRAGMENT_LIMIT);
        }
        return s.replied;
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public boolean javaRoundTrip(final JavaPingPong s)
    {
        while (s.ping.offer(s.buffer, 0, MESSAGE_LENGTH) < 0)
        {
            Thread.onSpinWait();
        }
        s.replied = false;
        while (!s.replied)
        {
            s.pong.poll(s.handler, FRAGMENT_LIMIT);
        }
        return s.replied;
    }
}
