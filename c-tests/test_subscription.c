/* Subscriptions and images through aeronc.h: image handlers (with the subscription they
 * belong to), poll, controlled poll, block poll, every aeron_image_* function (positions,
 * bounded and controlled polls, peek, end of stream), retained images, header accessors
 * and their image context, and close with the unavailable-image handler. */
#include "client_support.h"

_Static_assert(sizeof(aeron_header_values_frame_t) == 32, "frame header is 32 bytes");
_Static_assert(sizeof(aeron_header_values_t) == 44, "header values are packed to 4");
_Static_assert(offsetof(aeron_header_values_t, initial_term_id) == 32, "initial_term_id offset");
_Static_assert(offsetof(aeron_header_values_t, position_bits_to_shift) == 36, "position_bits_to_shift offset");
_Static_assert(offsetof(aeron_header_values_frame_t, reserved_value) == 24, "reserved_value offset");
_Static_assert(sizeof(aeron_publication_error_values_t) == 72, "error values are packed to 4");
_Static_assert(offsetof(aeron_publication_error_values_t, error_message) == 68, "error_message offset");
_Static_assert(AERON_ACTION_ABORT == 1 && AERON_ACTION_CONTINUE == 4, "action values");

typedef struct
{
    int available;
    int unavailable;
    aeron_subscription_t *subscription_seen;
    aeron_image_t *image;
    int64_t registration_id_seen;
}
images_seen_t;

static void on_available_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image)
{
    images_seen_t *seen = (images_seen_t *)clientd;
    aeron_subscription_constants_t constants;
    CHECK_EQ_LL(aeron_subscription_constants(subscription, &constants), 0);
    seen->registration_id_seen = constants.registration_id;
    seen->subscription_seen = subscription;
    seen->image = image;
    /* Kept past its unavailability (and the linger period) until released below. */
    CHECK_EQ_LL(aeron_subscription_image_retain(subscription, image), 0);
    seen->available++;
}

static void on_unavailable_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image)
{
    images_seen_t *seen = (images_seen_t *)clientd;
    CHECK(subscription == seen->subscription_seen);
    CHECK(image == seen->image);
    seen->unavailable++;
}

typedef struct
{
    int count;
    char text[32][16];
    aeron_image_t *contexts[32];
    int abort_at;
    int break_at;
    int commit_at;
}
fragments_t;

static void record(fragments_t *f, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    CHECK(f->count < 32);
    size_t copy = length < 15 ? length : 15;
    memcpy(f->text[f->count], buffer, copy);
    f->text[f->count][copy] = '\0';
    f->contexts[f->count] = (aeron_image_t *)aeron_header_context(header);
    f->count++;
}

static void on_fragment(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    record((fragments_t *)clientd, buffer, length, header);
}

static aeron_controlled_fragment_handler_action_t on_controlled_fragment(
    void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    fragments_t *f = (fragments_t *)clientd;
    int index = f->count;
    if (index == f->abort_at)
    {
        f->abort_at = -1; /* once */
        return AERON_ACTION_ABORT;
    }
    record(f, buffer, length, header);
    if (index == f->break_at)
    {
        return AERON_ACTION_BREAK;
    }
    return index == f->commit_at ? AERON_ACTION_COMMIT : AERON_ACTION_CONTINUE;
}

typedef struct
{
    size_t bytes;
    int calls;
    int32_t session_id;
}
blocks_t;

static void on_block(void *clientd, const uint8_t *buffer, size_t length, int32_t session_id, int32_t term_id)
{
    blocks_t *b = (blocks_t *)clientd;
    (void)term_id;
    int32_t first_frame_length;
    memcpy(&first_frame_length, buffer, 4);
    CHECK(first_frame_length > 32);
    b->bytes += length;
    b->calls++;
    b->session_id = session_id;
}

static void count_image(aeron_image_t *image, void *clientd)
{
    CHECK(image != NULL);
    (*(int *)clientd)++;
}

static void offer_text(aeron_publication_t *publication, const char *text)
{
    offer_message(publication, text, strlen(text));
}

