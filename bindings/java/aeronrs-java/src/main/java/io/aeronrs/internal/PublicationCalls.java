package io.aeronrs.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The downcalls of one publication family: {@code aeron_publication_*} or
 * {@code aeron_exclusive_publication_*} (same signatures). Each publication class copies
 * these into its own {@code static final} fields, so the JIT sees constant handles.
 *
 * @param offer          offer with the buffer as a raw address (off-heap memory).
 * @param offerSegment   offer with the buffer as a segment (heap or native).
 */
public record PublicationCalls(
    MethodHandle offer,
    MethodHandle offerSegment,
    MethodHandle offerv,
    MethodHandle offerWithSupplier,
    MethodHandle tryClaim,
    MethodHandle position,
    MethodHandle positionLimit,
    MethodHandle isConnected,
    MethodHandle channelStatus,
    MethodHandle constants,
    MethodHandle close,
    MethodHandle localSockaddrs,
    MethodHandle asyncAddDestination,
    MethodHandle asyncRemoveDestination,
    MethodHandle asyncRemoveDestinationById)
{
    /** Binds the functions named {@code prefix + "offer"} and so on. */
    public static PublicationCalls of(final String prefix)
    {
        // On LP64 a pointer argument is passed as a 64-bit integer, so a raw address can
        // go as JAVA_LONG: no segment object per call.
        return new PublicationCalls(
            NativeLibrary.criticalDowncall(prefix + "offer",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS)),
            NativeLibrary.criticalDowncall(prefix + "offer",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS)),
            NativeLibrary.criticalDowncall(prefix + "offerv",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS)),
            // Not critical: the reserved value supplier calls back into Java.
            NativeLibrary.downcall(prefix + "offer",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS)),
            NativeLibrary.criticalDowncall(prefix + "try_claim",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS)),
            NativeLibrary.criticalDowncall(prefix + "position", FunctionDescriptor.of(JAVA_LONG, ADDRESS)),
            NativeLibrary.criticalDowncall(prefix + "position_limit", FunctionDescriptor.of(JAVA_LONG, ADDRESS)),
            NativeLibrary.criticalDowncall(prefix + "is_connected", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS)),
            NativeLibrary.downcall(prefix + "channel_status", FunctionDescriptor.of(JAVA_LONG, ADDRESS)),
            NativeLibrary.downcall(prefix + "constants", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)),
            NativeLibrary.downcall(prefix + "close", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)),
            NativeLibrary.downcall(prefix + "local_sockaddrs",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG)),
            NativeLibrary.downcall(prefix + "async_add_destination",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS)),
            NativeLibrary.downcall(prefix + "async_remove_destination",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS)),
            NativeLibrary.downcall(prefix + "async_remove_destination_by_id",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG)));
    }
}
