/* The four fragment assemblers of aeronc.h with messages of several fragments (IPC MTU
 * 1408: 1376 payload bytes per fragment): subscription and image assemblers, plain and
 * controlled (an ABORT on a whole message gets it delivered again), interleaved sessions. */
#include "client_support.h"

#define MESSAGE_LENGTH 5000 /* 4 fragments */

typedef struct
{
    int messages;
    int aborts_left;
    size_t lengths[16];
    int32_t sessions[16];
    int64_t positions[16];
    void *contexts[16];
    int corrupt;
}
assembled_t;

static void fill(uint8_t *message, size_t length, uint8_t seed)
{
    for (size_t i = 0; i < length; i++)
    {
        message[i] = (uint8_t)(seed + i * 31);
    }
}

static void check_message(assembled_t *a, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    aeron_header_values_t values;
    CHECK_EQ_LL(aeron_header_values(header, &values), 0);
    uint8_t expected[MESSAGE_LENGTH];
    fill(expected, length, buffer[0]);
    if (length > MESSAGE_LENGTH || memcmp(expected, buffer, length) != 0)
    {
        a->corrupt++;
    }
    CHECK(a->messages < 16);
    a->lengths[a->messages] = length;
    a->sessions[a->messages] = values.frame.session_id;
    a->positions[a->messages] = aeron_header_position(header);
    a->contexts[a->messages] = aeron_header_context(header);
    a->messages++;
}

static void on_message(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    check_message((assembled_t *)clientd, buffer, length, header);
}

static aeron_controlled_fragment_handler_action_t on_controlled_message(
    void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    assembled_t *a = (assembled_t *)clientd;
    if (a->aborts_left > 0)
    {
        a->aborts_left--;
        return AERON_ACTION_ABORT;
    }
    check_message(a, buffer, length, header);
    return AERON_ACTION_COMMIT;
}

static void offer_big(aeron_exclusive_publication_t *publication, uint8_t seed)
{
    uint8_t message[MESSAGE_LENGTH];
    fill(message, sizeof(message), seed);
    int64_t position = 0;
    WAIT_FOR((position = aeron_exclusive_publication_offer(publication, message, sizeof(message), NULL, NULL)) > 0,
        { CHECK(position != AERON_PUBLICATION_ERROR); sched_yield(); });
}