static void subscription_and_images(void)
{
    test_env_t env;
    setup(&env, "subscription");
    images_seen_t seen;
    memset(&seen, 0, sizeof(seen));
    aeron_subscription_t *subscription =
        add_subscription_with_handlers(env.client, IPC, 3, on_available_image, on_unavailable_image, &seen);
    CHECK(!aeron_subscription_is_connected(subscription));
    CHECK_EQ_LL(aeron_subscription_image_count(subscription), 0);
    aeron_subscription_constants_t constants;
    CHECK_EQ_LL(aeron_subscription_constants(subscription, &constants), 0);
    CHECK(strcmp(constants.channel, IPC) == 0);
    CHECK_EQ_LL(constants.stream_id, 3);
    CHECK(constants.on_available_image == on_available_image);
    CHECK(constants.on_unavailable_image == on_unavailable_image);
    CHECK(constants.registration_id > 0);
    CHECK_EQ_LL(aeron_subscription_channel_status(subscription), 1);

    aeron_publication_t *publication = add_publication(env.client, IPC, 3);
    WAIT_FOR(seen.available == 1, sleep_ms(1));
    CHECK(seen.subscription_seen == subscription);
    CHECK_EQ_LL(seen.registration_id_seen, constants.registration_id);
    CHECK(aeron_subscription_is_connected(subscription));
    CHECK_EQ_LL(aeron_subscription_image_count(subscription), 1);
    aeron_image_t *image = seen.image;

    aeron_image_constants_t image_constants;
    CHECK_EQ_LL(aeron_image_constants(image, &image_constants), 0);
    int32_t session_id = aeron_publication_session_id(publication);
    CHECK_EQ_LL(image_constants.session_id, session_id);
    CHECK(strcmp(image_constants.source_identity, "aeron:ipc") == 0);
    CHECK_EQ_LL(image_constants.join_position, 0);
    CHECK_EQ_LL(image_constants.term_buffer_length, TERM_LENGTH);
    CHECK_EQ_LL(image_constants.position_bits_to_shift, 16);
    CHECK_EQ_LL(image_constants.mtu_length, 1408);
    CHECK(image_constants.subscriber_position_id >= 0);
    CHECK_EQ_LL(aeron_image_active_transport_count(image), 0);
    CHECK(!aeron_image_is_closed(image));
    CHECK(!aeron_image_is_end_of_stream(image));
    CHECK_EQ_LL(aeron_image_end_of_stream_position(image), INT64_MAX);

    /* Retained images by session id and index; for_each_image. */
    aeron_image_t *by_session = aeron_subscription_image_by_session_id(subscription, session_id);
    CHECK(by_session == image);
    CHECK(aeron_subscription_image_by_session_id(subscription, session_id + 1) == NULL);
    aeron_image_t *by_index = aeron_subscription_image_at_index(subscription, 0);
    CHECK(by_index == image);
    CHECK(aeron_subscription_image_at_index(subscription, 1) == NULL);
    CHECK_EQ_LL(aeron_subscription_image_release(subscription, by_session), 0);
    CHECK_EQ_LL(aeron_subscription_image_release(subscription, by_index), 0);
    CHECK_EQ_LL(aeron_subscription_image_retain(subscription, image), 0);
    CHECK_EQ_LL(aeron_subscription_image_release(subscription, image), 0);
    int images = 0;
    aeron_subscription_for_each_image(subscription, count_image, &images);
    CHECK_EQ_LL(images, 1);

    /* Subscription poll: every fragment, with its image as the header context. */
    const char *texts[] = { "m0", "m1", "m2", "m3", "m4", "m5" };
    for (int i = 0; i < 6; i++)
    {
        offer_text(publication, texts[i]);
    }
    fragments_t f;
    memset(&f, 0, sizeof(f));
    f.abort_at = f.break_at = f.commit_at = -1;
    CHECK_EQ_LL(aeron_subscription_poll(subscription, on_fragment, &f, 2), 2);
    CHECK(strcmp(f.text[0], "m0") == 0 && strcmp(f.text[1], "m1") == 0);
    CHECK(f.contexts[0] == image);
    CHECK_EQ_LL(aeron_image_position(image), 128);

    /* Controlled poll: ABORT leaves m2 for later; BREAK after m3 stops; COMMIT stores. */
    f.abort_at = 2;
    CHECK_EQ_LL(aeron_subscription_controlled_poll(subscription, on_controlled_fragment, &f, 10), 0);
    CHECK_EQ_LL(aeron_image_position(image), 128);
    f.break_at = 3;
    CHECK_EQ_LL(aeron_subscription_controlled_poll(subscription, on_controlled_fragment, &f, 10), 2);
    CHECK(strcmp(f.text[2], "m2") == 0 && strcmp(f.text[3], "m3") == 0);
    CHECK_EQ_LL(aeron_image_position(image), 256);

    /* Image polls: bounded by position, controlled, and a peek that consumes nothing. */
    CHECK_EQ_LL(aeron_image_bounded_poll(image, on_fragment, &f, 256, 10), 0);
    CHECK_EQ_LL(aeron_image_bounded_poll(image, on_fragment, &f, 257, 10), 1);
    CHECK(strcmp(f.text[4], "m4") == 0);
    f.commit_at = 5;
    CHECK_EQ_LL(aeron_image_bounded_controlled_poll(image, on_controlled_fragment, &f, 1000, 10), 1);
    CHECK_EQ_LL(aeron_image_position(image), 384);
    offer_text(publication, "p6");
    offer_text(publication, "p7");
    int before = f.count;
    CHECK_EQ_LL(aeron_image_controlled_peek(image, 384, on_controlled_fragment, &f, 1000), 512);
    CHECK_EQ_LL(f.count, before + 2);
    CHECK_EQ_LL(aeron_image_position(image), 384); /* peeking consumes nothing */
    CHECK_FAILS_WITH(aeron_image_controlled_peek(image, 64, on_controlled_fragment, &f, 1000), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_controlled_peek(image, 388, on_controlled_fragment, &f, 1000), -1, EINVAL);
    CHECK_EQ_LL(aeron_image_poll(image, on_fragment, &f, 1), 1);
    CHECK(strcmp(f.text[f.count - 1], "p6") == 0);
    CHECK(f.contexts[f.count - 1] == image);
    CHECK_EQ_LL(aeron_image_controlled_poll(image, on_controlled_fragment, &f, 10), 1);
    CHECK(strcmp(f.text[f.count - 1], "p7") == 0);

    /* Block polls hand over whole frames. */
    offer_text(publication, "b8");
    offer_text(publication, "b9");
    blocks_t blocks = { 0, 0, 0 };
    CHECK_EQ_LL(aeron_subscription_block_poll(subscription, on_block, &blocks, 64), 64);
    CHECK_EQ_LL(blocks.session_id, session_id);
    CHECK_EQ_LL(aeron_image_block_poll(image, on_block, &blocks, 1024), 64);
    CHECK_EQ_LL(blocks.bytes, 128);
    CHECK_EQ_LL(aeron_image_position(image), 640);

    /* set_position within the term; out of range is refused. */
    offer_text(publication, "s10");
    CHECK_EQ_LL(aeron_image_set_position(image, 704), 0);
    CHECK_EQ_LL(aeron_image_position(image), 704);
    CHECK_FAILS_WITH(aeron_image_set_position(image, 705), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_set_position(image, TERM_LENGTH * 3), -1, EINVAL);

    /* The publisher leaves: end of stream once consumed, then unavailable. */
    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    WAIT_FOR(seen.unavailable == 1, {
        aeron_subscription_poll(subscription, on_fragment, &f, 10);
        sleep_ms(1);
    });
    CHECK(aeron_image_is_closed(image)); /* the handle lingers, reporting closed */
    CHECK(aeron_image_is_end_of_stream(image));
    CHECK_EQ_LL(aeron_image_poll(image, on_fragment, &f, 10), 0);
    CHECK_EQ_LL(aeron_subscription_image_count(subscription), 0);
    CHECK(!aeron_subscription_is_connected(subscription));

    CHECK_EQ_LL(aeron_subscription_image_release(subscription, image), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&env);
}

