package io.aeronrs;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.ringbuffer.RingBuffer;
import io.aeronrs.ringbuffer.RingBufferClaim;
import org.agrona.IoUtil;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** aeronrs's standalone ring buffers: round trips, claims, controlled reads, Agrona interop, threads. */
@Timeout(60)
class RingBufferTest
{
    private final Path dir = TestSupport.tempDir("ringbuffer");

    @AfterEach
    void cleanUp()
    {
        TestSupport.deleteRecursively(dir);
    }

    @Test
    void oneToOneRoundTripThroughAFileSharedByTwoHandles()
    {
        final Path file = dir.resolve("rb");
        try (RingBuffer producer = RingBuffer.create(RingBuffer.Kind.ONE_TO_ONE, file, 4096);
            RingBuffer consumer = RingBuffer.open(RingBuffer.Kind.ONE_TO_ONE, file))
        {
            assertEquals(4096, consumer.capacity());
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            for (int i = 0; i < 10; i++)
            {
                TestSupport.fill(message, i, 20 + i);
                assertTrue(producer.write(7 + i, message, 0, 20 + i));
            }
            final RingBufferClaim claim = new RingBufferClaim();
            assertTrue(producer.tryClaim(99, 12, claim));
            claim.buffer().putStringWithoutLengthAscii(0, "claimed here");
            claim.commit();
            assertTrue(producer.tryClaim(98, 12, claim));
            claim.abort();
            final List<String> seen = new ArrayList<>();
            assertEquals(11, consumer.read((type, buffer, index, length) ->
            {
                if (type == 99)
                {
                    seen.add("99:" + buffer.getStringWithoutLengthAscii(index, length));
                }
                else
                {
                    final int i = type - 7;
                    assertTrue(TestSupport.matches(buffer, index, length, i, 20 + i), "message " + i);
                    seen.add(type + ":" + length);
                }
            }, 100));
            assertEquals(List.of("7:20", "8:21", "9:22", "10:23", "11:24", "12:25", "13:26", "14:27", "15:28", "16:29",
                "99:claimed here"), seen);
            assertEquals(0, consumer.size());
            assertEquals(producer.producerPosition(), consumer.consumerPosition());
        }
    }

    @Test
    void controlledReadActionsAndHandlerExceptions()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment memory = arena.allocate(1024 + RingBuffer.TRAILER_LENGTH, 64);
            final RingBuffer rb = RingBuffer.wrap(RingBuffer.Kind.MANY_TO_ONE, memory);
            try
            {
                final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
                for (int i = 1; i <= 4; i++)
                {
                    message.putLong(0, i);
                    assertTrue(rb.write(1, message, 0, 8));
                }
                final List<Long> seen = new ArrayList<>();
                assertEquals(1, rb.controlledRead((type, buffer, index, length) ->
                {
                    seen.add(buffer.getLong(index));
                    return seen.size() == 1 ? ControlledMessageHandler.Action.CONTINUE : ControlledMessageHandler.Action.ABORT;
                }, 10));
                assertEquals(List.of(1L, 2L), seen);
                seen.clear();
                assertEquals(1, rb.controlledRead((type, buffer, index, length) ->
                {
                    seen.add(buffer.getLong(index));
                    return ControlledMessageHandler.Action.BREAK;
                }, 10));
                assertEquals(List.of(2L), seen);

                // A throwing handler: the exception comes out of read, the message counts as read.
                final IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> rb.read(
                    (type, buffer, index, length) ->
                    {
                        throw new IllegalStateException("handler failed on " + buffer.getLong(index));
                    }, 10));
                assertEquals("handler failed on 3", thrown.getMessage());
                seen.clear();
                assertEquals(1, rb.read((type, buffer, index, length) -> seen.add(buffer.getLong(index)), 10));
                assertEquals(List.of(4L), seen);

