package io.aeronrs;

import io.aeron.logbuffer.FragmentHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.aeronrs.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Interop with real Java Aeron (io.aeron:aeron-client) over aeronrs's driver, both ways:
 * a Java Aeron publisher to an aeronrs-java subscriber and the reverse, over IPC and UDP,
 * every message once, in order, byte for byte (fragmented ones included).
 */
class JavaAeronInteropTest extends EmbeddedDriverTest
{
    private static final int COUNT = 3000;
    private static final int LENGTH = 48;

    private io.aeron.Aeron javaAeron()
    {
        return io.aeron.Aeron.connect(new io.aeron.Aeron.Context()
            .aeronDirectoryName(dir.toString())
            .driverTimeoutMs(10_000));
    }

    private static int length(final int i)
    {
        return i % 100 == 99 ? 6000 : LENGTH;
    }

    @Test
    void javaAeronPublisherToAeronrsSubscriber()
    {
        for (final String channel : new String[] { "aeron:ipc",
            "aeron:udp?endpoint=127.0.0.1:" + ProcessesTest.freeUdpPort() })
        {
            try (io.aeron.Aeron java = javaAeron();
                Subscription subscription = aeron.addSubscription(channel, 6001);
                io.aeron.Publication publication = java.addPublication(channel, 6001))
            {
                await("connected " + channel, () -> publication.isConnected() && subscription.imageCount() == 1);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[6000]);
                final int[] received = { 0 };
                final FragmentAssembler assembler = new FragmentAssembler((b, offset, length, header) ->
                {
                    final int i = received[0];
                    if (!TestSupport.matches(b, offset, length, i, length(i)))
                    {
                        throw new AssertionError(channel + " message " + i + " differs");
                    }
                    assertEquals(publication.sessionId(), header.sessionId());
                    received[0]++;
                });
                for (int i = 0; i < COUNT; i++)
                {
                    TestSupport.fill(buffer, i, length(i));
                    final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
                    while (publication.offer(buffer, 0, length(i)) < 0)
                    {
                        subscription.poll(assembler, 100);
                        if (System.nanoTime() > deadline)
                        {
                            throw new AssertionError(channel + ": Java Aeron's offer still refused");
                        }
                    }
                    subscription.poll(assembler, 10);
                }
                await("all from Java Aeron over " + channel, () -> subscription.poll(assembler, 100) >= 0 && received[0] == COUNT);
            }
        }
    }

    @Test
    void aeronrsPublisherToJavaAeronSubscriber()
    {
        for (final String channel : new String[] { "aeron:ipc",
            "aeron:udp?endpoint=127.0.0.1:" + ProcessesTest.freeUdpPort() })
        {
            try (io.aeron.Aeron java = javaAeron();
                io.aeron.Subscription subscription = java.addSubscription(channel, 6002);
                ExclusivePublication publication = aeron.addExclusivePublication(channel, 6002))
            {
                await("connected " + channel, () -> publication.isConnected() && subscription.imageCount() == 1);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[6000]);
                final int[] received = { 0 };
                final io.aeron.FragmentAssembler assembler = new io.aeron.FragmentAssembler((FragmentHandler)(b, offset,
                    length, header) ->
                {
                    final int i = received[0];
                    if (!TestSupport.matches(b, offset, length, i, length(i)))
                    {
                        throw new AssertionError(channel + " message " + i + " differs");
                    }
                    assertEquals(publication.sessionId(), header.sessionId());
                    received[0]++;
                });
                for (int i = 0; i < COUNT; i++)
                {
                    TestSupport.fill(buffer, i, length(i));
                    final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
                    while (publication.offer(buffer, 0, length(i)) < 0)
                    {
                        subscription.poll(assembler, 100);
                        if (System.nanoTime() > deadline)
                        {
                            throw new AssertionError(channel + ": offer still refused");
                        }
                    }
                    subscription.poll(assembler, 10);
                }
                await("all at Java Aeron over " + channel, () -> subscription.poll(assembler, 100) >= 0 && received[0] == COUNT);
            }
        }
    }
}
