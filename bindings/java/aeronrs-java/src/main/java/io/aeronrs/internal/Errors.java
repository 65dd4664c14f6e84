package io.aeronrs.internal;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.exceptions.RegistrationException;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Turns aeronrs's C error convention (-1 or NULL, then {@code aeron_errcode()} and
 * {@code aeron_errmsg()} on the calling thread) into exceptions. A downcall runs on the
 * calling Java thread, so the error read right after a failed call is that call's.
 */
public final class Errors
{
    private static final MethodHandle ERRCODE = NativeLibrary.downcall("aeron_errcode", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle ERRMSG = NativeLibrary.downcall("aeron_errmsg", FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle ERR_CLEAR = NativeLibrary.downcall("aeron_err_clear", FunctionDescriptor.ofVoid());
    // aeron_errmsg is never NULL and bounded by the C side's message buffer.
    private static final long MAX_MESSAGE_LENGTH = 64 * 1024;

    private Errors()
    {
    }

    /** This thread's last aeronrs error as an exception for {@code operation}. */
    public static AeronException lastError(final String operation)
    {
        final int code = errcode();
        return new AeronException(code, operation + ": " + errmsg());
    }

    /** This thread's last aeronrs error as the driver's refusal of a registration. */
    public static AeronException lastRegistrationError(final String operation)
    {
        final int code = errcode();
        final String message = operation + ": " + errmsg();
        // Negative codes above the client's (-1000 ...) are the driver's control protocol codes.
        return code < 0 && code > AeronException.CLIENT_ERROR_DRIVER_TIMEOUT ?
            new RegistrationException(code, message) : new AeronException(code, message);
    }

    /** {@code result} if it is not negative, else throws this thread's last error. */
    public static int check(final String operation, final int result)
    {
        if (result < 0)
        {
            throw lastError(operation);
        }
        return result;
    }

    /** {@code result} if it is not negative, else throws this thread's last error. */
    public static long check(final String operation, final long result)
    {
        if (result < 0)
        {
            throw lastError(operation);
        }
        return result;
    }

    /** Clears this thread's error state, so that a later read is from a later failure. */
    public static void clear()
    {
        try
        {
            ERR_CLEAR.invokeExact();
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    static int errcode()
    {
        try
        {
            return (int)ERRCODE.invokeExact();
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    static String errmsg()
    {
        try
        {
            final MemorySegment message = (MemorySegment)ERRMSG.invokeExact();
            return message.reinterpret(MAX_MESSAGE_LENGTH).getString(0);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }
}
