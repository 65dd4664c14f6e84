package io.aeronrs.logbuffer;

import io.aeronrs.Publication;
import io.aeronrs.exceptions.AeronException;
import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Layouts;
import io.aeronrs.internal.Native;
import io.aeronrs.internal.NativeLibrary;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A frame claimed in a publication's log by {@link Publication#tryClaim}, written in place
 * and then {@link #commit() committed} or {@link #abort() aborted}
 * ({@code aeron_buffer_claim_t}). Reuse one per publishing thread: claiming does not
 * allocate.
 * <p>
 * {@link #buffer()} covers exactly the claimed payload, from {@link #offset()} (always 0)
 * for {@link #length()} bytes; after commit or abort it covers nothing, so a stale write
 * fails its bounds check instead of landing in the log.
 */
public final class BufferClaim
{
    private static final MethodHandle COMMIT = NativeLibrary.criticalDowncall(
        "aeron_buffer_claim_commit", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle ABORT = NativeLibrary.criticalDowncall(
        "aeron_buffer_claim_abort", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final long FRAME_HEADER = Layouts.offset(Layouts.BUFFER_CLAIM, "frame_header");
    private static final long DATA = Layouts.offset(Layouts.BUFFER_CLAIM, "data");
    private static final long LENGTH = Layouts.offset(Layouts.BUFFER_CLAIM, "length");
    // Aeron data header: flags at byte 5, type at 6, reserved value at 24 (little-endian).
    private static final int FLAGS_OFFSET = 5;
    private static final int RESERVED_VALUE_OFFSET = 24;
    private static final int HEADER_LENGTH = 32;

    private final MemorySegment claim = Arena.ofAuto().allocate(Layouts.BUFFER_CLAIM);
    private final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer header = new UnsafeBuffer(0, 0);
    private Publication publication;

    /** The native claim for {@code try_claim} to fill. For the library's own use. */
    public MemorySegment nativeClaim()
    {
        return claim;
    }

    /** Called by the publication after a successful {@code try_claim}. For the library's own use. */
    public void claimed(final Publication publication)
    {
        this.publication = publication;
        final int length = (int)claim.get(ValueLayout.JAVA_LONG, LENGTH);
        buffer.wrap(claim.get(ValueLayout.JAVA_LONG, DATA), length);
        header.wrap(claim.get(ValueLayout.JAVA_LONG, FRAME_HEADER), HEADER_LENGTH);
    }

    /** The claimed payload: write from {@link #offset()} for {@link #length()} bytes. */
    public MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /** Where the payload starts in {@link #buffer()}: 0. */
    public int offset()
    {
        return 0;
    }

    /** The claimed payload length (0 when nothing is claimed). */
    public int length()
    {
        return buffer.capacity();
    }

    /** Copies {@code length} bytes of {@code source} from {@code sourceIndex} to the start of the claim. */
    public BufferClaim putBytes(final DirectBuffer source, final int sourceIndex, final int length)
    {
        buffer.putBytes(0, source, sourceIndex, length);
        return this;
    }

    /** Sets the frame's reserved value (the 8 bytes subscribers read with {@link Header#reservedValue()}). */
    public BufferClaim reservedValue(final long value)
    {
        header.putLong(RESERVED_VALUE_OFFSET, value, ByteOrder.LITTLE_ENDIAN);
        return this;
    }

    /** The frame's flags (begin and end of message: {@code 0xC0} for an unfragmented one). */
    public byte flags()
    {
        return header.getByte(FLAGS_OFFSET);
    }

    /** Sets the frame's flags. */
    public BufferClaim flags(final byte flags)
    {
        header.putByte(FLAGS_OFFSET, flags);
        return this;
    }

    /** Publishes the claimed frame to subscribers. */
    public void commit()
    {
        finish(COMMIT, "commit");
    }

    /** Turns the claimed frame into padding that subscribers skip. */
    public void abort()
    {
        finish(ABORT, "abort");
    }

    private void finish(final MethodHandle call, final String operation)
    {
        if (null == publication)
        {
            throw new AeronException(AeronException.EPERM, "BufferClaim." + operation + ": nothing is claimed");
        }
        final Publication claimedFrom = publication;
        publication = null;
        buffer.wrap(0, 0);
        header.wrap(0, 0);
        if (claimedFrom.isClosed())
        {
            // The log may be unmapped once the publication's linger ends: leave it alone.
            throw new AeronException(AeronException.EPERM, "BufferClaim." + operation + ": the publication is closed");
        }
        try
        {
            Errors.check("aeron_buffer_claim_" + operation, (int)call.invokeExact(claim));
        }
        catch (final AeronException e)
        {
            throw e;
        }
        catch (final Throwable t)
        {
            throw Native.rethrow(t);
        }
    }
}
