package io.aeronrs;

import io.aeronrs.driver.MediaDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;

import static io.aeronrs.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Publisher and subscriber in two processes, through an embedded driver and through the
 * standalone aeronmd; and an image going away when its publisher process is killed.
 */
@Timeout(180)
class ProcessesTest
{
    private static final int COUNT = 5000;
    private static final int LENGTH = 64;

    private final Path dir = TestSupport.tempDir("processes");
    private final TestSupport.Processes processes = new TestSupport.Processes();

    @AfterEach
    void cleanUp()
    {
        processes.close();
        TestSupport.deleteRecursively(dir);
    }

    private void receiveAllFromChild(final Path aeronDir, final String channel, final int streamId)
    {
        try (Aeron aeron = Aeron.connect(TestSupport.clientContext(aeronDir));
            Subscription subscription = aeron.addSubscription(channel, streamId))
        {
            final Path log = dir.resolve("publisher.log");
            final Process publisher = processes.java(ChildPublisher.class, log, aeronDir.toString(), channel,
                Integer.toString(streamId), Integer.toString(COUNT), Integer.toString(LENGTH));
            final int[] received = { 0 };
            final FragmentAssembler assembler = new FragmentAssembler((buffer, offset, length, header) ->
            {
                final int i = received[0];
                if (!TestSupport.matches(buffer, offset, length, i, ChildPublisher.length(i, LENGTH)))
                {
                    throw new AssertionError("message " + i + ": " + length + " bytes differ");
                }
                received[0]++;
            });
            final long deadline = System.nanoTime() + TestSupport.TIMEOUT.toNanos() * 2;
            while (received[0] < COUNT)
            {
                if (subscription.poll(assembler, 100) == 0)
                {
                    if (!publisher.isAlive())
                    {
                        throw new AssertionError("publisher exited: " + TestSupport.read(log));
                    }
                    if (System.nanoTime() > deadline)
                    {
                        throw new AssertionError("received " + received[0] + " of " + COUNT + "; " + TestSupport.read(log));
                    }
                    TestSupport.sleep();
                }
            }
            await("publisher done", () -> TestSupport.read(log).contains("DONE " + COUNT));
            assertEquals(0, subscription.poll(assembler, 100), "nothing more than was sent");
        }
    }

    @Test
    void twoProcessesThroughAnEmbeddedDriver()
    {
        final Path aeronDir = dir.resolve("aeron");
        try (MediaDriver ignored = MediaDriver.launch(TestSupport.driverContext(aeronDir)))
        {
            receiveAllFromChild(aeronDir, "aeron:ipc?term-length=256k", 5001);
        }
    }

    @Test
    void twoProcessesThroughAeronmdOverIpcAndUdp()
    {
        final Path aeronDir = dir.resolve("aeron");
        processes.aeronmd(aeronDir, dir.resolve("aeronmd.log"));
        receiveAllFromChild(aeronDir, "aeron:ipc?term-length=256k", 5002);
        receiveAllFromChild(aeronDir, "aeron:udp?endpoint=127.0.0.1:" + freeUdpPort() + "|term-length=256k", 5003);
    }

    static int freeUdpPort()
    {
        try (java.net.DatagramSocket socket = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
        catch (final java.io.IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void imageGoesAwayWhenThePublisherProcessIsKilled()
    {
        final Path aeronDir = dir.resolve("aeron");
        final MediaDriver.Context driverContext = TestSupport.driverContext(aeronDir)
            .clientLivenessTimeoutNs(2_000_000_000L)
            .publicationLingerTimeoutNs(500_000_000L);
        final List<Image> available = new CopyOnWriteArrayList<>();
        final List<Image> unavailable = new CopyOnWriteArrayList<>();
        try (MediaDriver ignored = MediaDriver.launch(driverContext);
            Aeron aeron = Aeron.connect(TestSupport.clientContext(aeronDir));
            Subscription subscription = aeron.addSubscription("aeron:ipc", 5004, available::add, unavailable::add))
        {
            final Path log = dir.resolve("publisher.log");
            final Process publisher = processes.java(ChildPublisher.class, log, aeronDir.toString(), "aeron:ipc", "5004",
                "0", "8");
            await("publisher ready", () -> TestSupport.read(log).contains("READY"));
            await("image available", () -> available.size() == 1);
            final Image image = available.get(0);
            assertEquals("READY " + image.sessionId(), TestSupport.read(log).strip());
            assertEquals(List.of(image), subscription.images());
            final long[] seen = { -1 };
            await("messages flowing", () ->
            {
                subscription.poll((buffer, offset, length, header) -> seen[0] = buffer.getLong(offset), 10);
                return seen[0] >= 2;
            });

            publisher.destroyForcibly();
            await("image unavailable", () ->
            {
                subscription.poll((buffer, offset, length, header) -> { }, 10);
                return unavailable.size() == 1;
            });
            assertTrue(unavailable.get(0) == image, "the same Image object as was available");
            assertTrue(image.isClosed());
            assertEquals(0, subscription.imageCount());
        }
    }
}