static void close_makes_images_unavailable(void)
{
    test_env_t env;
    setup(&env, "subclose");
    images_seen_t seen;
    memset(&seen, 0, sizeof(seen));
    aeron_subscription_t *subscription =
        add_subscription_with_handlers(env.client, IPC, 4, on_available_image, on_unavailable_image, &seen);
    aeron_publication_t *publication = add_publication(env.client, IPC, 4);
    WAIT_FOR(seen.available == 1, sleep_ms(1));
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    CHECK_EQ_LL(seen.unavailable, 1); /* called on this thread, during close */
    CHECK(aeron_image_is_closed(seen.image));
    CHECK_EQ_LL(aeron_subscription_image_release(subscription, seen.image), 0); /* lingering handle */
    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    teardown(&env);
}

static void header_and_subscription_argument_errors(void)
{
    aeron_header_values_t values;
    CHECK_FAILS_WITH(aeron_header_values(NULL, &values), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_header_position(NULL), -1, EINVAL);
    CHECK_EQ_LL(aeron_header_position_bits_to_shift(NULL), 0);
    CHECK_FAILS_WITH(aeron_header_next_term_offset(NULL), -1, EINVAL);
    CHECK(aeron_header_context(NULL) == NULL);
    CHECK_FAILS_WITH(aeron_subscription_poll(NULL, on_fragment, NULL, 10), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_controlled_poll(NULL, on_controlled_fragment, NULL, 10), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_block_poll(NULL, on_block, NULL, 10), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_image_count(NULL), -1, EINVAL);
    CHECK(aeron_subscription_image_at_index(NULL, 0) == NULL);
    CHECK_FAILS_WITH(aeron_subscription_image_retain(NULL, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_poll(NULL, on_fragment, NULL, 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_position(NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_constants(NULL, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_controlled_peek(NULL, 0, on_controlled_fragment, NULL, 0), -1, EINVAL);
    CHECK_EQ_LL(aeron_subscription_close(NULL, NULL, NULL), 0);
}

typedef struct
{
    int32_t next_term_offset;
    int64_t position;
    aeron_header_values_t values;
}
header_seen_t;

static void on_header(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    header_seen_t *seen = (header_seen_t *)clientd;
    (void)buffer;
    (void)length;
    seen->next_term_offset = aeron_header_next_term_offset(header);
    seen->position = aeron_header_position(header);
    CHECK_EQ_LL(aeron_header_position_bits_to_shift(header), 16);
    CHECK_EQ_LL(aeron_header_values(header, &seen->values), 0);
}

static void header_accessors(void)
{
    test_env_t env;
    setup(&env, "header");
    aeron_subscription_t *subscription = add_subscription(env.client, IPC, 6);
    aeron_publication_t *publication = add_publication(env.client, IPC, 6);
    WAIT_FOR(aeron_publication_is_connected(publication), sleep_ms(1));
    offer_text(publication, "0123456789");
    header_seen_t seen;
    memset(&seen, 0, sizeof(seen));
    WAIT_FOR(aeron_subscription_poll(subscription, on_header, &seen, 1) == 1, sleep_ms(1));
    aeron_publication_constants_t constants;
    CHECK_EQ_LL(aeron_publication_constants(publication, &constants), 0);
    CHECK_EQ_LL(seen.values.frame.frame_length, 42);
    CHECK_EQ_LL(seen.values.frame.version, 0);
    CHECK_EQ_LL(seen.values.frame.flags, 0xC0);
    CHECK_EQ_LL(seen.values.frame.type, 1);
    CHECK_EQ_LL(seen.values.frame.term_offset, 0);
    CHECK_EQ_LL(seen.values.frame.session_id, constants.session_id);
    CHECK_EQ_LL(seen.values.frame.stream_id, 6);
    CHECK_EQ_LL(seen.values.frame.term_id, constants.initial_term_id);
    CHECK_EQ_LL(seen.values.initial_term_id, constants.initial_term_id);
    CHECK_EQ_LL(seen.values.position_bits_to_shift, 16);
    CHECK_EQ_LL(seen.next_term_offset, 64);
    CHECK_EQ_LL(seen.position, 64);
    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&env);
}

int main(void)
{
    RUN(subscription_and_images);
    RUN(close_makes_images_unavailable);
    RUN(header_and_subscription_argument_errors);
    RUN(header_accessors);
    return 0;
}
