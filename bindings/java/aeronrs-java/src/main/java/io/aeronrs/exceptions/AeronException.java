package io.aeronrs.exceptions;

/**
 * A call into aeronrs failed. Carries Aeron's error code ({@code aeron_errcode()}): a
 * positive {@code errno} (e.g. {@link #EINVAL} for a bad argument), a negative control
 * protocol code ({@code -AERON_ERROR_CODE_*}, e.g. {@link #INVALID_CHANNEL} for a URI the
 * driver refused) or a client code ({@code AERON_CLIENT_ERROR_*}, -1000 and below); and the
 * message aeronrs gave ({@code aeron_errmsg()}).
 */
public class AeronException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** {@code EPERM}: the operation is not allowed in this state (e.g. on a closed resource). */
    public static final int EPERM = 1;
    /** {@code ENOENT}: no such file or directory. */
    public static final int ENOENT = 2;
    /** {@code EINVAL}: a bad argument (length, URI parameter, position). */
    public static final int EINVAL = 22;
    /** {@code ETIMEDOUT}: waited too long for an operation. */
    public static final int ETIMEDOUT = 110;
    /** {@code -AERON_ERROR_CODE_INVALID_CHANNEL}: the driver could not use the channel URI. */
    public static final int INVALID_CHANNEL = -1;
    /** {@code -AERON_ERROR_CODE_UNKNOWN_SUBSCRIPTION}. */
    public static final int UNKNOWN_SUBSCRIPTION = -2;
    /** {@code -AERON_ERROR_CODE_UNKNOWN_PUBLICATION}. */
    public static final int UNKNOWN_PUBLICATION = -3;
    /** {@code -AERON_ERROR_CODE_CHANNEL_ENDPOINT_ERROR}. */
    public static final int CHANNEL_ENDPOINT_ERROR = -4;
    /** {@code -AERON_ERROR_CODE_UNKNOWN_COUNTER}. */
    public static final int UNKNOWN_COUNTER = -5;
    /** {@code -AERON_ERROR_CODE_GENERIC_ERROR}. */
    public static final int GENERIC_ERROR = -11;
    /** {@code AERON_CLIENT_ERROR_DRIVER_TIMEOUT}: no media driver heartbeat. */
    public static final int CLIENT_ERROR_DRIVER_TIMEOUT = -1000;
    /** {@code AERON_CLIENT_ERROR_CLIENT_TIMEOUT}: the driver timed this client out. */
    public static final int CLIENT_ERROR_CLIENT_TIMEOUT = -1001;
    /** {@code AERON_CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT}. */
    public static final int CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT = -1002;
    /** {@code AERON_CLIENT_ERROR_BUFFER_FULL}: the to-driver buffer is full. */
    public static final int CLIENT_ERROR_BUFFER_FULL = -1003;

    private final int errorCode;

    /**
     * @param errorCode Aeron's error code.
     * @param message   what failed and why.
     */
    public AeronException(final int errorCode, final String message)
    {
        super(message);
        this.errorCode = errorCode;
    }

    /** Aeron's error code of the failure (see the constants of this class). */
    public int errorCode()
    {
        return errorCode;
    }
}
