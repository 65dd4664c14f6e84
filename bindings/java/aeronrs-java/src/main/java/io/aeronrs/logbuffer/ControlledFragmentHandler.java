package io.aeronrs.logbuffer;

import org.agrona.DirectBuffer;

/**
 * Receives the fragments of a controlled poll and says what to do with each, as
 * {@code io.aeron.logbuffer.ControlledFragmentHandler}.
 */
@FunctionalInterface
public interface ControlledFragmentHandler
{
    /** What the poll does with a fragment. */
    enum Action
    {
        /** Not consumed: stop polling this image; the fragment is delivered again by the next poll. */
        ABORT,
        /** Consumed: stop polling this image. */
        BREAK,
        /** Consumed: move the subscriber position past it now (flow control sees it), and go on. */
        COMMIT,
        /** Consumed: go on; the position moves when the poll of this image ends. */
        CONTINUE
    }

    /** As {@link FragmentHandler#onFragment}, returning the {@link Action}. */
    Action onFragment(DirectBuffer buffer, int offset, int length, Header header);
}
