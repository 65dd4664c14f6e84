package io.aeronrs;

import io.aeronrs.internal.Native;
import io.aeronrs.internal.PublicationCalls;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A publication any number of threads may offer to at once (the C client's concurrent
 * term appender). From {@link Aeron#addPublication}; several of them on one channel and
 * stream share the driver's publication and session.
 */
public final class ConcurrentPublication extends Publication
{
    private static final PublicationCalls CALLS = PublicationCalls.of("aeron_publication_");
    private static final MethodHandle OFFER = CALLS.offer();
    private static final MethodHandle OFFER_SEGMENT = CALLS.offerSegment();
    private static final MethodHandle OFFERV = CALLS.offerv();
    private static final MethodHandle TRY_CLAIM = CALLS.tryClaim();
    private static final MethodHandle POSITION = CALLS.position();
    private static final MethodHandle POSITION_LIMIT = CALLS.positionLimit();
    private static final MethodHandle IS_CONNECTED = CALLS.isConnected();

    ConcurrentPublication(final Aeron aeron, final MemorySegment handle, final MemorySegment constants)
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
}
