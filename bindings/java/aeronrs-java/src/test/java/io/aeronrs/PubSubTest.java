package io.aeronrs;

import io.aeronrs.driver.MediaDriver;
import io.aeronrs.logbuffer.Header;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static io.aeronrs.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Publications and subscriptions of one process through an embedded driver, across threads. */
@Timeout(120)
class PubSubTest
{
    private Path dir;
    private MediaDriver driver;
    private Aeron aeron;

    @BeforeEach
    void start()
    {
        dir = TestSupport.tempDir("pubsub");
        driver = MediaDriver.launch(TestSupport.driverContext(dir));
        aeron = Aeron.connect(TestSupport.clientContext(dir));
    }

    @AfterEach
    void stop()
    {
        if (null != aeron)
        {
            aeron.close();
        }
        if (null != driver)
        {
            driver.close();
        }
        TestSupport.deleteRecursively(dir);
    }

    @Test
    void twoPublisherThreadsToOneSubscriberThreadEveryMessageOnceInOrderPerPublisher() throws Exception
    {
        final String channel = "aeron:ipc?term-length=64k";
        final int perPublisher = 20_000;
        try (Subscription subscription = aeron.addSubscription(channel, 1001);
            ConcurrentPublication publication = aeron.addPublication(channel, 1001))
        {
            await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> publishers = new ArrayList<>();
            for (int p = 0; p < 2; p++)
            {
                final int publisherId = p;
                final Thread thread = new Thread(() ->
                {
                    // One off-heap, one on-heap buffer: both offer paths.
                    final UnsafeBuffer buffer = publisherId == 0 ?
                        new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64)) : new UnsafeBuffer(new byte[64]);
                    try
                    {
                        for (int i = 0; i < perPublisher; i++)
                        {
                            buffer.putInt(0, publisherId);
                            buffer.putInt(4, i);
                            TestSupport.offer(publication, buffer, 32);
                        }
                    }
                    catch (final Throwable t)
                    {
                        failure.set(t);
                    }
                }, "publisher-" + p);
                publishers.add(thread);
                thread.start();
            }
            final int[] next = new int[2];
            final long[] lastPosition = { 0 };
            final int[] received = { 0 };
            final Thread subscriber = new Thread(() ->
            {
                try
                {
                    final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos() * 2;
                    while (received[0] < 2 * perPublisher && null == failure.get())
                    {
                        final int fragments = subscription.poll((buffer, offset, length, header) ->
                        {
                            final int publisherId = buffer.getInt(offset);
                            final int i = buffer.getInt(offset + 4);
                            if (length != 32 || i != next[publisherId] || header.position() <= lastPosition[0])
                            {
                                throw new AssertionError("publisher " + publisherId + " message " + i + " (expected " +
                                    next[publisherId] + "), " + length + " bytes at " + header.position());
                            }
                            next[publisherId]++;
                            lastPosition[0] = header.position();
                            received[0]++;
                        }, 100);
                        if (fragments == 0)
                        {
                            Thread.yield();
                        }
                        if (System.nanoTime() > deadline)
                        {
                            throw new AssertionError("received " + received[0] + " of " + 2 * perPublisher);
                        }
                    }
                }
                catch (final Throwable t)
                {
                    failure.set(t);
                }
            }, "subscriber");
            subscriber.start();
            for (final Thread thread : publishers)
            {
                thread.join();
            }
            subscriber.join();
            assertNull(failure.get(), () -> String.valueOf(failure.get()));
            assertEquals(perPublisher, next[0]);
            assertEquals(perPublisher, next[1]);
            assertEquals(publication.position(), lastPosition[0]);
        }
    }

    @Test
    void exclusivePublicationHeaderFieldsAndSegmentOffers()
    {
        final String channel = "aeron:ipc?term-length=64k";
        try (Subscription subscription = aeron.addSubscription(channel, 1002);
            ExclusivePublication publication = aeron.addExclusivePublication(channel, 1002);
            Arena arena = Arena.ofConfined())
        {
            await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
            final MemorySegment segment = arena.allocate(100);
            for (int i = 0; i < 100; i++)
            {
                segment.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 3));
            }
            final long first = publication.offer(segment, 10, 50);
            final long second = publication.offer(MemorySegment.ofArray(new byte[] { 1, 2, 3 }));
            assertTrue(first > 0 && second > first, first + ", " + second);
            final List<String> seen = new ArrayList<>();
            await("two fragments", () ->
            {
                subscription.poll((DirectBuffer buffer, int offset, int length, Header header) ->
                {
                    final byte[] bytes = new byte[length];
                    buffer.getBytes(offset, bytes);
                    seen.add(java.util.Arrays.toString(bytes) + " session=" + header.sessionId() + " stream=" +
                        header.streamId() + " position=" + header.position() + " frameLength=" + header.frameLength() +
                        " flags=" + header.flags() + " type=" + header.type() + " initialTermId=" + header.initialTermId() +
                        " context=" + (header.context() == subscription.imageAtIndex(0)));
                }, 10);
                return seen.size() == 2;
            });
            final byte[] expected = new byte[50];
            for (int i = 0; i < 50; i++)
            {
                expected[i] = (byte)((i + 10) * 3);
            }
            final String common = " session=" + publication.sessionId() + " stream=1002";
            assertEquals(java.util.Arrays.toString(expected) + common + " position=" + first +
                " frameLength=82 flags=-64 type=1 initialTermId=" + publication.initialTermId() + " context=true", seen.get(0));
            assertEquals("[1, 2, 3]" + common + " position=" + second + " frameLength=35 flags=-64 type=1 initialTermId=" +
                publication.initialTermId() + " context=true", seen.get(1));
            assertEquals(second, subscription.imageAtIndex(0).position());
        }
    }

    @Test
    void asyncAddsCompleteThroughTheirRegistrationIds()
    {
        final long subscriptionId = aeron.asyncAddSubscription("aeron:ipc", 1004);
        final long publicationId = aeron.asyncAddPublication("aeron:ipc", 1004);
        final long exclusiveId = aeron.asyncAddExclusivePublication("aeron:ipc", 1004);
        final Subscription[] subscription = { null };
        final ConcurrentPublication[] publication = { null };
        final ExclusivePublication[] exclusive = { null };
        await("adds complete", () ->
        {
            subscription[0] = null == subscription[0] ? aeron.getSubscription(subscriptionId) : subscription[0];
            publication[0] = null == publication[0] ? aeron.getPublication(publicationId) : publication[0];
            exclusive[0] = null == exclusive[0] ? aeron.getExclusivePublication(exclusiveId) : exclusive[0];
            return null != subscription[0] && null != publication[0] && null != exclusive[0];
        });
        assertEquals(subscriptionId, subscription[0].registrationId());
        assertEquals(publicationId, publication[0].registrationId());
        assertEquals(exclusiveId, exclusive[0].registrationId());
        await("two images", () -> subscription[0].imageCount() == 2);
        final io.aeronrs.exceptions.AeronException unknown = org.junit.jupiter.api.Assertions.assertThrows(
            io.aeronrs.exceptions.AeronException.class, () -> aeron.getPublication(publicationId));
        assertEquals(io.aeronrs.exceptions.AeronException.EINVAL, unknown.errorCode());

        final long refused = aeron.asyncAddPublication("aeron:udp?interface=localhost", 1004);
        final io.aeronrs.exceptions.RegistrationException error = org.junit.jupiter.api.Assertions.assertThrows(
            io.aeronrs.exceptions.RegistrationException.class, () ->
            {
                while (null == aeron.getPublication(refused))
                {
                    TestSupport.sleep();
                }
            });
        assertEquals(io.aeronrs.exceptions.AeronException.INVALID_CHANNEL, error.errorCode(), error.getMessage());
    }

    @Test
    void twoBufferOfferIsOneMessage()
    {
        final String channel = "aeron:ipc";
        try (Subscription subscription = aeron.addSubscription(channel, 1003);
            ConcurrentPublication publication = aeron.addPublication(channel, 1003))
        {
            await("connected", publication::isConnected);
            final UnsafeBuffer head = new UnsafeBuffer(new byte[] { 'h', 'e', 'a', 'd' });
            final UnsafeBuffer body = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
            body.putStringWithoutLengthAscii(0, "-body");
            long result;
            do
            {
                result = publication.offer(head, 0, 4, body, 0, 5);
            }
            while (result < 0 && result != Publication.CLOSED);
            assertTrue(result > 0);
            final StringBuilder text = new StringBuilder();
            await("message", () ->
            {
                subscription.poll((buffer, offset, length, header) -> text.append(buffer.getStringWithoutLengthAscii(offset, length)), 1);
                return text.length() > 0;
            });
            assertEquals("head-body", text.toString());
        }
    }
}
