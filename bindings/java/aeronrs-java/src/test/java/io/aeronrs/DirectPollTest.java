package io.aeronrs;

import io.aeronrs.logbuffer.ControlledFragmentHandler.Action;
import io.aeronrs.logbuffer.Header;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.aeronrs.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The poll that reads the image's log in Java (no call into C per poll): across term
 * rotations and the padding that ends each term, fragmented messages, padding frames,
 * header fields, a handler that throws, an image going away while another thread polls,
 * and a subscription closed with images still retained.
 */
class DirectPollTest extends EmbeddedDriverTest
{
    /** 64 KiB terms: a few hundred messages rotate through all three partitions several times. */
    private static final String SMALL_TERMS = "aeron:ipc?term-length=64k";

    @Test
    void everyMessageOnceInOrderAcrossTermRotations()
    {
        try (Subscription subscription = aeron.addSubscription(SMALL_TERMS, 5001);
            ExclusivePublication publication = aeron.addExclusivePublication(SMALL_TERMS, 5001))
        {
            await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
            final int count = 3000;
            final UnsafeBuffer message = new UnsafeBuffer(new byte[1000]);
            final long[] offered = new long[count];
            final List<String> problems = new ArrayList<>();
            final int[] received = { 0 };
            final int termLength = publication.termBufferLength();
            final io.aeronrs.logbuffer.FragmentHandler handler = (buffer, offset, length, header) ->
            {
                final int i = received[0]++;
                if (!TestSupport.matches(buffer, offset, length, i, lengthOf(i)))
                {
                    problems.add("message " + i + " differs (" + length + " bytes)");
                }
                // The header is the frame's: its term id and offset give the position after it.
                final long expected = ((long)(header.termId() - header.initialTermId()) << header.positionBitsToShift()) +
                    header.termOffset() + align(header.frameLength());
                if (header.position() != expected || header.position() != offered[i] ||
                    header.nextTermOffset() != expected - ((long)(header.termId() - header.initialTermId()) << header.positionBitsToShift()) ||
                    header.streamId() != 5001 || header.sessionId() != publication.sessionId() ||
                    header.flags() != Header.UNFRAGMENTED || header.type() != 1 ||
                    header.frameLength() != Header.HEADER_LENGTH + length ||
                    header.positionBitsToShift() != Integer.numberOfTrailingZeros(termLength) ||
                    header.initialTermId() != publication.initialTermId() || header.context() != subscription.imageAtIndex(0))
                {
                    problems.add("header of message " + i + ": " + header + ", offered at " + offered[i]);
                }
            };
            for (int i = 0; i < count; i++)
            {
                TestSupport.fill(message, i, lengthOf(i));
                offered[i] = TestSupport.offer(publication, message, lengthOf(i));
                subscription.poll(handler, 7);
            }
            await("all messages", () -> subscription.poll(handler, 100) >= 0 && received[0] == count);
            assertEquals(List.of(), problems);
            assertEquals(count, received[0]);
            assertTrue(offered[count - 1] > 4L * termLength, "rotated through several terms: " + offered[count - 1]);
            assertEquals(offered[count - 1], subscription.imageAtIndex(0).position());
            assertEquals(0, subscription.poll(handler, 100));
        }
    }

    /** 1 to 1000 bytes, so frames of every alignment end the terms (and padding fills the rest). */
    private static int lengthOf(final int i)
    {
        return 1 + (i * 37) % 1000;
    }

    private static int align(final int length)
    {
        return (length + Header.FRAME_ALIGNMENT - 1) & -Header.FRAME_ALIGNMENT;
    }

