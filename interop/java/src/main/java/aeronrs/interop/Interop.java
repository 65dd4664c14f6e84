package aeronrs.interop;

import io.aeron.Aeron;
import io.aeron.ConcurrentPublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;
import org.agrona.concurrent.SigInt;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Real Java Aeron peer for aeronrs interop tests. Modes (all take the Aeron directory from
 * -Daeron.dir or AERON_DIR):
 *   driver                          run a Java MediaDriver until SIGINT/SIGTERM or stdin closes
 *   pub CHANNEL STREAM COUNT LEN [DEST...]
 *                                   publish COUNT messages, message i has the pattern below;
 *                                   each DEST (a channel such as aeron:udp?endpoint=host:port)
 *                                   is added with addDestination before waiting for a connection
 *                                   (for a control-mode=manual CHANNEL)
 *   sub CHANNEL STREAM COUNT LEN    receive COUNT messages and verify each, in order
 * Message i (0-based) of length LEN: bytes 0..8 = i (little-endian int64), byte j >= 8 =
 * (i + j) & 0xFF. Prints "READY" when subscribed/connected and "DONE n" at the end; exits 0
 * only if every message was sent/received intact and in order.
 * pub also prints "PUBLICATION session=S" once the publication and its destinations are added,
 * answers a stdin line "status" at any time with "STATUS connected=true|false position=P",
 * and with -Dinterop.hold=true waits after READY for a stdin line "go" before it offers.
 * sub also prints "IMAGE source=ADDRESS session=S joinPosition=P" for each image that becomes
 * available and "UNAVAILABLE source=ADDRESS session=S position=P" for each that goes.
 */
public final class Interop
{
    public static void main(final String[] args) throws Exception
    {
        if (args.length < 1)
        {
            usage();
        }
        switch (args[0])
        {
            case "driver" -> runDriver();
            case "pub" -> publish(args);
            case "sub" -> subscribe(args);
            default -> usage();
        }
    }

    private static void usage()
    {
        System.err.println(
            "usage: Interop driver | pub CHANNEL STREAM COUNT LEN [DEST...] | sub CHANNEL STREAM COUNT LEN");
        System.exit(2);
    }

    static String aeronDir()
    {
        final String prop = System.getProperty("aeron.dir");
        if (prop != null)
        {
            return prop;
        }
        final String env = System.getenv("AERON_DIR");
        if (env == null)
        {
            throw new IllegalStateException("set AERON_DIR or -Daeron.dir");
        }
        return env;
    }

