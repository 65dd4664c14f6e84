package io.aeronrs.exceptions;

/**
 * A resource (client, publication, subscription, counter, driver, ring buffer, bus) was
 * used after it was closed. Its native memory is never touched again, so this is all that
 * happens. Code {@link AeronException#EPERM}.
 */
public final class ClosedException extends AeronException
{
    private static final long serialVersionUID = 1L;

    /** @param what the resource that is closed, e.g. "publication". */
    public ClosedException(final String what)
    {
        super(EPERM, what + " is closed");
    }
}