    @Test
    void fragmentedMessagesAcrossTermRotationsAreReassembled()
    {
        try (Subscription subscription = aeron.addSubscription(SMALL_TERMS, 5002);
            ConcurrentPublication publication = aeron.addPublication(SMALL_TERMS, 5002))
        {
            await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
            // Up to the 8 KiB maximum of 64 KiB terms: several MTU-sized fragments each.
            final int maxLength = publication.maxMessageLength();
            final UnsafeBuffer message = new UnsafeBuffer(BufferUtil.allocateDirectAligned(maxLength, 64));
            final int count = 200;
            final long[] offered = new long[count];
            final int[] received = { 0 };
            final List<String> problems = new ArrayList<>();
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                final int i = received[0]++;
                final int expectedLength = maxLength - (i * 61) % 3000;
                if (!TestSupport.matches(buffer, offset, length, i, expectedLength) || header.position() != offered[i] ||
                    header.frameLength() != Header.HEADER_LENGTH + expectedLength)
                {
                    problems.add("message " + i + ": " + length + " bytes, " + header);
                }
            });
            for (int i = 0; i < count; i++)
            {
                final int length = maxLength - (i * 61) % 3000;
                TestSupport.fill(message, i, length);
                final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
                long result;
                // The window (half a term) holds a few messages: drain while back pressured.
                while ((result = publication.offer(message, 0, length)) < 0)
                {
                    assertTrue(System.nanoTime() < deadline, "offer still " + result);
                    subscription.poll(assembler, 3);
                }
                offered[i] = result;
            }
            await("all messages", () -> subscription.poll(assembler, 100) >= 0 && received[0] == count);
            assertEquals(List.of(), problems);
            assertTrue(offered[count - 1] > 10L * publication.termBufferLength(), "rotated: " + offered[count - 1]);
        }
    }

    @Test
    void paddingFramesAreSkippedAndConsumed()
    {
        try (Subscription subscription = aeron.addSubscription(SMALL_TERMS, 5003);
            ExclusivePublication publication = aeron.addExclusivePublication(SMALL_TERMS, 5003))
        {
            await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
            message.putLong(0, 1);
            TestSupport.offer(publication, message, 8);
            final long padded = publication.appendPadding(1000);
            assertTrue(padded > 0, "appendPadding: " + padded);
            message.putLong(0, 2);
            final long last = TestSupport.offer(publication, message, 8);
            final List<Long> seen = new ArrayList<>();
            final List<Integer> offsets = new ArrayList<>();
            await("both messages", () ->
            {
                subscription.poll((b, o, l, h) ->
                {
                    seen.add(b.getLong(o));
                    offsets.add(h.termOffset());
                }, 10);
                return seen.size() >= 2;
            });
            assertEquals(List.of(1L, 2L), seen);
            // The second message starts where the padding (header + 1000 bytes, aligned) ends.
            assertEquals(List.of(0, 64 + align(Header.HEADER_LENGTH + 1000)), offsets);
            assertEquals(last, subscription.imageAtIndex(0).position());
            assertEquals(0, subscription.poll((b, o, l, h) -> seen.add(-1L), 10));
        }
    }

    @Test
    void aThrowingHandlerConsumesUpToItsFragmentAndAControlledOneDoesNot()
    {
        try (Subscription subscription = aeron.addSubscription(SMALL_TERMS, 5004);
            ExclusivePublication publication = aeron.addExclusivePublication(SMALL_TERMS, 5004))
        {
            await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
            final long[] positions = new long[4];
            for (int i = 0; i < 4; i++)
            {
                message.putLong(0, i);
                positions[i] = TestSupport.offer(publication, message, 8);
            }
            final Image image = subscription.imageAtIndex(0);
            final List<Long> seen = new ArrayList<>();
            await("first fragment", () ->
            {
                try
                {
                    subscription.poll((b, o, l, h) ->
                    {
                        seen.add(b.getLong(o));
                        if (b.getLong(o) == 1)
                        {
                            throw new IllegalStateException("handler failed");
                        }
                    }, 10);
                }
                catch (final IllegalStateException expected)
                {
                    return true;
                }
                return false;
            });
            assertEquals(List.of(0L, 1L), seen);
            assertEquals(positions[1], image.position(), "consumed through the fragment it threw on");

            seen.clear();
            assertThrows(IllegalStateException.class, () -> subscription.controlledPoll((b, o, l, h) ->
            {
                seen.add(b.getLong(o));
                if (b.getLong(o) == 3)
                {
                    throw new IllegalStateException("controlled handler failed");
                }
                return Action.CONTINUE;
            }, 10));
            assertEquals(List.of(2L, 3L), seen);
            assertEquals(positions[2], image.position(), "not the fragment it threw on");
            seen.clear();
            assertEquals(1, subscription.poll((b, o, l, h) -> seen.add(b.getLong(o)), 10));
            assertEquals(List.of(3L), seen);
        }
    }

    @Test
    void anImageGoingAwayWhileAnotherThreadPollsDeliversEverythingOnce() throws Exception
    {
        final CountDownLatch gone = new CountDownLatch(1);
        final AtomicInteger available = new AtomicInteger();
        try (Subscription subscription = aeron.addSubscription(SMALL_TERMS, 5005,
            image -> available.incrementAndGet(), image -> gone.countDown()))
        {
            final int count = 2000;
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final long[] received = { 0 };
            final List<String> problems = new ArrayList<>();
            final CountDownLatch stop = new CountDownLatch(1);
            final Thread poller = new Thread(() ->
            {
                try
                {
                    while (stop.getCount() > 0)
                    {
                        final int n = subscription.poll((b, o, l, h) ->
                        {
                            if (!TestSupport.matches(b, o, l, received[0], 100))
                            {
                                problems.add("message " + received[0]);
                            }
                            received[0]++;
                        }, 10);
                        if (n == 0)
                        {
                            Thread.yield();
                        }
                    }
                }
                catch (final Throwable t)
                {
                    failure.set(t);
                }
            }, "direct-poller");
            poller.start();
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            final Image first;
            try (ExclusivePublication publication = aeron.addExclusivePublication(SMALL_TERMS, 5005))
            {
                await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
                first = subscription.imageAtIndex(0);
                for (int i = 0; i < count; i++)
                {
                    TestSupport.fill(message, i, 100);
                    TestSupport.offer(publication, message, 100);
                }
            }
            assertTrue(gone.await(TestSupport.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "image unavailable");
            assertTrue(first.isClosed());
            // The poller keeps polling the (released, closed) image's successor: a new publication works.
            try (ExclusivePublication again = aeron.addExclusivePublication(SMALL_TERMS, 5005))
            {
                await("a second image", () -> available.get() == 2 && subscription.imageCount() == 1);
                assertTrue(subscription.imageAtIndex(0) != first);
                stop.countDown();
                poller.join(TestSupport.TIMEOUT.toMillis());
            }
            assertEquals(null, failure.get());
            assertEquals(List.of(), problems);
            // A publication that closes after its messages drains them to the subscriber first.
            assertEquals(count, received[0]);
        }
    }

    @Test
    void closingASubscriptionWithImagesReleasesThemAndTheClientGoesOn()
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
        try (ExclusivePublication publication = aeron.addExclusivePublication(SMALL_TERMS, 5006))
        {
            for (int round = 0; round < 3; round++)
            {
                final Subscription subscription = aeron.addSubscription(SMALL_TERMS, 5006);
                await("image", () -> subscription.imageCount() == 1 && publication.isConnected());
                final Image image = subscription.imageAtIndex(0);
                message.putLong(0, round);
                TestSupport.offer(publication, message, 8);
                final long[] seen = { -1 };
                await("message", () -> subscription.poll((b, o, l, h) -> seen[0] = b.getLong(o), 10) == 1);
                assertEquals(round, seen[0]);
                subscription.close();
                assertTrue(image.isClosed());
                assertThrows(io.aeronrs.exceptions.ClosedException.class, () -> subscription.poll((b, o, l, h) -> { }, 1));
                await("disconnected", () -> !publication.isConnected());
            }
        }
    }

    @Test
    void anImagePolledAloneDeliversOnlyItsOwnStream()
    {
        try (Subscription subscription = aeron.addSubscription(SMALL_TERMS, 5007);
            ExclusivePublication one = aeron.addExclusivePublication(SMALL_TERMS, 5007);
            ExclusivePublication two = aeron.addExclusivePublication(SMALL_TERMS, 5007))
        {
            await("two images", () -> subscription.imageCount() == 2 && one.isConnected() && two.isConnected());
            final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
            for (int i = 0; i < 3; i++)
            {
                message.putLong(0, 100 + i);
                TestSupport.offer(one, message, 8);
                message.putLong(0, 200 + i);
                TestSupport.offer(two, message, 8);
            }
            final Image imageOne = subscription.imageBySessionId(one.sessionId());
            final Image imageTwo = subscription.imageBySessionId(two.sessionId());
            final List<Long> seen = new ArrayList<>();
            await("image one", () ->
            {
                imageOne.poll((b, o, l, h) ->
                {
                    assertEquals(imageOne, h.context());
                    seen.add(b.getLong(o));
                }, 10);
                return seen.size() >= 3;
            });
            assertEquals(List.of(100L, 101L, 102L), seen);
            assertEquals(one.position(), imageOne.position());
            seen.clear();
            await("image two", () -> imageTwo.controlledPoll((b, o, l, h) ->
            {
                seen.add(b.getLong(o));
                return Action.BREAK;
            }, 10) == 1);
            assertEquals(List.of(200L), seen);
            seen.clear();
            // The subscription poll finds what is left: image two's other two only.
            assertEquals(2, subscription.poll((b, o, l, h) -> seen.add(b.getLong(o)), 10));
            assertEquals(List.of(201L, 202L), seen);
            // As the subscription's poll: not from inside a handler of the same subscription.
            message.putLong(0, 103);
            TestSupport.offer(one, message, 8);
            await("a nested poll refused", () ->
            {
                try
                {
                    imageOne.poll((b, o, l, h) -> imageTwo.poll((b2, o2, l2, h2) -> { }, 1), 1);
                    return false;
                }
                catch (final io.aeronrs.exceptions.AeronException e)
                {
                    return e.errorCode() == io.aeronrs.exceptions.AeronException.EPERM;
                }
            });
        }
    }
}
