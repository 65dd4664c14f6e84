package io.aeronrs.bus;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A record read by {@link MappedBusReader#poll}: reused for every poll (no allocation); its
 * body is valid until the next poll or close of the reader.
 */
public final class MappedBusRecord
{
    final UnsafeBuffer body = new UnsafeBuffer(0, 0);
    int metadata;
    long segment;
    long offset;

    /** The body: the whole record body in fixed-size mode, the payload in variable-length mode. */
    public DirectBuffer body()
    {
        return body;
    }

    /** Body length. */
    public int length()
    {
        return body.capacity();
    }

    /** The message type of a typed message, or the payload length of a byte message. */
    public int metadata()
    {
        return metadata;
    }

    /** The segment index of the record. */
    public long segment()
    {
        return segment;
    }

    /** The byte offset of the record in its segment. */
    public long offset()
    {
        return offset;
    }
}
