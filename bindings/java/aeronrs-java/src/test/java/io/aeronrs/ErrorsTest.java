package io.aeronrs;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.exceptions.ClosedException;
import io.aeronrs.exceptions.RegistrationException;
import io.aeronrs.logbuffer.BufferClaim;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static io.aeronrs.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Typed errors: Aeron's codes for bad URIs and refused settings, and closed handles that throw instead of crashing. */
class ErrorsTest extends EmbeddedDriverTest
{
    @Test
    void badUrisCarryAeronsCode()
    {
        // Not an Aeron URI at all: refused as an invalid channel.
        final AeronException notAnUri = assertThrows(AeronException.class,
            () -> aeron.addPublication("udp://localhost:40123", 3001));
        assertEquals(AeronException.INVALID_CHANNEL, notAnUri.errorCode(), notAnUri.getMessage());
        assertTrue(notAnUri.getMessage().contains("must start with 'aeron:'"), notAnUri.getMessage());

        // A UDP publication without an endpoint: the driver refuses it as an invalid channel.
        final RegistrationException noEndpoint = assertThrows(RegistrationException.class,
            () -> aeron.addPublication("aeron:udp?interface=localhost", 3001));
        assertEquals(AeronException.INVALID_CHANNEL, noEndpoint.errorCode(), noEndpoint.getMessage());

        // A parameter with a bad value: the driver's generic error, as Aeron C's driver gives.
        final RegistrationException badLength = assertThrows(RegistrationException.class,
            () -> aeron.addPublication("aeron:ipc?term-length=1000", 3001));
        assertEquals(AeronException.GENERIC_ERROR, badLength.errorCode(), badLength.getMessage());

        // The client is still usable.
        try (Subscription subscription = aeron.addSubscription("aeron:ipc", 3001))
        {
            assertFalse(subscription.isClosed());
        }
    }

    @Test
    void closedResourcesThrowOrReportClosed()
    {
        final ConcurrentPublication publication = aeron.addPublication("aeron:ipc", 3002);
        final Subscription subscription = aeron.addSubscription("aeron:ipc", 3002);
        final Counter counter = aeron.addCounter(1001, "test counter");
        await("connected", () -> subscription.imageCount() == 1);
        final Image image = subscription.imageAtIndex(0);
        final BufferClaim claim = new BufferClaim();
        await("claimed", () -> publication.tryClaim(8, claim) > 0);

        publication.close();
        publication.close();
        assertTrue(publication.isClosed());
        assertEquals(Publication.CLOSED, publication.offer(new UnsafeBuffer(new byte[8])));
        assertEquals(Publication.CLOSED, publication.tryClaim(8, new BufferClaim()));
        assertEquals(Publication.CLOSED, publication.position());
        assertFalse(publication.isConnected());
        final AeronException commit = assertThrows(AeronException.class, claim::commit);
        assertEquals(AeronException.EPERM, commit.errorCode());
        assertThrows(IndexOutOfBoundsException.class, () -> claim.buffer().putLong(0, 1), "the stale claim covers nothing");

        subscription.close();
        final ClosedException poll = assertThrows(ClosedException.class, () -> subscription.poll((b, o, l, h) -> { }, 10));
        assertEquals(AeronException.EPERM, poll.errorCode());
        assertThrows(ClosedException.class, () -> subscription.controlledPoll((b, o, l, h) -> null, 10));
        assertThrows(ClosedException.class, subscription::images);
        assertTrue(image.isClosed());
        assertThrows(ClosedException.class, image::position);

        counter.set(5);
        counter.close();
        assertEquals(AeronException.EPERM, assertThrows(ClosedException.class, counter::get).errorCode());

        final ExclusivePublication other = aeron.addExclusivePublication("aeron:ipc", 3003);
        aeron.close();
        assertTrue(aeron.isClosed());
        assertTrue(other.isClosed(), "closing the client closes what it added");
        assertEquals(Publication.CLOSED, other.offer(new UnsafeBuffer(new byte[8])));
        assertEquals(AeronException.EPERM,
            assertThrows(ClosedException.class, () -> aeron.addSubscription("aeron:ipc", 1)).errorCode());
        assertThrows(ClosedException.class, aeron::countersReader);
        aeron = null;
    }

    @Test
    void connectWithoutADriverTimesOut()
    {
        final Path empty = TestSupport.tempDir("nodriver");
        try
        {
            final AeronException e = assertThrows(AeronException.class, () -> Aeron.connect(
                new Aeron.Context().aeronDirectoryName(empty.resolve("none").toString()).driverTimeoutMs(200)));
            assertEquals(AeronException.ETIMEDOUT, e.errorCode(), e.getMessage());
            assertTrue(e.getMessage().contains("CnC file not created"), e.getMessage());
        }
        finally
        {
            TestSupport.deleteRecursively(empty);
        }
    }

    @Test
    void refusedSettingsFailTheLaunchWithTheirError()
    {
        final Path other = TestSupport.tempDir("badsetting");
        try
        {
            final AeronException e = assertThrows(AeronException.class, () -> io.aeronrs.driver.MediaDriver.launch(
                TestSupport.driverContext(other).sharedIdleStrategy("no-such-strategy")));
            assertEquals(AeronException.EINVAL, e.errorCode(), e.getMessage());
            assertTrue(e.getMessage().contains("aeron_driver_context_set_shared_idle_strategy"), e.getMessage());
        }
        finally
        {
            TestSupport.deleteRecursively(other);
        }
    }

    @Test
    void secondDriverOnTheSameDirectoryIsRefused()
    {
        final AeronException e = assertThrows(AeronException.class, () -> io.aeronrs.driver.MediaDriver.launch(
            TestSupport.driverContext(dir).dirDeleteOnStart(false)));
        assertTrue(e.errorCode() != 0, e.getMessage());
        assertTrue(Aeron.isDriverActive(dir.toString(), 10_000), "the first driver is untouched");
    }
}
