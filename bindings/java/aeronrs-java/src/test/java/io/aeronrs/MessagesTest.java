package io.aeronrs;

import io.aeronrs.logbuffer.BufferClaim;
import io.aeronrs.logbuffer.ControlledFragmentHandler.Action;
import io.aeronrs.logbuffer.Header;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.aeronrs.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fragmented messages, claims, back pressure and controlled polls through an embedded driver. */
class MessagesTest extends EmbeddedDriverTest
{
    @Test
    void oneMebibyteMessagesAreReassembledExactly()
    {
        final String channel = "aeron:ipc?term-length=8m";
        final int length = 1024 * 1024;
        final int count = 6;
        try (Subscription subscription = aeron.addSubscription(channel, 2001);
            ExclusivePublication publication = aeron.addExclusivePublication(channel, 2001))
        {
            await("connected", publication::isConnected);
            assertTrue(publication.maxMessageLength() >= length, "max message " + publication.maxMessageLength());
            final UnsafeBuffer message = new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, 64));
            final int[] received = { 0 };
            final long[] positions = new long[count];
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, messageLength, header) ->
            {
                final int i = received[0];
                if (!TestSupport.matches(buffer, offset, messageLength, i, length))
                {
                    throw new AssertionError("message " + i + " differs (" + messageLength + " bytes)");
                }
                assertEquals(Header.HEADER_LENGTH + length, header.frameLength());
                positions[i] = header.position();
                received[0]++;
            });
            final long[] offered = new long[count];
            for (int i = 0; i < count; i++)
            {
                TestSupport.fill(message, i, length);
                offered[i] = TestSupport.offer(publication, message, length);
                // The window (half the term) holds four messages: drain as we go.
                subscription.poll(assembler, 1000);
            }
            await("all messages", () -> subscription.poll(assembler, 1000) >= 0 && received[0] == count);
            for (int i = 0; i < count; i++)
            {
                assertEquals(offered[i], positions[i], "message " + i);
            }
        }
    }

    @Test
    void tryClaimCommitDeliversAndAbortIsSkipped()
    {
        final String channel = "aeron:ipc";
        try (Subscription subscription = aeron.addSubscription(channel, 2002);
            ConcurrentPublication publication = aeron.addPublication(channel, 2002))
        {
            await("connected", publication::isConnected);
            final BufferClaim claim = new BufferClaim();
            assertTrue(claimed(publication, 16, claim) > 0);
            assertEquals(16, claim.length());
            claim.buffer().putStringWithoutLengthAscii(claim.offset(), "committed claim!");
            claim.reservedValue(0x1122334455667788L);
            claim.commit();
            assertEquals(0, claim.length(), "the claim covers nothing once committed");
            assertTrue(claimed(publication, 8, claim) > 0);
            claim.buffer().putLong(0, -1L);
            claim.abort();
            final UnsafeBuffer after = new UnsafeBuffer(new byte[5]);
            after.putStringWithoutLengthAscii(0, "after");
            TestSupport.offer(publication, after, 5);
            final List<String> seen = new ArrayList<>();
            await("two messages", () ->
            {
                subscription.poll((buffer, offset, length, header) ->
                    seen.add(buffer.getStringWithoutLengthAscii(offset, length) + "/" + Long.toHexString(header.reservedValue())), 10);
                return seen.size() >= 2;
            });
            assertEquals(List.of("committed claim!/1122334455667788", "after/0"), seen);
            assertEquals(0, subscription.poll((buffer, offset, length, header) -> seen.add("extra"), 10));
        }
    }

    private static long claimed(final Publication publication, final int length, final BufferClaim claim)
    {
        final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
        long result;
        while ((result = publication.tryClaim(length, claim)) < 0 && System.nanoTime() < deadline)
        {
            Thread.yield();
        }
        return result;
    }

    @Test
    void backPressureUntilTheSubscriberCatchesUp()
    {
        final String channel = "aeron:ipc?term-length=64k";
        try (Subscription subscription = aeron.addSubscription(channel, 2003);
            ConcurrentPublication publication = aeron.addPublication(channel, 2003))
        {
            await("connected", publication::isConnected);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[1000]);
            int accepted = 0;
            long result;
            while ((result = publication.offer(message, 0, 1000)) > 0 || result == Publication.ADMIN_ACTION)
            {
                accepted += result > 0 ? 1 : 0;
            }
            assertEquals(Publication.BACK_PRESSURED, result);
            // An IPC publisher may run a term window (half the 64 KiB term) ahead of its subscriber.
            assertEquals(32, accepted, "1032-byte frames in a 32 KiB window");
            assertTrue(publication.availableWindow() < 1056, "window left " + publication.availableWindow());
            final int[] received = { 0 };
            final int expected = accepted;
            await("drained", () -> subscription.poll((b, o, l, h) -> received[0]++, 100) >= 0 && received[0] == expected);
            await("window reopened", () -> publication.offer(message, 0, 1000) > 0);
        }
    }

    @Test
    void controlledPollActionsKeepAeronsMeaning()
    {
        final String channel = "aeron:ipc";
        try (Subscription subscription = aeron.addSubscription(channel, 2004);
            ExclusivePublication publication = aeron.addExclusivePublication(channel, 2004))
        {
            await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
            final long[] positions = new long[6];
            for (int i = 0; i < 6; i++)
            {
                message.putLong(0, i);
                positions[i] = TestSupport.offer(publication, message, 8);
            }
            final Image image = subscription.imageAtIndex(0);
            final long start = image.position();
            final List<Long> seen = new ArrayList<>();

            // ABORT on the first: nothing consumed, the position stays.
            assertEquals(0, subscription.controlledPoll((b, o, l, h) ->
            {
                seen.add(b.getLong(o));
                return Action.ABORT;
            }, 10));
            assertEquals(List.of(0L), seen);
            assertEquals(start, image.position());

            // CONTINUE, CONTINUE, then ABORT: two consumed, the third delivered again next time.
            seen.clear();
            assertEquals(2, subscription.controlledPoll((b, o, l, h) ->
            {
                seen.add(b.getLong(o));
                return seen.size() < 3 ? Action.CONTINUE : Action.ABORT;
            }, 10));
            assertEquals(List.of(0L, 1L, 2L), seen);
            assertEquals(positions[1], image.position());

            // BREAK on the first: only that one consumed.
            seen.clear();
            assertEquals(1, subscription.controlledPoll((b, o, l, h) ->
            {
                seen.add(b.getLong(o));
                return Action.BREAK;
            }, 10));
            assertEquals(List.of(2L), seen);
            assertEquals(positions[2], image.position());

            // COMMIT moves the subscriber position before the next fragment is handled.
            seen.clear();
            final List<Long> positionsSeen = new ArrayList<>();
            assertEquals(3, subscription.controlledPoll((b, o, l, h) ->
            {
                positionsSeen.add(image.position());
                seen.add(b.getLong(o));
                return Action.COMMIT;
            }, 10));
            assertEquals(List.of(3L, 4L, 5L), seen);
            assertEquals(List.of(positions[2], positions[3], positions[4]), positionsSeen);
            assertEquals(positions[5], image.position());

            // The fragment limit counts consumed fragments.
            for (int i = 0; i < 4; i++)
            {
                message.putLong(0, 10 + i);
                TestSupport.offer(publication, message, 8);
            }
            seen.clear();
            assertEquals(2, subscription.controlledPoll((b, o, l, h) ->
            {
                seen.add(b.getLong(o));
                return Action.CONTINUE;
            }, 2));
            assertEquals(List.of(10L, 11L), seen);
        }
    }

    @Test
    void controlledAssemblerRedeliversAnAbortedFragmentedMessage()
    {
        final String channel = "aeron:ipc?mtu=4096";
        final int length = 20_000;
        try (Subscription subscription = aeron.addSubscription(channel, 2005);
            ExclusivePublication publication = aeron.addExclusivePublication(channel, 2005))
        {
            await("connected", publication::isConnected);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[length]);
            TestSupport.fill(message, 7, length);
            final long end = TestSupport.offer(publication, message, length);
            final int[] calls = { 0 };
            final ControlledFragmentAssembler assembler = new ControlledFragmentAssembler((buffer, offset, l, header) ->
            {
                calls[0]++;
                assertTrue(TestSupport.matches(buffer, offset, l, 7, length), "reassembled message differs");
                return calls[0] == 1 ? Action.ABORT : Action.CONTINUE;
            });
            await("delivered twice", () -> subscription.controlledPoll(assembler, 100) >= 0 && calls[0] == 2);
            assertEquals(end, subscription.imageAtIndex(0).position());
        }
    }

    @Test
    void reservedValueSupplierSetsEachFrame()
    {
        final String channel = "aeron:ipc?mtu=4096";
        try (Subscription subscription = aeron.addSubscription(channel, 2007);
            ConcurrentPublication publication = aeron.addPublication(channel, 2007))
        {
            await("connected", publication::isConnected);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[10_000]);
            final long[] calls = { 0 };
            long result;
            do
            {
                result = publication.offer(message, 0, 10_000, (termBuffer, termOffset, frameLength) ->
                    ++calls[0] * 1000 + frameLength);
            }
            while (result < 0 && result != Publication.CLOSED);
            assertEquals(3, calls[0], "10000 bytes in frames of at most 4064");
            final List<Long> values = new ArrayList<>();
            await("three fragments", () ->
            {
                subscription.poll((buffer, offset, length, header) -> values.add(header.reservedValue()), 10);
                return values.size() == 3;
            });
            assertEquals(List.of(1000L + 4096, 2000L + 4096, 3000L + 32 + 10_000 - 2 * 4064), values);

            final IllegalStateException thrown = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> publication.offer(message, 0, 8, (termBuffer, termOffset, frameLength) ->
                {
                    throw new IllegalStateException("supplier failed");
                }));
            assertEquals("supplier failed", thrown.getMessage());
        }
    }

    @Test
    void oversizedOfferAndClaimAreRefusedWithEinval()
    {
        try (Subscription subscription = aeron.addSubscription("aeron:ipc?term-length=64k", 2006);
            ConcurrentPublication publication = aeron.addPublication("aeron:ipc?term-length=64k", 2006))
        {
            await("connected", publication::isConnected);
            final UnsafeBuffer big = new UnsafeBuffer(new byte[64 * 1024]);
            final io.aeronrs.exceptions.AeronException offer = org.junit.jupiter.api.Assertions.assertThrows(
                io.aeronrs.exceptions.AeronException.class, () -> publication.offer(big, 0, big.capacity()));
            assertEquals(io.aeronrs.exceptions.AeronException.EINVAL, offer.errorCode(), offer.getMessage());
            final io.aeronrs.exceptions.AeronException claim = org.junit.jupiter.api.Assertions.assertThrows(
                io.aeronrs.exceptions.AeronException.class,
                () -> publication.tryClaim(publication.maxPayloadLength() + 1, new BufferClaim()));
            assertEquals(io.aeronrs.exceptions.AeronException.EINVAL, claim.errorCode(), claim.getMessage());
            assertTrue(subscription.isConnected());
        }
    }
}
