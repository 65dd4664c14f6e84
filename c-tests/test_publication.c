/* Concurrent and exclusive publications through aeronc.h: offer, offerv, try_claim with
 * commit and abort, reserved values, padding and blocks, constants, positions, back
 * pressure, close with its notification, and the error results. A subscription checks
 * what arrives, byte for byte. */
#include "client_support.h"

_Static_assert(sizeof(aeron_buffer_claim_t) == 24, "aeron_buffer_claim_t is three words");
_Static_assert(sizeof(aeron_iovec_t) == 16, "aeron_iovec_t is two words");

#define MAX_SEEN 64

typedef struct
{
    int count;
    size_t lengths[MAX_SEEN];
    uint8_t first_bytes[MAX_SEEN];
    int64_t reserved[MAX_SEEN];
    int64_t positions[MAX_SEEN];
    char text[MAX_SEEN][64];
}
received_t;

static void on_fragment(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    received_t *received = (received_t *)clientd;
    CHECK(received->count < MAX_SEEN);
    int i = received->count++;
    received->lengths[i] = length;
    received->first_bytes[i] = length > 0 ? buffer[0] : 0;
    aeron_header_values_t values;
    CHECK_EQ_LL(aeron_header_values(header, &values), 0);
    received->reserved[i] = values.frame.reserved_value;
    received->positions[i] = aeron_header_position(header);
    size_t copy = length < 63 ? length : 63;
    memcpy(received->text[i], buffer, copy);
    received->text[i][copy] = '\0';
}

static void poll_until(aeron_subscription_t *subscription, received_t *received, int count)
{
    WAIT_FOR(received->count >= count, {
        if (aeron_subscription_poll(subscription, on_fragment, received, 10) == 0)
        {
            sleep_ms(1);
        }
    });
}

static int64_t supply_reserved_value(void *clientd, uint8_t *buffer, size_t frame_length)
{
    int64_t *calls = (int64_t *)clientd;
    (*calls)++;
    CHECK(buffer != NULL);
    CHECK(frame_length >= 32);
    return (int64_t)0x0102030405060708LL + (int64_t)frame_length;
}

static int g_closed = 0;

static void on_closed(void *clientd)
{
    CHECK(clientd == &g_closed);
    g_closed++;
}

