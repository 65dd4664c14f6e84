package io.aeronrs;

import io.aeronrs.internal.Errors;
import io.aeronrs.internal.Layouts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Reads an endpoint's bound addresses through {@code aeron_*_local_sockaddrs}. */
final class LocalAddresses
{
    /** {@code [ipv6]:port} fits easily. */
    private static final int ADDRESS_LENGTH = 64;

    @FunctionalInterface
    interface Call
    {
        int call(MemorySegment iovecs, long count);
    }

    private LocalAddresses()
    {
    }

    static List<String> read(final Call call)
    {
        int capacity = 4;
        while (true)
        {
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment iovecs = arena.allocate(Layouts.IOVEC, capacity);
                final MemorySegment text = arena.allocate((long)ADDRESS_LENGTH * capacity);
                for (int i = 0; i < capacity; i++)
                {
                    iovecs.set(ValueLayout.ADDRESS, i * 16L, text.asSlice((long)i * ADDRESS_LENGTH, ADDRESS_LENGTH));
                    iovecs.set(ValueLayout.JAVA_LONG, i * 16L + 8, ADDRESS_LENGTH);
                }
                final int count = Errors.check("local socket addresses", call.call(iovecs, capacity));
                if (count <= capacity)
                {
                    final List<String> addresses = new ArrayList<>(count);
                    for (int i = 0; i < count; i++)
                    {
                        addresses.add(text.getString((long)i * ADDRESS_LENGTH));
                    }
                    return addresses;
                }
                capacity = count;
            }
        }
    }
}
