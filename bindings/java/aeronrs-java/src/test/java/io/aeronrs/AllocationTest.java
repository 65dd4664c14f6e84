package io.aeronrs;

import io.aeronrs.logbuffer.BufferClaim;
import io.aeronrs.logbuffer.ControlledFragmentHandler;
import io.aeronrs.logbuffer.FragmentHandler;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static io.aeronrs.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No allocation per message on offer, claim or poll: the bytes this thread allocates
 * (ThreadMXBean) over a round of many messages, once the JIT has compiled the paths, stay
 * below one byte per message, where a single object per message would be 16 or more.
 */
class AllocationTest extends EmbeddedDriverTest
{
    private static final int WARMUP = 300_000;
    private static final int MEASURED = 200_000;
    private static final int ROUNDS = 10;

    private static long allocatedBytes()
    {
        return ((com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void offerClaimAndPollDoNotAllocatePerMessage()
    {
        final String channel = "aeron:ipc?term-length=1m";
        try (Subscription subscription = aeron.addSubscription(channel, 4001);
            ExclusivePublication publication = aeron.addExclusivePublication(channel, 4001))
        {
            await("connected", () -> publication.isConnected() && subscription.imageCount() == 1);
            final UnsafeBuffer heap = new UnsafeBuffer(new byte[64]);
            final UnsafeBuffer direct = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
            final BufferClaim claim = new BufferClaim();
            final long[] sum = { 0 };
            final FragmentHandler handler = (buffer, offset, length, header) -> sum[0] += buffer.getLong(offset) +
                header.position();
            final FragmentAssembler assembler = new FragmentAssembler(handler);
            final ControlledFragmentHandler controlled = (buffer, offset, length, header) ->
            {
                sum[0] += buffer.getLong(offset);
                return ControlledFragmentHandler.Action.CONTINUE;
            };

            run(publication, subscription, heap, direct, claim, handler, assembler, controlled, WARMUP);
            // The JIT compiles in the background (two cores, shared with the driver): a round
            // that still ran some not-yet-optimised code allocates. A per-message allocation
            // shows in every round; compiled code allocating nothing shows as a round below
            // one byte per message.
            final java.util.List<Long> rounds = new java.util.ArrayList<>();
            for (int round = 0; round < ROUNDS; round++)
            {
                final long before = allocatedBytes();
                final long received = run(publication, subscription, heap, direct, claim, handler, assembler,
                    controlled, MEASURED);
                final long allocated = allocatedBytes() - before;
                assertEquals(MEASURED, received);
                rounds.add(allocated);
                if (allocated < MEASURED)
                {
                    break;
                }
            }
            System.out.println("AllocationTest: bytes allocated per round of " + MEASURED + " messages: " + rounds);
            assertTrue(rounds.get(rounds.size() - 1) < MEASURED,
                "every round allocated: " + rounds + " bytes per " + MEASURED + " messages");
            assertTrue(sum[0] != 0);
        }
    }

    /** Offers {@code count} 32-byte messages (heap, direct, claim in turn) and polls them (plain, assembled, controlled). */
    private static long run(
        final ExclusivePublication publication, final Subscription subscription,
        final UnsafeBuffer heap, final UnsafeBuffer direct, final BufferClaim claim,
        final FragmentHandler handler, final FragmentAssembler assembler, final ControlledFragmentHandler controlled,
        final int count)
    {
        long received = 0;
        int sent = 0;
        final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos() * 2;
        while (received < count)
        {
            // Each step in its own small method, called once per message: compiled (and its
            // temporaries scalar-replaced) by C2 during the warm-up, as in a long-running service.
            if (sent < count && offerOne(publication, heap, direct, claim, sent))
            {
                sent++;
            }
            received += pollOne(subscription, handler, assembler, controlled, received);
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("sent " + sent + ", received " + received + " of " + count);
            }
        }
        return received;
    }

    private static boolean offerOne(
        final ExclusivePublication publication, final UnsafeBuffer heap, final UnsafeBuffer direct,
        final BufferClaim claim, final int sent)
    {
        final long result;
        switch (sent % 3)
        {
            case 0 ->
            {
                heap.putLong(0, sent);
                result = publication.offer(heap, 0, 32);
            }
            case 1 ->
            {
                direct.putLong(0, sent);
                result = publication.offer(direct, 0, 32);
            }
            default ->
            {
                result = publication.tryClaim(32, claim);
                if (result > 0)
                {
                    claim.buffer().putLong(0, sent);
                    claim.commit();
                }
            }
        }
        return result > 0;
    }

    private static int pollOne(
        final Subscription subscription, final FragmentHandler handler, final FragmentAssembler assembler,
        final ControlledFragmentHandler controlled, final long received)
    {
        return switch ((int)(received % 3))
        {
            case 0 -> subscription.poll(handler, 10);
            case 1 -> subscription.poll(assembler, 10);
            default -> subscription.controlledPoll(controlled, 10);
        };
    }
}