static void concurrent_publication(void)
{
    test_env_t env;
    setup(&env, "publication");
    aeron_subscription_t *subscription = add_subscription(env.client, IPC, 1);
    aeron_publication_t *publication = add_publication(env.client, IPC, 1);
    WAIT_FOR(aeron_publication_is_connected(publication), sleep_ms(1));

    aeron_publication_constants_t constants;
    CHECK_EQ_LL(aeron_publication_constants(publication, &constants), 0);
    CHECK(strcmp(constants.channel, IPC) == 0);
    CHECK(strcmp(aeron_publication_channel(publication), IPC) == 0);
    CHECK_EQ_LL(constants.stream_id, 1);
    CHECK_EQ_LL(aeron_publication_stream_id(publication), 1);
    CHECK_EQ_LL(constants.session_id, aeron_publication_session_id(publication));
    CHECK_EQ_LL(constants.term_buffer_length, TERM_LENGTH);
    CHECK_EQ_LL(constants.position_bits_to_shift, 16);
    CHECK_EQ_LL(constants.max_payload_length, 1408 - 32);
    CHECK_EQ_LL(constants.max_message_length, TERM_LENGTH / 8);
    CHECK_EQ_LL(constants.max_possible_position, (int64_t)TERM_LENGTH << 31);
    CHECK_EQ_LL(constants.registration_id, constants.original_registration_id);
    CHECK(constants.publication_limit_counter_id >= 0);
    CHECK_EQ_LL(aeron_publication_channel_status(publication), 1);
    CHECK_EQ_LL(aeron_publication_position(publication), 0);
    CHECK(aeron_publication_position_limit(publication) > 0);

    /* offer: 5 bytes -> one 64-byte frame (32 header + 5, aligned to 32). */
    CHECK_EQ_LL(offer_message(publication, "hello", 5), 64);
    received_t received;
    memset(&received, 0, sizeof(received));
    poll_until(subscription, &received, 1);
    CHECK(strcmp(received.text[0], "hello") == 0);
    CHECK_EQ_LL(received.positions[0], 64);

    /* offerv gathers parts into one message. */
    aeron_iovec_t parts[3] = {
        { (uint8_t *)"abc", 3 }, { NULL, 0 }, { (uint8_t *)"defg", 4 }
    };
    int64_t position = 0;
    WAIT_FOR((position = aeron_publication_offerv(publication, parts, 3, NULL, NULL)) > 0, sched_yield());
    CHECK_EQ_LL(position, 128);
    /* A reserved value supplier fills the header's reserved value. */
    int64_t supplier_calls = 0;
    WAIT_FOR((position = aeron_publication_offer(
        publication, (const uint8_t *)"rv", 2, supply_reserved_value, &supplier_calls)) > 0, sched_yield());
    CHECK_EQ_LL(supplier_calls, 1);
    poll_until(subscription, &received, 3);
    CHECK(strcmp(received.text[1], "abcdefg") == 0);
    CHECK(strcmp(received.text[2], "rv") == 0);
    CHECK_EQ_LL(received.reserved[2], 0x0102030405060708LL + 34);

    /* try_claim: write in place, commit; a second claim is aborted and never delivered. */
    aeron_buffer_claim_t claim;
    WAIT_FOR((position = aeron_publication_try_claim(publication, 10, &claim)) > 0, sched_yield());
    CHECK(claim.data == claim.frame_header + 32);
    CHECK_EQ_LL(claim.length, 10);
    memcpy(claim.data, "claimed!!!", 10);
    CHECK_EQ_LL(aeron_buffer_claim_commit(&claim), 0);
    WAIT_FOR(aeron_publication_try_claim(publication, 4, &claim) > 0, sched_yield());
    memcpy(claim.data, "gone", 4);
    CHECK_EQ_LL(aeron_buffer_claim_abort(&claim), 0);
    CHECK_EQ_LL(offer_message(publication, "after", 5), position + 64 + 64);
    poll_until(subscription, &received, 5);
    CHECK(strcmp(received.text[3], "claimed!!!") == 0);
    CHECK(strcmp(received.text[4], "after") == 0);
    CHECK_EQ_LL(received.count, 5);
    CHECK_EQ_LL(aeron_publication_position(publication), received.positions[4]);

    /* Errors: too long, NULL arguments; claims longer than a frame. */
    static uint8_t big[TERM_LENGTH];
    CHECK_FAILS_WITH(aeron_publication_offer(publication, big, TERM_LENGTH / 8 + 1, NULL, NULL),
        AERON_PUBLICATION_ERROR, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_offer(NULL, big, 1, NULL, NULL), AERON_PUBLICATION_ERROR, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_offer(publication, NULL, 1, NULL, NULL), AERON_PUBLICATION_ERROR, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_offerv(publication, NULL, 2, NULL, NULL), AERON_PUBLICATION_ERROR, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_try_claim(publication, 1377, &claim), AERON_PUBLICATION_ERROR, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_try_claim(publication, 1, NULL), AERON_PUBLICATION_ERROR, EINVAL);
    CHECK_FAILS_WITH(aeron_buffer_claim_commit(NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_constants(publication, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_stream_id(NULL), -1, EINVAL);
    CHECK(aeron_publication_channel(NULL) == NULL);
    /* IPC: no socket (a vector with room for one is still required, as in Aeron). */
    char address[AERON_CLIENT_MAX_LOCAL_ADDRESS_STR_LEN];
    aeron_iovec_t address_vec = { (uint8_t *)address, sizeof(address) };
    CHECK_EQ_LL(aeron_publication_local_sockaddrs(publication, &address_vec, 1), 0);
    CHECK_FAILS_WITH(aeron_publication_local_sockaddrs(publication, NULL, 0), -1, EINVAL);

    /* Back pressure: an unread subscription stops the publisher a term window ahead. */
    uint8_t message[1024];
    memset(message, 7, sizeof(message));
    int64_t result = 0;
    int offered = 0;
    while ((result = aeron_publication_offer(publication, message, sizeof(message), NULL, NULL)) > 0 ||
        result == AERON_PUBLICATION_ADMIN_ACTION)
    {
        offered++;
        CHECK(offered < 10000);
    }
    CHECK_EQ_LL(result, AERON_PUBLICATION_BACK_PRESSURED);
    CHECK(aeron_publication_position(publication) >= aeron_publication_position_limit(publication));

    /* Close: the notification runs, offers then report CLOSED while the handle lingers. */
    g_closed = 0;
    CHECK_EQ_LL(aeron_publication_close(publication, on_closed, &g_closed), 0);
    CHECK_EQ_LL(g_closed, 1);
    CHECK_EQ_LL(aeron_publication_close(NULL, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&env);
}

static void two_publishers_share_a_publication(void)
{
    test_env_t env;
    setup(&env, "shared");
    aeron_publication_t *first = add_publication(env.client, IPC, 5);
    aeron_publication_t *second = add_publication(env.client, IPC, 5);
    aeron_publication_constants_t a, b;
    CHECK_EQ_LL(aeron_publication_constants(first, &a), 0);
    CHECK_EQ_LL(aeron_publication_constants(second, &b), 0);
    CHECK_EQ_LL(a.session_id, b.session_id);
    CHECK_EQ_LL(a.original_registration_id, b.original_registration_id);
    CHECK(b.registration_id != b.original_registration_id);
    CHECK_EQ_LL(aeron_publication_close(first, NULL, NULL), 0);
    CHECK(!aeron_publication_is_closed(second));
    CHECK_EQ_LL(aeron_publication_close(second, NULL, NULL), 0);
    teardown(&env);
}

static void exclusive_publication(void)
{
    test_env_t env;
    setup(&env, "exclusive");
    aeron_subscription_t *subscription = add_subscription(env.client, IPC, 2);
    aeron_exclusive_publication_t *publication = add_exclusive_publication(env.client, IPC, 2);
    WAIT_FOR(aeron_exclusive_publication_is_connected(publication), sleep_ms(1));

    aeron_publication_constants_t constants;
    CHECK_EQ_LL(aeron_exclusive_publication_constants(publication, &constants), 0);
    CHECK_EQ_LL(constants.registration_id, constants.original_registration_id);
    CHECK_EQ_LL(constants.stream_id, 2);
    CHECK_EQ_LL(aeron_exclusive_publication_stream_id(publication), 2);
    CHECK_EQ_LL(aeron_exclusive_publication_session_id(publication), constants.session_id);
    CHECK(strcmp(aeron_exclusive_publication_channel(publication), IPC) == 0);
    CHECK_EQ_LL(aeron_exclusive_publication_channel_status(publication), 1);

    int64_t position = 0;
    WAIT_FOR((position = aeron_exclusive_publication_offer(
        publication, (const uint8_t *)"one", 3, NULL, NULL)) > 0, sched_yield());
    CHECK_EQ_LL(position, 64);
    aeron_iovec_t parts[2] = { { (uint8_t *)"tw", 2 }, { (uint8_t *)"o", 1 } };
    WAIT_FOR((position = aeron_exclusive_publication_offerv(publication, parts, 2, NULL, NULL)) > 0, sched_yield());
    CHECK_EQ_LL(position, 128);
    /* Padding moves the stream on without a message for subscribers. */
    WAIT_FOR((position = aeron_exclusive_publication_append_padding(publication, 100)) > 0, sched_yield());
    CHECK_EQ_LL(position, 128 + 160);
    aeron_buffer_claim_t claim;
    WAIT_FOR(aeron_exclusive_publication_try_claim(publication, 5, &claim) > 0, sched_yield());
    memcpy(claim.data, "three", 5);
    CHECK_EQ_LL(aeron_buffer_claim_commit(&claim), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_position(publication), 128 + 160 + 64);

    /* offer_block: a pre-formatted frame for the current term id and offset. */
    uint8_t block[64];
    memset(block, 0, sizeof(block));
    int32_t frame_length = 32 + 4, term_offset = 128 + 160 + 64;
    int32_t session_id = constants.session_id, stream_id = 2, term_id = constants.initial_term_id;
    int16_t type = 1;
    uint8_t flags = 0xC0;
    memcpy(block, &frame_length, 4);
    block[5] = flags;
    memcpy(block + 6, &type, 2);
    memcpy(block + 8, &term_offset, 4);
    memcpy(block + 12, &session_id, 4);
    memcpy(block + 16, &stream_id, 4);
    memcpy(block + 20, &term_id, 4);
    memcpy(block + 32, "four", 4);
    WAIT_FOR((position = aeron_exclusive_publication_offer_block(publication, block, sizeof(block))) > 0,
        sched_yield());
    CHECK_EQ_LL(position, term_offset + 64);

    received_t received;
    memset(&received, 0, sizeof(received));
    poll_until(subscription, &received, 4);
    CHECK(strcmp(received.text[0], "one") == 0);
    CHECK(strcmp(received.text[1], "two") == 0);
    CHECK(strcmp(received.text[2], "three") == 0);
    CHECK(strcmp(received.text[3], "four") == 0);

    CHECK_FAILS_WITH(aeron_exclusive_publication_offer(NULL, NULL, 0, NULL, NULL), AERON_PUBLICATION_ERROR, EINVAL);
    CHECK_FAILS_WITH(aeron_exclusive_publication_offer_block(publication, block, 32 + 5), AERON_PUBLICATION_ERROR,
        EINVAL);
    CHECK_FAILS_WITH(aeron_exclusive_publication_position(NULL), -1, EINVAL);
    char address[AERON_CLIENT_MAX_LOCAL_ADDRESS_STR_LEN];
    aeron_iovec_t address_vec = { (uint8_t *)address, sizeof(address) };
    CHECK_EQ_LL(aeron_exclusive_publication_local_sockaddrs(publication, &address_vec, 1), 0);
    CHECK_FAILS_WITH(aeron_exclusive_publication_local_sockaddrs(publication, &address_vec, 0), -1, EINVAL);

    g_closed = 0;
    CHECK_EQ_LL(aeron_exclusive_publication_close(publication, on_closed, &g_closed), 0);
    CHECK_EQ_LL(g_closed, 1);
    CHECK_EQ_LL(aeron_exclusive_publication_close(NULL, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&env);
}

int main(void)
{
    RUN(concurrent_publication);
    RUN(two_publishers_share_a_publication);
    RUN(exclusive_publication);
    return 0;
}
