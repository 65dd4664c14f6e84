package io.aeronrs;

import io.aeronrs.status.CountersReader;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.aeronrs.TestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Counters added by a client, read back through the counters reader, and the counter handlers. */
class CountersTest extends EmbeddedDriverTest
{
    @Test
    void counterValuesLabelsAndHandlers()
    {
        final List<String> events = new CopyOnWriteArrayList<>();
        try (Aeron watcher = Aeron.connect(TestSupport.clientContext(dir)
            .availableCounterHandler((reader, registrationId, counterId) ->
                events.add("available " + reader.getCounterTypeId(counterId) + " " + registrationId))
            .unavailableCounterHandler((reader, registrationId, counterId) -> events.add("unavailable " + registrationId))))
        {
            final Counter counter = aeron.addCounter(1234, "orders processed");
            assertEquals("orders processed", counter.label());
            assertEquals(0, counter.get());
            assertEquals(0, counter.increment());
            assertEquals(1, counter.getAndAdd(10));
            assertTrue(counter.compareAndSet(11, 40));
            assertFalse(counter.compareAndSet(11, 50));
            assertTrue(counter.proposeMax(41));
            assertFalse(counter.proposeMax(7));
            counter.setRelease(42);

            final CountersReader reader = watcher.countersReader();
            assertEquals(42, reader.getCounterValue(counter.id()), "another client sees the value");
            assertEquals(1234, reader.getCounterTypeId(counter.id()));
            assertEquals("orders processed", reader.getCounterLabel(counter.id()));
            assertEquals(counter.registrationId(), reader.getCounterRegistrationId(counter.id()));
            assertEquals(aeron.clientId(), reader.getCounterOwnerId(counter.id()));
            assertEquals(CountersReader.RECORD_ALLOCATED, reader.getCounterState(counter.id()));
            assertEquals(counter.id(), reader.findByTypeIdAndRegistrationId(1234, counter.registrationId()));
            final List<String> labels = new ArrayList<>();
            reader.forEach((id, typeId, key, label) -> labels.add(id + ":" + typeId + ":" + label));
            assertTrue(labels.contains(counter.id() + ":1234:orders processed"), labels.toString());

            await("available counter event", () -> events.contains("available 1234 " + counter.registrationId()));
            counter.close();
            await("unavailable counter event", () -> events.contains("unavailable " + counter.registrationId()));
        }
    }

    @Test
    void counterWithKeyAndStaticCounter()
    {
        final org.agrona.concurrent.UnsafeBuffer key = new org.agrona.concurrent.UnsafeBuffer(new byte[16]);
        key.putLong(0, 0x0102030405060708L);
        key.putLong(8, -1L);
        final org.agrona.concurrent.UnsafeBuffer label = new org.agrona.concurrent.UnsafeBuffer(new byte[5]);
        label.putStringWithoutLengthAscii(0, "keyed");
        final Counter keyed = aeron.addCounter(77, key, 0, 16, label, 0, 5);
        final long[] keyRead = new long[2];
        aeron.countersReader().forEach((id, typeId, keyBuffer, l) ->
        {
            if (id == keyed.id())
            {
                keyRead[0] = keyBuffer.getLong(0);
                keyRead[1] = keyBuffer.getLong(8);
            }
        });
        assertEquals(0x0102030405060708L, keyRead[0]);
        assertEquals(-1L, keyRead[1]);

        final Counter first = aeron.addStaticCounter(88, "static one", 5555);
        final Counter again = aeron.addStaticCounter(88, "static one", 5555);
        assertEquals(first.id(), again.id(), "the same static counter");
        assertTrue(first.isStatic());
    }
}
