package io.aeronrs.driver;

/** How the driver's agents (conductor, sender, receiver) map onto threads ({@code AERON_THREADING_MODE_*}). */
public enum ThreadingMode
{
    /** A thread each. */
    DEDICATED(0),
    /** The conductor on one thread, sender and receiver sharing another. */
    SHARED_NETWORK(1),
    /** All on one thread. */
    SHARED(2),
    /** All on the caller's thread, through {@link MediaDriver#doWork()}. */
    INVOKER(3);

    final int value;

    ThreadingMode(final int value)
    {
        this.value = value;
    }
}
