package aeronrs.ffm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;

/**
 * The checks scripts/interop-langs.sh runs (exit 0 = passed):
 * <pre>
 *   selftest DIR               FFM publisher and FFM subscriber in this process, small and
 *                              fragmented messages, through the driver in DIR
 *   pub DIR CHANNEL STREAM COUNT LEN
 *                              publish COUNT messages of LEN bytes in the interop pattern
 *                              (aeronrs.interop.Interop's: bytes 0..8 = i little-endian, byte
 *                              j >= 8 = (i + j) &amp; 0xFF) for a Java Aeron subscriber to verify
 * </pre>
 */
public final class FfmInteropCheck
{
    static byte[] message(final long i, final int length)
    {
        final byte[] m = new byte[length];
        if (length >= 8)
        {
            ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putLong(0, i);
        }
        for (int j = Math.min(8, length); j < length; j++)
        {
            m[j] = (byte)(i + j);
        }
        return m;
    }

    static void offer(final AeronFfm.Publication publication, final byte[] message) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long result;
        while ((result = publication.offer(message)) < 0)
        {
            if (result == AeronFfm.CLOSED || result == AeronFfm.MAX_POSITION_EXCEEDED)
            {
                throw new IllegalStateException("offer: " + result);
            }
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("offer still " + result + " after 30 s");
            }
            Thread.onSpinWait();
        }
    }

    static void await(final String what, final java.util.function.BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    static void selftest(final String dir) throws Exception
    {
        final String channel = "aeron:ipc?term-length=64k";
        final int count = 2000;
        try (AeronFfm.Client client = new AeronFfm.Client(dir, Duration.ofSeconds(10));
            AeronFfm.Subscription subscription = client.addSubscription(channel, 2001);
            AeronFfm.Publication publication = client.addPublication(channel, 2001))
        {
            await("connection", () -> publication.isConnected() && subscription.imageCount() == 1);
            final int[] received = { 0 };
            final long[] lastPosition = { 0 };
            final java.util.function.BiConsumer<byte[], Long> handler = (bytes, position) ->
            {
                final int i = received[0];
                final byte[] expected = message(i, length(i));
                if (!Arrays.equals(bytes, expected) || position <= lastPosition[0])
                {
                    throw new IllegalStateException("message " + i + ": " + bytes.length + " bytes at " + position);
                }
                lastPosition[0] = position;
                received[0]++;
            };
            for (int i = 0; i < count; i++)
            {
                offer(publication, message(i, length(i)));
                subscription.poll(handler, 10);
            }
            await("all messages", () -> subscription.poll(handler, 100) >= 0 && received[0] == count);
            try
            {
                publication.offer(new byte[64 * 1024]);
                throw new IllegalStateException("an oversized offer must fail");
            }
            catch (final AeronFfm.AeronException e)
            {
                if (e.code != 22)
                {
                    throw e;
                }
            }
            System.out.println("selftest: " + count + " messages (every 100th fragmented) received intact, in order");
        }
    }

    static int length(final int i)
    {
        return i % 100 == 99 ? 5000 : 32;
    }

    static void publish(final String dir, final String channel, final int streamId, final long count, final int length)
        throws Exception
    {
        try (AeronFfm.Client client = new AeronFfm.Client(dir, Duration.ofSeconds(10));
            AeronFfm.Publication publication = client.addPublication(channel, streamId))
        {
            await("a subscriber", publication::isConnected);
            for (long i = 0; i < count; i++)
            {
                offer(publication, message(i, length));
            }
            System.out.println("DONE " + count);
            // Closing at once would end the stream before a slow subscriber read the tail: IPC
            // subscribers keep the log, so just give them the linger period.
            Thread.sleep(500);
        }
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length == 2 && args[0].equals("selftest"))
        {
            selftest(args[1]);
        }
        else if (args.length == 6 && args[0].equals("pub"))
        {
            publish(args[1], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]), Integer.parseInt(args[5]));
        }
        else
        {
            System.err.println("usage: FfmInteropCheck selftest DIR | pub DIR CHANNEL STREAM COUNT LEN");
            System.exit(2);
        }
    }
}
