package io.aeronrs.exceptions;

/**
 * The media driver refused to add a publication, subscription, counter or destination, e.g.
 * for a channel URI it cannot use ({@link AeronException#INVALID_CHANNEL}). The code is the
 * driver's ({@code -AERON_ERROR_CODE_*}).
 */
public final class RegistrationException extends AeronException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param errorCode Aeron's error code.
     * @param message   the driver's message.
     */
    public RegistrationException(final int errorCode, final String message)
    {
        super(errorCode, message);
    }
}
