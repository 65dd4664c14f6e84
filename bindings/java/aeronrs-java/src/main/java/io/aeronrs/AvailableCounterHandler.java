package io.aeronrs;

import io.aeronrs.status.CountersReader;

/** Told when a counter is allocated in the driver; runs on the client conductor thread. */
@FunctionalInterface
public interface AvailableCounterHandler
{
    /**
     * @param countersReader the client's counters.
     * @param registrationId the counter's registration id.
     * @param counterId      the counter's id.
     */
    void onAvailableCounter(CountersReader countersReader, long registrationId, int counterId);
}
