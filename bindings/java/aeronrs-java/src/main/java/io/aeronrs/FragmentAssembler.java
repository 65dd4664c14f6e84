package io.aeronrs;

import io.aeronrs.internal.MessageBuilder;
import io.aeronrs.logbuffer.FragmentHandler;
import io.aeronrs.logbuffer.Header;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;

/**
 * Reassembles fragmented messages for a {@link FragmentHandler}, as
 * {@code io.aeron.FragmentAssembler}: pass it to {@link Subscription#poll} and the delegate
 * sees whole messages. Parts are collected per session, in Java (the fragments come from
 * the batch poll, so no C upcall is involved); unfragmented messages go straight through.
 * A part that does not follow the previous one (a gap) drops the message being built.
 * The {@link Header} given with a reassembled message is its last fragment's, with
 * {@link Header#frameLength()} the whole message's length plus the header.
 */
public final class FragmentAssembler implements FragmentHandler
{
    private final FragmentHandler delegate;
    private final int initialBufferLength;
    private final Int2ObjectHashMap<MessageBuilder> builderBySessionId = new Int2ObjectHashMap<>();

    /** @param delegate receives whole messages. */
    public FragmentAssembler(final FragmentHandler delegate)
    {
        this(delegate, 0);
    }

    /**
     * @param delegate            receives whole messages.
     * @param initialBufferLength bytes each session's builder starts with.
     */
    public FragmentAssembler(final FragmentHandler delegate, final int initialBufferLength)
    {
        this.delegate = delegate;
        this.initialBufferLength = initialBufferLength;
    }

    /** The handler whole messages go to. */
    public FragmentHandler delegate()
    {
        return delegate;
    }

    @Override
    public void onFragment(final DirectBuffer buffer, final int offset, final int length, final Header header)
    {
        final byte flags = header.flags();
        if ((flags & Header.UNFRAGMENTED) == Header.UNFRAGMENTED)
        {
            delegate.onFragment(buffer, offset, length, header);
            return;
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
            return;
        }
        final MessageBuilder builder = builderBySessionId.get(sessionId);
        if (null == builder || builder.nextTermOffset() != header.termOffset())
        {
            if (null != builder)
            {
                builder.reset();
            }
            return;
        }
        builder.append(buffer, offset, length);
        if ((flags & Header.END_FRAG_FLAG) == Header.END_FRAG_FLAG)
        {
            final int messageLength = builder.limit();
            builder.reset();
            header.fragmentedFrameLength(Header.HEADER_LENGTH + messageLength);
            delegate.onFragment(builder.buffer(), 0, messageLength, header);
        }
        else
        {
            builder.nextTermOffset(header.nextTermOffset());
        }
    }

    /** Forgets the partial message of {@code sessionId} (e.g. when its image went away). */
    public void freeSessionBuffer(final int sessionId)
    {
        builderBySessionId.remove(sessionId);
    }

    /** Forgets every partial message. */
    public void clear()
    {
        builderBySessionId.clear();
    }
}
