// C helpers of the Go binding: callbacks that hand events to Go (found by an id, never a Go
// pointer), offers whose parts arrive as arguments (so no Go pointer is stored in C
// memory), and a ring buffer read that copies a batch of messages in one call.
#ifndef AERONRS_GO_SHIM_H
#define AERONRS_GO_SHIM_H

#include <stdint.h>
#include <aeronc.h>
#include <aeronrs.h>

void aeronrs_go_on_available_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image);
void aeronrs_go_on_unavailable_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image);
void aeronrs_go_on_error(void *clientd, int errcode, const char *message);

int aeronrs_go_async_add_subscription(
    aeron_async_add_subscription_t **async, aeron_t *client, const char *uri, int32_t stream_id,
    uintptr_t callbacks_id, int with_available, int with_unavailable);
int aeronrs_go_context_set_error_handler(aeron_context_t *context, uintptr_t id);
void aeronrs_go_counters_foreach(aeron_counters_reader_t *reader, uintptr_t id);

int64_t aeronrs_go_publication_offer_parts(
    aeron_publication_t *publication, size_t count,
    const uint8_t *b0, size_t l0, const uint8_t *b1, size_t l1,
    const uint8_t *b2, size_t l2, const uint8_t *b3, size_t l3);
int64_t aeronrs_go_exclusive_publication_offer_parts(
    aeron_exclusive_publication_t *publication, size_t count,
    const uint8_t *b0, size_t l0, const uint8_t *b1, size_t l1,
    const uint8_t *b2, size_t l2, const uint8_t *b3, size_t l3);
int64_t aeronrs_go_publication_offer_reserved(
    aeron_publication_t *publication, const uint8_t *buffer, size_t length, int64_t reserved_value);
int64_t aeronrs_go_exclusive_publication_offer_reserved(
    aeron_exclusive_publication_t *publication, const uint8_t *buffer, size_t length, int64_t reserved_value);

// What a batch offer did: how many messages were offered, and the last offer's result (a
// position, or the refusal that stopped the batch). Returned by value, so the Go caller
// passes no pointer to its own memory (which would make it escape to the heap).
typedef struct aeronrs_go_offer_batch_result_stct
{
    size_t offered;
    int64_t result;
}
aeronrs_go_offer_batch_result_t;

// Offers `count` messages laid end to end in `buffer` (message i is `lengths[i]` bytes), in
// order, stopping at the first that is not accepted.
aeronrs_go_offer_batch_result_t aeronrs_go_publication_offer_batch(
    aeron_publication_t *publication, const uint8_t *buffer, const uint32_t *lengths, size_t count);
aeronrs_go_offer_batch_result_t aeronrs_go_exclusive_publication_offer_batch(
    aeron_exclusive_publication_t *publication, const uint8_t *buffer, const uint32_t *lengths, size_t count);

// One message copied out of a ring buffer: its type and where its bytes are in the arena.
typedef struct aeronrs_go_rb_message_stct
{
    int32_t msg_type_id;
    uint32_t length;
    size_t offset;
}
aeronrs_go_rb_message_t;

// The arena and message array one batch read fills (C memory, owned by the Go RingBuffer).
typedef struct aeronrs_go_rb_batch_stct
{
    uint8_t *arena;
    size_t arena_length;
    size_t used;
    aeronrs_go_rb_message_t *messages;
    size_t capacity;
    size_t count;
}
aeronrs_go_rb_batch_t;

int aeronrs_go_ring_buffer_read_batch(aeronrs_ring_buffer_t *rb, aeronrs_go_rb_batch_t *batch, size_t limit);

#endif