    private static void runDriver() throws Exception
    {
        final AtomicBoolean running = new AtomicBoolean(true);
        SigInt.register(() -> running.set(false));
        final MediaDriver.Context ctx = new MediaDriver.Context()
            .aeronDirectoryName(aeronDir())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new SleepingMillisIdleStrategy(1));
        try (MediaDriver driver = MediaDriver.launch(ctx))
        {
            System.out.println("READY " + driver.aeronDirectoryName());
            System.out.flush();
            final Thread stdinWatcher = new Thread(() ->
            {
                try
                {
                    while (System.in.read() != -1)
                    {
                        // wait for EOF: the parent test closing our stdin means stop
                    }
                }
                catch (final Exception ignore)
                {
                }
                running.set(false);
            });
            stdinWatcher.setDaemon(true);
            stdinWatcher.start();
            while (running.get())
            {
                Thread.sleep(20);
            }
        }
        System.out.println("DONE driver");
    }

    static void fill(final UnsafeBuffer buffer, final long i, final int length)
    {
        if (length >= 8)
        {
            buffer.putLong(0, i, java.nio.ByteOrder.LITTLE_ENDIAN);
        }
        for (int j = Math.min(8, length) == 8 ? 8 : 0; j < length; j++)
        {
            buffer.putByte(j, (byte)((i + j) & 0xFF));
        }
    }

    static Aeron connect()
    {
        return Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir()));
    }

    static void say(final String line)
    {
        synchronized (System.out)
        {
            System.out.println(line);
            System.out.flush();
        }
    }

    private static void publish(final String[] args) throws InterruptedException
    {
        final String channel = args[1];
        final int streamId = Integer.parseInt(args[2]);
        final long count = Long.parseLong(args[3]);
        final int length = Integer.parseInt(args[4]);
        final boolean hold = Boolean.getBoolean("interop.hold");
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(length, 8)));
        final YieldingIdleStrategy idle = new YieldingIdleStrategy();
        try (Aeron aeron = connect(); Publication pub = aeron.addPublication(channel, streamId))
        {
            for (int d = 5; d < args.length; d++)
            {
                pub.addDestination(args[d]);
            }
            say("PUBLICATION session=" + pub.sessionId());
            final CountDownLatch go = new CountDownLatch(1);
            final Thread commands = new Thread(() ->
            {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
                {
                    String line;
                    while ((line = in.readLine()) != null)
                    {
                        switch (line.trim())
                        {
                            case "status" -> say("STATUS connected=" + pub.isConnected() + " position=" + pub.position());
                            case "go" -> go.countDown();
                            default -> System.err.println("Interop pub: unknown command " + line);
                        }
                    }
                }
                catch (final Exception ignore)
                {
                    // stdin gone: no more commands
                }
            });
            commands.setDaemon(true);
            commands.start();
            final long deadline = System.nanoTime() + 180_000_000_000L;
            while (!pub.isConnected())
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("publication not connected within 180 s");
                }
                idle.idle();
            }
            say("READY");
            if (hold)
            {
                go.await();
            }
            for (long i = 0; i < count; i++)
            {
                fill(buffer, i, length);
                long result;
                while ((result = pub.offer(buffer, 0, length)) < 0)
                {
                    if (result == Publication.CLOSED || result == Publication.MAX_POSITION_EXCEEDED)
                    {
                        throw new IllegalStateException("offer failed: " + result);
                    }
                    idle.idle();
                }
            }
            say("DONE " + count + " position=" + pub.position() + " session=" + pub.sessionId() +
                " concurrent=" + (pub instanceof ConcurrentPublication));
        }
    }

    private static void subscribe(final String[] args)
    {
        final String channel = args[1];
        final int streamId = Integer.parseInt(args[2]);
        final long count = Long.parseLong(args[3]);
        final int length = Integer.parseInt(args[4]);
        final long[] received = {0};
        final UnsafeBuffer expected = new UnsafeBuffer(ByteBuffer.allocateDirect(Math.max(length, 8)));
        final FragmentHandler check = (buffer, offset, len, header) ->
        {
            final long i = received[0];
            if (len != length)
            {
                throw new IllegalStateException("message " + i + " has length " + len + ", expected " + length);
            }
            fill(expected, i, length);
            for (int j = 0; j < length; j++)
            {
                if (buffer.getByte(offset + j) != expected.getByte(j))
                {
                    throw new IllegalStateException("message " + i + " differs at byte " + j);
                }
            }
            received[0] = i + 1;
        };
        final FragmentAssembler assembler = new FragmentAssembler(check);
        final YieldingIdleStrategy idle = new YieldingIdleStrategy();
        try (Aeron aeron = connect();
            Subscription sub = aeron.addSubscription(
                channel,
                streamId,
                image -> say("IMAGE source=" + image.sourceIdentity() + " session=" + image.sessionId() +
                    " joinPosition=" + image.joinPosition()),
                image -> say("UNAVAILABLE source=" + image.sourceIdentity() + " session=" + image.sessionId() +
                    " position=" + image.position())))
        {
            say("READY");
            final long deadline = System.nanoTime() + 120_000_000_000L;
            while (received[0] < count)
            {
                if (System.nanoTime() > deadline)
                {
                    final StringBuilder images = new StringBuilder();
                    sub.forEachImage(image -> images.append(" [session=").append(image.sessionId())
                        .append(" position=").append(image.position())
                        .append(" closed=").append(image.isClosed())
                        .append(" eos=").append(image.isEndOfStream()).append(']'));
                    throw new IllegalStateException(
                        "received " + received[0] + " of " + count + " within 120 s; images:" + images);
                }
                idle.idle(sub.poll(assembler, 256));
            }
            say("DONE " + received[0]);
        }
    }
}
