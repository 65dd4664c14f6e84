package io.aeronrs;

import io.aeronrs.exceptions.AeronException;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;
import io.aeronrs.internal.PublicationCalls;
import org.agrona.DirectBuffer;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A publication only one thread offers to (the C client's exclusive term appender: no
 * compare-and-set on the tail). From {@link Aeron#addExclusivePublication}; each has its own
 * session.
 */
public final class ExclusivePublication extends Publication
{
    private static final PublicationCalls CALLS = PublicationCalls.of("aeron_exclusive_publication_");
    private static final MethodHandle OFFER = CALLS.offer();
    private static final MethodHandle OFFER_SEGMENT = CALLS.offerSegment();
    private static final MethodHandle OFFERV = CALLS.offerv();
    private static final MethodHandle TRY_CLAIM = CALLS.tryClaim();
    private static final MethodHandle POSITION = CALLS.position();
    private static final MethodHandle POSITION_LIMIT = CALLS.positionLimit();
    private static final MethodHandle IS_CONNECTED = CALLS.isConnected();
    private static final MethodHandle OFFER_BLOCK = NativeLibrary.criticalDowncall(
        "aeron_exclusive_publication_offer_block", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle APPEND_PADDING = NativeLibrary.criticalDowncall(
        "aeron_exclusive_publication_append_padding", FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG));

    ExclusivePublication(final Aeron aeron, final MemorySegment handle, final MemorySegment constants)
    {
        super(aeron, handle, constants);
    }

    static PublicationCalls calls()
    {
        return CALLS;
    }

    @Override
    long nativeOffer(final long address, final long length)
    {
        try
        {
            return (long)OFFER.invokeExact(handle, address, length, MemorySegment.NULL, MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    long nativeOffer(final MemorySegment segment, final long length)
    {
        try
        {
            return (long)OFFER_SEGMENT.invokeExact(handle, segment, length, MemorySegment.NULL, MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    long nativeOfferWithSupplier(final long address, final long length, final MemorySegment supplier)
    {
        try
        {
            return (long)CALLS.offerWithSupplier().invokeExact(handle, address, length, supplier, MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    long nativeOfferVector(final MemorySegment iovecs, final long count)
    {
        try
        {
            return (long)OFFERV.invokeExact(handle, iovecs, count, MemorySegment.NULL, MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    long nativeTryClaim(final long length, final MemorySegment claim)
    {
        try
        {
            return (long)TRY_CLAIM.invokeExact(handle, length, claim);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    long nativePosition()
    {
        try
        {
            return (long)POSITION.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    long nativePositionLimit()
    {
        try
        {
            return (long)POSITION_LIMIT.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    boolean nativeIsConnected()
    {
        try
        {
            return (boolean)IS_CONNECTED.invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    long nativeChannelStatus()
    {
        try
        {
            return (long)CALLS.channelStatus().invokeExact(handle);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    void nativeClose()
    {
        try
        {
            final int ignored = (int)CALLS.close().invokeExact(handle, MemorySegment.NULL, MemorySegment.NULL);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    int nativeLocalSocketAddresses(final MemorySegment iovecs, final long count)
    {
        try
        {
            return (int)CALLS.localSockaddrs().invokeExact(handle, iovecs, count);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    int nativeAsyncDestination(final MemorySegment asyncOut, final MemorySegment uri, final boolean add)
    {
        try
        {
            final MethodHandle call = add ? CALLS.asyncAddDestination() : CALLS.asyncRemoveDestination();
            return (int)call.invokeExact(asyncOut, aeron.handle(), handle, uri);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    @Override
    int nativeAsyncRemoveDestinationById(final MemorySegment asyncOut, final long destinationRegistrationId)
    {
        try
        {
            return (int)CALLS.asyncRemoveDestinationById().invokeExact(
                asyncOut, aeron.handle(), handle, destinationRegistrationId);
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Appends {@code length} bytes of whole, well-formed frames (headers included, as a
     * block poll delivers them) from {@code buffer} at {@code offset} to the current term.
     *
     * @return the new position, or a negative result.
     */
    public long offerBlock(final DirectBuffer buffer, final int offset, final int length)
    {
        if (closed)
        {
            return CLOSED;
        }
        buffer.boundsCheck(offset, length);
        if (null != buffer.byteArray())
        {
            throw new AeronException(AeronException.EINVAL, "offerBlock takes off-heap buffers only");
        }
        try
        {
            return checkOfferResult(
                (long)OFFER_BLOCK.invokeExact(handle, buffer.addressOffset() + offset, (long)length), "offerBlock");
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }

    /**
     * Appends a padding frame with a body of {@code length} bytes, which subscribers skip.
     *
     * @return the new position, or a negative result.
     */
    public long appendPadding(final int length)
    {
        if (closed)
        {
            return CLOSED;
        }
        try
        {
            return checkOfferResult((long)APPEND_PADDING.invokeExact(handle, (long)length), "appendPadding");
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }
}
