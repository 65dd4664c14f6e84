package io.aeronrs.internal;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The C structs of aeronc.h that cross the boundary by value, laid out as the C compiler
 * lays them out on LP64 (pointers and {@code size_t} 8 bytes).
 */
public final class Layouts
{
    private Layouts()
    {
    }

    /** {@code aeron_publication_constants_t}. */
    public static final StructLayout PUBLICATION_CONSTANTS = MemoryLayout.structLayout(
        ADDRESS.withName("channel"),
        JAVA_LONG.withName("original_registration_id"),
        JAVA_LONG.withName("registration_id"),
        JAVA_LONG.withName("max_possible_position"),
        JAVA_LONG.withName("position_bits_to_shift"),
        JAVA_LONG.withName("term_buffer_length"),
        JAVA_LONG.withName("max_message_length"),
        JAVA_LONG.withName("max_payload_length"),
        JAVA_INT.withName("stream_id"),
        JAVA_INT.withName("session_id"),
        JAVA_INT.withName("initial_term_id"),
        JAVA_INT.withName("publication_limit_counter_id"),
        JAVA_INT.withName("channel_status_indicator_id"),
        MemoryLayout.paddingLayout(4));

    /** {@code aeron_subscription_constants_t}. */
    public static final StructLayout SUBSCRIPTION_CONSTANTS = MemoryLayout.structLayout(
        ADDRESS.withName("channel"),
        ADDRESS.withName("on_available_image"),
        ADDRESS.withName("on_unavailable_image"),
        JAVA_LONG.withName("registration_id"),
        JAVA_INT.withName("stream_id"),
        JAVA_INT.withName("channel_status_indicator_id"));

    /** {@code aeron_image_constants_t}. */
    public static final StructLayout IMAGE_CONSTANTS = MemoryLayout.structLayout(
        ADDRESS.withName("subscription"),
        ADDRESS.withName("source_identity"),
        JAVA_LONG.withName("correlation_id"),
        JAVA_LONG.withName("join_position"),
        JAVA_LONG.withName("position_bits_to_shift"),
        JAVA_LONG.withName("term_buffer_length"),
        JAVA_LONG.withName("mtu_length"),
        JAVA_INT.withName("session_id"),
        JAVA_INT.withName("initial_term_id"),
        JAVA_INT.withName("subscriber_position_id"),
        MemoryLayout.paddingLayout(4));

    /** {@code aeronrs_image_log_t}. */
    public static final StructLayout IMAGE_LOG = MemoryLayout.structLayout(
        ADDRESS.withName("terms"),
        JAVA_LONG.withName("term_length"),
        JAVA_LONG.withName("log_length"),
        ADDRESS.withName("subscriber_position"),
        ADDRESS.withName("is_closed"),
        JAVA_INT.withName("initial_term_id"),
        JAVA_INT.withName("position_bits_to_shift"));

    /** {@code aeron_counter_constants_t}. */
    public static final StructLayout COUNTER_CONSTANTS = MemoryLayout.structLayout(
        JAVA_LONG.withName("registration_id"),
        JAVA_INT.withName("counter_id"),
        MemoryLayout.paddingLayout(4));

    /** {@code aeron_buffer_claim_t}. */
    public static final StructLayout BUFFER_CLAIM = MemoryLayout.structLayout(
        ADDRESS.withName("frame_header"),
        ADDRESS.withName("data"),
        JAVA_LONG.withName("length"));

    /** {@code aeron_iovec_t}. */
    public static final StructLayout IOVEC = MemoryLayout.structLayout(
        ADDRESS.withName("iov_base"),
        JAVA_LONG.withName("iov_len"));

    /** {@code aeron_counters_reader_buffers_t}. */
    public static final StructLayout COUNTERS_READER_BUFFERS = MemoryLayout.structLayout(
        ADDRESS.withName("values"),
        ADDRESS.withName("metadata"),
        JAVA_LONG.withName("values_length"),
        JAVA_LONG.withName("metadata_length"));

    /** The byte offset of field {@code name} in {@code layout}. */
    public static long offset(final StructLayout layout, final String name)
    {
        return layout.byteOffset(PathElement.groupElement(name));
    }
}
