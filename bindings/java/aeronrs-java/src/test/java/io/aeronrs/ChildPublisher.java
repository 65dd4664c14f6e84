package io.aeronrs;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The publisher process of the two-process tests:
 * {@code ChildPublisher DIR CHANNEL STREAM COUNT LENGTH} connects to the driver in DIR,
 * publishes COUNT messages in the test pattern (every 100th one LENGTH * 100 bytes, so
 * fragmented), prints {@code DONE}, and then keeps its publication open until killed (the
 * tests end it), so a slow subscriber never loses the tail. With COUNT 0 it prints
 * {@code READY} once connected and offers a message now and then until killed.
 */
public final class ChildPublisher
{
    private ChildPublisher()
    {
    }

    static int length(final int i, final int length)
    {
        return i % 100 == 99 ? length * 100 : length;
    }

    public static void main(final String[] args) throws Exception
    {
        final String dir = args[0];
        final String channel = args[1];
        final int streamId = Integer.parseInt(args[2]);
        final int count = Integer.parseInt(args[3]);
        final int length = Integer.parseInt(args[4]);
        try (Aeron aeron = Aeron.connect(TestSupport.clientContext(java.nio.file.Path.of(dir)));
            ConcurrentPublication publication = aeron.addPublication(channel, streamId))
        {
            TestSupport.await("a subscriber", publication::isConnected);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length * 100]);
            if (count == 0)
            {
                System.out.println("READY " + publication.sessionId());
                System.out.flush();
                for (long i = 0; ; i++)
                {
                    buffer.putLong(0, i);
                    publication.offer(buffer, 0, 8);
                    Thread.sleep(10);
                }
            }
            for (int i = 0; i < count; i++)
            {
                TestSupport.fill(buffer, i, length(i, length));
                TestSupport.offer(publication, buffer, length(i, length));
            }
            System.out.println("DONE " + count);
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
