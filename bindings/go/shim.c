// See shim.h.
#include <string.h>
#include "shim.h"
#include "_cgo_export.h"

void aeronrs_go_on_available_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image)
{
    (void)subscription;
    goOnImage((uintptr_t)clientd, 1, image);
}

void aeronrs_go_on_unavailable_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image)
{
    (void)subscription;
    goOnImage((uintptr_t)clientd, 0, image);
}

void aeronrs_go_on_error(void *clientd, int errcode, const char *message)
{
    goOnError((uintptr_t)clientd, errcode, (char *)message);
}

int aeronrs_go_async_add_subscription(
    aeron_async_add_subscription_t **async, aeron_t *client, const char *uri, int32_t stream_id,
    uintptr_t callbacks_id, int with_available, int with_unavailable)
{
    return aeron_async_add_subscription(
        async, client, uri, stream_id,
        with_available ? aeronrs_go_on_available_image : NULL, (void *)callbacks_id,
        with_unavailable ? aeronrs_go_on_unavailable_image : NULL, (void *)callbacks_id);
}

int aeronrs_go_context_set_error_handler(aeron_context_t *context, uintptr_t id)
{
    return aeron_context_set_error_handler(context, aeronrs_go_on_error, (void *)id);
}

static void aeronrs_go_on_counter(
    int64_t value, int32_t id, int32_t type_id, const uint8_t *key, size_t key_length,
    const char *label, size_t label_length, void *clientd)
{
    goOnCounter((uintptr_t)clientd, value, id, type_id, (uint8_t *)key, key_length, (char *)label, label_length);
}

void aeronrs_go_counters_foreach(aeron_counters_reader_t *reader, uintptr_t id)
{
    aeron_counters_reader_foreach_counter(reader, aeronrs_go_on_counter, (void *)id);
}

static size_t aeronrs_go_parts(
    aeron_iovec_t *parts, size_t count,
    const uint8_t *b0, size_t l0, const uint8_t *b1, size_t l1,
    const uint8_t *b2, size_t l2, const uint8_t *b3, size_t l3)
{
    const uint8_t *bases[4] = { b0, b1, b2, b3 };
    size_t lengths[4] = { l0, l1, l2, l3 };
    size_t n = count < 4 ? count : 4;
    for (size_t i = 0; i < n; i++)
    {
        parts[i].iov_base = (uint8_t *)bases[i];
        parts[i].iov_len = lengths[i];
    }
    return n;
}

int64_t aeronrs_go_publication_offer_parts(
    aeron_publication_t *publication, size_t count,
    const uint8_t *b0, size_t l0, const uint8_t *b1, size_t l1,
    const uint8_t *b2, size_t l2, const uint8_t *b3, size_t l3)
{
    aeron_iovec_t parts[4];
    size_t n = aeronrs_go_parts(parts, count, b0, l0, b1, l1, b2, l2, b3, l3);
    return aeron_publication_offerv(publication, parts, n, NULL, NULL);
}

int64_t aeronrs_go_exclusive_publication_offer_parts(
    aeron_exclusive_publication_t *publication, size_t count,
    const uint8_t *b0, size_t l0, const uint8_t *b1, size_t l1,
    const uint8_t *b2, size_t l2, const uint8_t *b3, size_t l3)
{
    aeron_iovec_t parts[4];
    size_t n = aeronrs_go_parts(parts, count, b0, l0, b1, l1, b2, l2, b3, l3);
    return aeron_exclusive_publication_offerv(publication, parts, n, NULL, NULL);
}

// The supplier's clientd is the int64_t on the offering call's stack.
static int64_t aeronrs_go_reserved_value(void *clientd, uint8_t *buffer, size_t frame_length)
{
    (void)buffer;
    (void)frame_length;
    return *(const int64_t *)clientd;
}

int64_t aeronrs_go_publication_offer_reserved(
    aeron_publication_t *publication, const uint8_t *buffer, size_t length, int64_t reserved_value)
{
    return aeron_publication_offer(publication, buffer, length, aeronrs_go_reserved_value, &reserved_value);
}

int64_t aeronrs_go_exclusive_publication_offer_reserved(
    aeron_exclusive_publication_t *publication, const uint8_t *buffer, size_t length, int64_t reserved_value)
{
    return aeron_exclusive_publication_offer(
        publication, buffer, length, aeronrs_go_reserved_value, &reserved_value);
}

aeronrs_go_offer_batch_result_t aeronrs_go_publication_offer_batch(
    aeron_publication_t *publication, const uint8_t *buffer, const uint32_t *lengths, size_t count)
{
    aeronrs_go_offer_batch_result_t done = { 0, 0 };
    size_t offset = 0;
    for (; done.offered < count; done.offered++)
    {
        done.result = aeron_publication_offer(publication, buffer + offset, lengths[done.offered], NULL, NULL);
        if (done.result < 0)
        {
            break;
        }
        offset += lengths[done.offered];
    }
    return done;
}

aeronrs_go_offer_batch_result_t aeronrs_go_exclusive_publication_offer_batch(
    aeron_exclusive_publication_t *publication, const uint8_t *buffer, const uint32_t *lengths, size_t count)
{
    aeronrs_go_offer_batch_result_t done = { 0, 0 };
    size_t offset = 0;
    for (; done.offered < count; done.offered++)
    {
        done.result = aeron_exclusive_publication_offer(publication, buffer + offset, lengths[done.offered], NULL, NULL);
        if (done.result < 0)
        {
            break;
        }
        offset += lengths[done.offered];
    }
    return done;
}

// Copies a message into the batch, or leaves it unconsumed (ABORT) once the batch is full:
// a ring buffer's space is the producers' again when the read returns, so the bytes must
// be out of it by then.
static aeronrs_ring_buffer_action_t aeronrs_go_copy_message(
    void *clientd, int32_t msg_type_id, const uint8_t *buffer, size_t length)
{
    aeronrs_go_rb_batch_t *batch = (aeronrs_go_rb_batch_t *)clientd;
    if (batch->count >= batch->capacity || length > batch->arena_length - batch->used)
    {
        return AERONRS_RB_ABORT;
    }
    memcpy(batch->arena + batch->used, buffer, length);
    aeronrs_go_rb_message_t *message = &batch->messages[batch->count++];
    message->msg_type_id = msg_type_id;
    message->length = (uint32_t)length;
    message->offset = batch->used;
    // Keep each copy 8-byte aligned, as it was in the ring buffer.
    batch->used += (length + 7) & ~(size_t)7;
    if (batch->used > batch->arena_length)
    {
        batch->used = batch->arena_length;
    }
    return AERONRS_RB_CONTINUE;
}

int aeronrs_go_ring_buffer_read_batch(aeronrs_ring_buffer_t *rb, aeronrs_go_rb_batch_t *batch, size_t limit)
{
    batch->used = 0;
    batch->count = 0;
    return aeronrs_ring_buffer_controlled_read(rb, aeronrs_go_copy_message, batch, limit);
}
