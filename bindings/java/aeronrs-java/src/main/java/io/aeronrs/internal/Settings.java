package io.aeronrs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The settings of a Java context, kept until the native context is made and then applied
 * through the C setters ({@code aeron_context_set_*}, {@code aeron_driver_context_set_*}).
 * A value the C side refuses fails the launch with its error; the last value set for a
 * name wins; what is never set keeps the C default (environment variable or Aeron's).
 */
public final class Settings
{
    /** The C type of a setter's value argument. */
    public enum Kind
    {
        /** {@code int64_t}, {@code uint64_t} or {@code size_t}. */
        LONG(JAVA_LONG),
        /** {@code int32_t} or {@code uint32_t}. */
        INT(JAVA_INT),
        /** {@code bool}. */
        BOOLEAN(JAVA_BOOLEAN),
        /** {@code const char *}. */
        STRING(ADDRESS);

        final ValueLayout layout;

        Kind(final ValueLayout layout)
        {
            this.layout = layout;
        }
    }

    private record Value(Kind kind, Object value)
    {
    }

    private static final Map<String, MethodHandle> SETTERS = new ConcurrentHashMap<>();

    private final Map<String, Value> values = new LinkedHashMap<>();

    /** Records {@code value} for the C setter {@code function}. */
    public synchronized void set(final String function, final Kind kind, final Object value)
    {
        values.remove(function);
        values.put(function, new Value(kind, value));
    }

    /** The value recorded for {@code function}, or null. */
    public synchronized Object get(final String function)
    {
        final Value value = values.get(function);
        return null == value ? null : value.value();
    }

    /** Calls every recorded setter on {@code context}; throws the first refusal. */
    public synchronized void applyTo(final MemorySegment context)
    {
        try (Arena arena = Arena.ofConfined())
        {
            // An idle strategy is built from the init args set for it: those go first.
            final java.util.List<Map.Entry<String, Value>> ordered = new java.util.ArrayList<>(values.entrySet());
            ordered.sort(java.util.Comparator.comparing(entry -> !entry.getKey().endsWith("_init_args")));
            for (final Map.Entry<String, Value> entry : ordered)
            {
                final String function = entry.getKey();
                final Value value = entry.getValue();
                final MethodHandle setter = SETTERS.computeIfAbsent(function, name -> NativeLibrary.downcall(
                    name, FunctionDescriptor.of(JAVA_INT, ADDRESS, value.kind().layout)));
                final int result;
                try
                {
                    result = switch (value.kind())
                    {
                        case LONG -> (int)setter.invokeExact(context, (long)(Long)value.value());
                        case INT -> (int)setter.invokeExact(context, (int)(Integer)value.value());
                        case BOOLEAN -> (int)setter.invokeExact(context, (boolean)(Boolean)value.value());
                        case STRING -> (int)setter.invokeExact(context, Native.cString(arena, (String)value.value()));
                    };
                }
                catch (final Throwable t)
                {
                    throw Native.rethrow(t);
                }
                Errors.check(function + "(" + value.value() + ")", result);
            }
        }
    }
}
