package io.aeronrs;

import io.aeronrs.internal.MessageBuilder;
import io.aeronrs.logbuffer.ControlledFragmentHandler;
import io.aeronrs.logbuffer.Header;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * Reassembles fragmented messages for a {@link ControlledFragmentHandler}, as
 * {@code io.aeron.ControlledFragmentAssembler}: pass it to {@link Subscription#controlledPoll}.
 * Every part but the last is consumed (CONTINUE) as it is collected; the delegate's action
 * on the whole message applies to its last fragment. ABORT keeps the parts collected so
 * far, so that the last fragment, delivered again by the next poll, completes the message
 * again.
 */
public final class ControlledFragmentAssembler implements ControlledFragmentHandler
{
    private final ControlledFragmentHandler delegate;
    private final int initialBufferLength;
    private final Int2ObjectHashMap<MessageBuilder> builderBySessionId = new Int2ObjectHashMap<>();

    /** @param delegate receives whole messages. */
    public ControlledFragmentAssembler(final ControlledFragmentHandler delegate)
    {
        this(delegate, 0);
    }

    /**
     * @param delegate            receives whole messages.
     * @param initialBufferLength bytes each session's builder starts with.
     */
    public ControlledFragmentAssembler(final ControlledFragmentHandler delegate, final int initialBufferLength)
    {
        this.delegate = delegate;
        this.initialBufferLength = initialBufferLength;
    }

    /** The handler whole messages go to. */
    public ControlledFragmentHandler delegate()
    {
        return delegate;
    }

    @Override
    public Action onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final byte flags = header.flags();
        if ((flags & Header.UNFRAGMENTED) == Header.UNFRAGMENTED)
        {
            return delegate.onFragment(buffer, offset, length, header);
        }
        final int sessionId = header.sessionId();
        if ((flags & Header.BEGIN_FRAG_FLAG) == Header.BEGIN_FRAG_FLAG)
        {
            MessageBuilder builder = builderBySessionId.get(sessionId);
            if (null == builder)
            {
                builder = new MessageBuilder(initialBufferLength);
                builderBySessionId.put(sessionId, builder);
            }
            builder.reset();
            builder.append(buffer, offset, length);
            builder.nextTermOffset(header.nextTermOffset());
            return Action.CONTINUE;
        }
        final MessageBuilder builder = builderBySessionId.get(sessionId);
        if (null == builder || builder.nextTermOffset() != header.termOffset())
        {
            if (null != builder)
            {
                builder.reset();
            }
            return Action.CONTINUE;
        }
        final int before = builder.limit();
        builder.append(buffer, offset, length);
        if ((flags & Header.END_FRAG_FLAG) != Header.END_FRAG_FLAG)
        {
            builder.nextTermOffset(header.nextTermOffset());
            return Action.CONTINUE;
        }
        header.fragmentedFrameLength(Header.HEADER_LENGTH + builder.limit());
        final Action action;
        try
        {
            action = delegate.onFragment(builder.buffer(), 0, builder.limit(), header);
        }
        catch (final RuntimeException | Error e)
        {
            // The poll does not consume a fragment its handler threw on: as ABORT.
            builder.limit(before);
            throw e;
        }
        if (action == Action.ABORT)
        {
            // Delivered again by the next poll, at the same term offset.
            builder.limit(before);
        }
        else
        {
            builder.reset();
        }
        return action;
    }

    /** Forgets the partial message of {@code sessionId}. */
    public void freeSessionBuffer(final int sessionId)
    {
        builderBySessionId.remove(sessionId);
    }
}