                final AeronException badType = assertThrows(AeronException.class, () -> rb.write(0, message, 0, 8));
                assertEquals(AeronException.EINVAL, badType.errorCode(), badType.getMessage());
                final AeronException tooLong = assertThrows(AeronException.class,
                    () -> rb.write(1, new UnsafeBuffer(new byte[2000]), 0, 2000));
                assertEquals(AeronException.EINVAL, tooLong.errorCode(), tooLong.getMessage());
                rb.close();
                assertThrows(ClosedException.class, () -> rb.write(1, message, 0, 8));
            }
            finally
            {
                rb.close();
            }
        }
    }

    @Test
    void agronasRingBufferReadsWhatAeronrsWrote()
    {
        final Path file = dir.resolve("agrona");
        try (RingBuffer producer = RingBuffer.create(RingBuffer.Kind.ONE_TO_ONE, file, 1024))
        {
            final UnsafeBuffer message = new UnsafeBuffer(new byte[3]);
            message.putStringWithoutLengthAscii(0, "abc");
            assertTrue(producer.write(5, message, 0, 3));
            final MappedByteBuffer mapped = IoUtil.mapExistingFile(file.toFile(), "rb");
            try
            {
                final OneToOneRingBuffer agrona = new OneToOneRingBuffer(new UnsafeBuffer(mapped));
                final List<String> seen = new ArrayList<>();
                assertEquals(1, agrona.read((type, buffer, index, length) ->
                    seen.add(type + ":" + buffer.getStringWithoutLengthAscii(index, length))));
                assertEquals(List.of("5:abc"), seen);
                assertEquals(agrona.consumerPosition(), producer.consumerPosition());
            }
            finally
            {
                IoUtil.unmap(mapped);
            }
        }
    }

    @Test
    void manyToOneFromThreeProducerThreads() throws Exception
    {
        final int perProducer = 20_000;
        try (RingBuffer rb = RingBuffer.create(RingBuffer.Kind.MANY_TO_ONE, dir.resolve("mpsc"), 64 * 1024))
        {
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < 3; p++)
            {
                final int producer = p;
                final Thread thread = new Thread(() ->
                {
                    final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
                    final RingBufferClaim claim = new RingBufferClaim();
                    try
                    {
                        for (int i = 0; i < perProducer; i++)
                        {
                            final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos();
                            if (i % 2 == 0)
                            {
                                message.putInt(0, producer);
                                message.putInt(4, i);
                                while (!rb.write(1, message, 0, 8))
                                {
                                    check(deadline);
                                }
                            }
                            else
                            {
                                while (!rb.tryClaim(1, 8, claim))
                                {
                                    check(deadline);
                                }
                                claim.buffer().putInt(0, producer);
                                claim.buffer().putInt(4, i);
                                claim.commit();
                            }
                        }
                    }
                    catch (final Throwable t)
                    {
                        failure.set(t);
                    }
                });
                producers.add(thread);
                thread.start();
            }
            final int[] next = new int[3];
            int total = 0;
            final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos() * 2;
            while (total < 3 * perProducer && null == failure.get())
            {
                final int read = rb.read((type, buffer, index, length) ->
                {
                    final int producer = buffer.getInt(index);
                    final int i = buffer.getInt(index + 4);
                    if (i != next[producer])
                    {
                        throw new AssertionError("producer " + producer + ": " + i + " expected " + next[producer]);
                    }
                    next[producer]++;
                }, 100);
                total += read;
                if (read == 0)
                {
                    Thread.yield();
                }
                check(deadline);
            }
            for (final Thread thread : producers)
            {
                thread.join();
            }
            assertNull(failure.get());
            assertEquals(3 * perProducer, total);
            assertFalse(rb.unblock(), "nothing to unblock");
        }
    }

    private static void check(final long deadline)
    {
        if (System.nanoTime() > deadline)
        {
            throw new AssertionError("timed out");
        }
        Thread.yield();
    }
}
