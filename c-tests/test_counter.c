/* Counters through aeronc.h: adding one with a key and label, updating it through its
 * address and reading it back through the client's counters reader; static counters
 * (found again by type and registration id, kept by the driver when closed); close. */
#include "client_support.h"

static aeron_counter_t *poll_counter(aeron_async_add_counter_t *async)
{
    aeron_counter_t *counter = NULL;
    int result = 0;
    WAIT_FOR((result = aeron_async_add_counter_poll(&counter, async)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, 1);
    return counter;
}

static int g_closed = 0;

static void on_closed(void *clientd)
{
    (*(int *)clientd)++;
}

static void client_counter(void)
{
    test_env_t env;
    setup(&env, "counter");
    const uint8_t key[] = { 1, 2, 3, 4 };
    const char *label = "test counter";
    aeron_async_add_counter_t *async = NULL;
    CHECK_EQ_LL(aeron_async_add_counter(&async, env.client, 1001, key, sizeof(key), label, strlen(label)), 0);
    int64_t registration_id = aeron_async_add_counter_get_registration_id(async);
    aeron_counter_t *counter = poll_counter(async);

    aeron_counter_constants_t constants;
    CHECK_EQ_LL(aeron_counter_constants(counter, &constants), 0);
    CHECK_EQ_LL(constants.registration_id, registration_id);
    CHECK(constants.counter_id >= 0);
    CHECK(!aeron_counter_is_closed(counter));

    int64_t *value = aeron_counter_addr(counter);
    CHECK(value != NULL);
    CHECK_EQ_LL((intptr_t)value % 8, 0);
    __atomic_store_n(value, 42, __ATOMIC_RELEASE);

    aeron_counters_reader_t *reader = aeron_counters_reader(env.client);
    CHECK(aeron_counters_reader_addr(reader, constants.counter_id) == value);
    int32_t type_id = 0, state = 0;
    int64_t owner_id = 0, reader_registration_id = 0;
    CHECK_EQ_LL(aeron_counters_reader_counter_type_id(reader, constants.counter_id, &type_id), 0);
    CHECK_EQ_LL(type_id, 1001);
    CHECK_EQ_LL(aeron_counters_reader_counter_state(reader, constants.counter_id, &state), 0);
    CHECK_EQ_LL(state, AERON_COUNTER_RECORD_ALLOCATED);
    CHECK_EQ_LL(aeron_counters_reader_counter_owner_id(reader, constants.counter_id, &owner_id), 0);
    CHECK_EQ_LL(owner_id, aeron_client_id(env.client));
    CHECK_EQ_LL(aeron_counters_reader_counter_registration_id(reader, constants.counter_id, &reader_registration_id), 0);
    CHECK_EQ_LL(reader_registration_id, registration_id);
    char buffer[64];
    CHECK_EQ_LL(aeron_counters_reader_counter_label(reader, constants.counter_id, buffer, sizeof(buffer)),
        (long long)strlen(label));
    CHECK(strncmp(buffer, label, strlen(label)) == 0);
    uint8_t *stored_key = NULL;
    CHECK_EQ_LL(aeron_counters_reader_metadata_key(reader, constants.counter_id, &stored_key), 0);
    CHECK(memcmp(stored_key, key, sizeof(key)) == 0);
    CHECK_EQ_LL(
        aeron_counters_reader_find_by_type_id_and_registration_id(reader, 1001, registration_id), constants.counter_id);

    CHECK_EQ_LL(aeron_counter_close(counter, on_closed, &g_closed), 0);
    CHECK_EQ_LL(g_closed, 1);
    /* The driver frees it: its record is reclaimed. */
    WAIT_FOR(aeron_counters_reader_counter_state(reader, constants.counter_id, &state) == 0 &&
        state != AERON_COUNTER_RECORD_ALLOCATED, sleep_ms(1));
    CHECK_EQ_LL(aeron_counter_close(NULL, NULL, NULL), 0);
    teardown(&env);
}

static void static_counter(void)
{
    test_env_t env;
    setup(&env, "static");
    const char *label = "static one";
    aeron_async_add_counter_t *async = NULL;
    CHECK_EQ_LL(aeron_async_add_static_counter(&async, env.client, 2002, NULL, 0, label, strlen(label), 777), 0);
    aeron_counter_t *first = poll_counter(async);
    CHECK_EQ_LL(aeron_async_add_static_counter(&async, env.client, 2002, NULL, 0, label, strlen(label), 777), 0);
    aeron_counter_t *again = poll_counter(async);
    aeron_counter_constants_t a, b;
    CHECK_EQ_LL(aeron_counter_constants(first, &a), 0);
    CHECK_EQ_LL(aeron_counter_constants(again, &b), 0);
    CHECK_EQ_LL(a.registration_id, 777);
    CHECK_EQ_LL(a.counter_id, b.counter_id);
    CHECK(aeron_counter_addr(first) == aeron_counter_addr(again));

    aeron_counters_reader_t *reader = aeron_counters_reader(env.client);
    int64_t owner_id = 0;
    CHECK_EQ_LL(aeron_counters_reader_counter_owner_id(reader, a.counter_id, &owner_id), 0);
    CHECK_EQ_LL(owner_id, AERON_NULL_VALUE); /* a static counter belongs to no client */
    CHECK_EQ_LL(aeron_counter_close(first, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_counter_close(again, NULL, NULL), 0);
    sleep_ms(50);
    int32_t state = 0;
    CHECK_EQ_LL(aeron_counters_reader_counter_state(reader, a.counter_id, &state), 0);
    CHECK_EQ_LL(state, AERON_COUNTER_RECORD_ALLOCATED); /* still there */
    CHECK_EQ_LL(aeron_counters_reader_find_by_type_id_and_registration_id(reader, 2002, 777), a.counter_id);
    teardown(&env);
}

static void counter_argument_errors(void)
{
    test_env_t env;
    setup(&env, "countererr");
    aeron_async_add_counter_t *async = NULL;
    uint8_t long_key[200] = { 0 };
    CHECK_FAILS_WITH(aeron_async_add_counter(&async, env.client, 1, long_key, sizeof(long_key), "x", 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_counter(&async, env.client, 1, NULL, 5, "x", 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_counter(NULL, env.client, 1, NULL, 0, "x", 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_counter(&async, NULL, 1, NULL, 0, "x", 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_counter_poll(NULL, NULL), -1, EINVAL);
    aeron_counter_t *counter = NULL;
    CHECK_FAILS_WITH(aeron_async_add_counter_poll(&counter, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_counter_get_registration_id(NULL), -1, EINVAL);
    CHECK(aeron_counter_addr(NULL) == NULL);
    CHECK_FAILS_WITH(aeron_counter_constants(NULL, NULL), -1, EINVAL);
    CHECK(!aeron_counter_is_closed(NULL));
    /* A publication's async handle is not a counter's: refused and left alone (as libaeron),
     * so its own poll still completes it. */
    aeron_async_add_publication_t *publication_async = NULL;
    CHECK_EQ_LL(aeron_async_add_publication(&publication_async, env.client, IPC, 1), 0);
    CHECK_FAILS_WITH(aeron_async_add_counter_poll(&counter, publication_async), -1, EINVAL);
    aeron_publication_t *publication = NULL;
    int result = 0;
    WAIT_FOR((result = aeron_async_add_publication_poll(&publication, publication_async)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, 1);
    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    teardown(&env);
}

int main(void)
{
    RUN(client_counter);
    RUN(static_counter);
    RUN(counter_argument_errors);
    return 0;
}
