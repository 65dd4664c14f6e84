package io.aeronrs.logbuffer;

import org.agrona.DirectBuffer;

/** Receives the fragments a poll delivers, as {@code io.aeron.logbuffer.FragmentHandler}. */
@FunctionalInterface
public interface FragmentHandler
{
    /**
     * @param buffer the fragment's payload, in the image's log (valid during the call only).
     * @param offset where the payload starts in {@code buffer}.
     * @param length payload bytes.
     * @param header the frame's header (valid during the call only).
     */
    void onFragment(DirectBuffer buffer, int offset, int length, Header header);
}
