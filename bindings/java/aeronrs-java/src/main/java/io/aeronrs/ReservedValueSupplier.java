package io.aeronrs;

import org.agrona.DirectBuffer;

/**
 * Supplies the reserved value of each frame of a message being offered, as
 * {@code io.aeron.ReservedValueSupplier}; called on the offering thread, from inside the C
 * offer (one call from C into Java per frame), after the payload is copied and before the
 * frame is published.
 */
@FunctionalInterface
public interface ReservedValueSupplier
{
    /**
     * @param termBuffer  the frame (header and payload) in the log.
     * @param termOffset  where the frame starts in {@code termBuffer} (0 here).
     * @param frameLength the frame's length, header included.
     * @return the frame's reserved value.
     */
    long get(DirectBuffer termBuffer, int termOffset, int frameLength);
}