static void subscription_assemblers(void)
{
    test_env_t env;
    setup(&env, "assembler");
    aeron_subscription_t *subscription = add_subscription(env.client, IPC, 7);
    aeron_exclusive_publication_t *first = add_exclusive_publication(env.client, IPC, 7);
    aeron_exclusive_publication_t *second = add_exclusive_publication(env.client, IPC, 7);
    WAIT_FOR(aeron_subscription_image_count(subscription) == 2, sleep_ms(1));

    /* Plain: two sessions, two messages each. */
    offer_big(first, 1);
    offer_big(second, 2);
    offer_big(first, 3);
    offer_big(second, 4);
    assembled_t a;
    memset(&a, 0, sizeof(a));
    aeron_fragment_assembler_t *assembler = NULL;
    CHECK_EQ_LL(aeron_fragment_assembler_create(&assembler, on_message, &a), 0);
    WAIT_FOR(a.messages == 4, {
        if (aeron_subscription_poll(subscription, aeron_fragment_assembler_handler, assembler, 3) == 0)
        {
            sleep_ms(1);
        }
    });
    CHECK_EQ_LL(a.corrupt, 0);
    for (int i = 0; i < 4; i++)
    {
        CHECK_EQ_LL(a.lengths[i], MESSAGE_LENGTH);
        CHECK(a.contexts[i] != NULL);
        /* 4 frames: 3 x 1408 + (32 + 872 aligned to 32 = 928) */
        CHECK(a.positions[i] == 5152 || a.positions[i] == 10304);
    }
    CHECK_EQ_LL(aeron_fragment_assembler_delete(assembler), 0);

    /* Controlled: the first whole message is aborted once, then delivered again. */
    offer_big(first, 5);
    memset(&a, 0, sizeof(a));
    a.aborts_left = 1;
    aeron_controlled_fragment_assembler_t *controlled = NULL;
    CHECK_EQ_LL(aeron_controlled_fragment_assembler_create(&controlled, on_controlled_message, &a), 0);
    WAIT_FOR(a.messages == 1, {
        if (aeron_subscription_controlled_poll(subscription, aeron_controlled_fragment_assembler_handler,
            controlled, 10) == 0)
        {
            sleep_ms(1);
        }
    });
    CHECK_EQ_LL(a.aborts_left, 0);
    CHECK_EQ_LL(a.lengths[0], MESSAGE_LENGTH);
    CHECK_EQ_LL(a.positions[0], 3 * 5152);
    CHECK_EQ_LL(a.corrupt, 0);
    CHECK_EQ_LL(aeron_controlled_fragment_assembler_delete(controlled), 0);

    CHECK_EQ_LL(aeron_exclusive_publication_close(first, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_close(second, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&env);
}

static void image_assemblers(void)
{
    test_env_t env;
    setup(&env, "imgassembler");
    aeron_subscription_t *subscription = add_subscription(env.client, IPC, 8);
    aeron_exclusive_publication_t *publication = add_exclusive_publication(env.client, IPC, 8);
    WAIT_FOR(aeron_subscription_image_count(subscription) == 1, sleep_ms(1));
    aeron_image_t *image = aeron_subscription_image_at_index(subscription, 0);
    CHECK(image != NULL);

    offer_big(publication, 9);
    assembled_t a;
    memset(&a, 0, sizeof(a));
    aeron_image_fragment_assembler_t *assembler = NULL;
    CHECK_EQ_LL(aeron_image_fragment_assembler_create(&assembler, on_message, &a), 0);
    WAIT_FOR(a.messages == 1, {
        if (aeron_image_poll(image, aeron_image_fragment_assembler_handler, assembler, 2) == 0)
        {
            sleep_ms(1);
        }
    });
    CHECK_EQ_LL(a.lengths[0], MESSAGE_LENGTH);
    CHECK(a.contexts[0] == image);
    CHECK_EQ_LL(a.positions[0], 5152);
    CHECK_EQ_LL(aeron_image_fragment_assembler_delete(assembler), 0);

    offer_big(publication, 10);
    memset(&a, 0, sizeof(a));
    a.aborts_left = 2;
    aeron_image_controlled_fragment_assembler_t *controlled = NULL;
    CHECK_EQ_LL(aeron_image_controlled_fragment_assembler_create(&controlled, on_controlled_message, &a), 0);
    WAIT_FOR(a.messages == 1, {
        if (aeron_image_controlled_poll(image, aeron_image_controlled_fragment_assembler_handler, controlled, 10) == 0)
        {
            sleep_ms(1);
        }
    });
    CHECK_EQ_LL(a.aborts_left, 0);
    CHECK_EQ_LL(a.positions[0], 2 * 5152);
    CHECK_EQ_LL(aeron_image_position(image), 2 * 5152);
    CHECK_EQ_LL(a.corrupt, 0);
    CHECK_EQ_LL(aeron_image_controlled_fragment_assembler_delete(controlled), 0);

    CHECK_EQ_LL(aeron_subscription_image_release(subscription, image), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_close(publication, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&env);
}

static void assembler_argument_errors(void)
{
    aeron_fragment_assembler_t *assembler = NULL;
    CHECK_FAILS_WITH(aeron_fragment_assembler_create(NULL, on_message, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_fragment_assembler_create(&assembler, NULL, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_controlled_fragment_assembler_create(NULL, on_controlled_message, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_fragment_assembler_create(NULL, on_message, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_controlled_fragment_assembler_create(NULL, on_controlled_message, NULL), -1, EINVAL);
    CHECK_EQ_LL(aeron_fragment_assembler_delete(NULL), 0);
    CHECK_EQ_LL(aeron_controlled_fragment_assembler_delete(NULL), 0);
    CHECK_EQ_LL(aeron_image_fragment_assembler_delete(NULL), 0);
    CHECK_EQ_LL(aeron_image_controlled_fragment_assembler_delete(NULL), 0);
    aeron_fragment_assembler_handler(NULL, NULL, 0, NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_EQ_LL(aeron_controlled_fragment_assembler_handler(NULL, NULL, 0, NULL), AERON_ACTION_ABORT);
}

int main(void)
{
    RUN(subscription_assemblers);
    RUN(image_assemblers);
    RUN(assembler_argument_errors);
    return 0;
}
