/* Error paths of the client API: NULL handles and arguments, URIs the driver refuses,
 * a client that closed (driver gone, or its conductor not driven), the queries IPC
 * resources answer with nothing, and the URI string builder. (Destinations:
 * test_destinations.c.) */
#include "client_support.h"

static void null_handles(void)
{
    aeron_async_add_publication_t *async = NULL;
    aeron_publication_t *publication = NULL;
    CHECK_FAILS_WITH(aeron_async_add_publication(&async, NULL, IPC, 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_publication(NULL, NULL, IPC, 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_publication_poll(&publication, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_publication_poll(NULL, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_exclusive_publication(&async, NULL, IPC, 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_exclusive_publication_poll(NULL, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_subscription(&async, NULL, IPC, 1, NULL, NULL, NULL, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_subscription_poll(NULL, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_publication_get_registration_id(NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_exclusive_exclusive_publication_get_registration_id(NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_subscription_get_registration_id(NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_position(NULL), -1, EINVAL);
    CHECK(!aeron_publication_is_connected(NULL));
    CHECK_FAILS_WITH(aeron_exclusive_publication_constants(NULL, NULL), -1, EINVAL);
    CHECK(!aeron_subscription_is_connected(NULL));
    CHECK_FAILS_WITH(aeron_subscription_constants(NULL, NULL), -1, EINVAL);
    CHECK(aeron_subscription_image_by_session_id(NULL, 0) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(strstr(aeron_errmsg(), "subscription") != NULL);
}

static void refused_uris(void)
{
    test_env_t env;
    setup(&env, "uris");
    aeron_async_add_publication_t *async = NULL;
    aeron_publication_t *publication = NULL;
    /* Rejected by the client: empty, not UTF-8. */
    CHECK_FAILS_WITH(aeron_async_add_publication(&async, env.client, "", 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_publication(&async, env.client, NULL, 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_async_add_publication(&async, env.client, "aeron:\xff", 1), -1, EINVAL);
    /* Rejected by the driver: the poll fails with its error code. */
    CHECK_EQ_LL(aeron_async_add_publication(&async, env.client, "aeron:bogus?x=1", 1), 0);
    int result = 0;
    WAIT_FOR((result = aeron_async_add_publication_poll(&publication, async)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, -1);
    CHECK(aeron_errcode() < 0); /* -AERON_ERROR_CODE_* */
    CHECK(publication == NULL);
    aeron_async_add_subscription_t *sub_async = NULL;
    aeron_subscription_t *subscription = NULL;
    CHECK_EQ_LL(aeron_async_add_subscription(&sub_async, env.client, "aeron:bogus", 1,
        NULL, NULL, NULL, NULL), 0);
    WAIT_FOR((result = aeron_async_add_subscription_poll(&subscription, sub_async)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, -1);
    teardown(&env);
}

static int g_errors = 0;
static int g_last_errcode = 0;

static void on_error(void *clientd, int errcode, const char *message)
{
    (void)clientd;
    CHECK(message != NULL);
    g_errors++;
    g_last_errcode = errcode;
}

static void client_closes_when_the_driver_goes(void)
{
    test_env_t env;
    memset(&env, 0, sizeof(env));
    start_driver(&env, "driverdies");
    env.context = client_context(&env);
    CHECK_EQ_LL(aeron_context_set_error_handler(env.context, on_error, NULL), 0);
    CHECK_EQ_LL(aeron_context_set_driver_timeout_ms(env.context, 1000), 0);
    CHECK_EQ_LL(aeron_context_set_keepalive_interval_ns(env.context, 50000000), 0);
    CHECK_EQ_LL(aeron_init(&env.client, env.context), 0);
    CHECK_EQ_LL(aeron_start(env.client), 0);
    aeron_publication_t *publication = add_publication(env.client, IPC, 1);

    /* The driver shuts down: the client hears it, reports it and closes. The count is reset
     * before the close: on a loaded machine the close can outlast the driver timeout, and the
     * client's report would then come before a reset placed after it. */
    g_errors = 0;
    CHECK_EQ_LL(aeron_driver_close(env.driver), 0);
    WAIT_FOR(aeron_is_closed(env.client), sleep_ms(5));
    CHECK(g_errors >= 1);
    CHECK_EQ_LL(g_last_errcode, AERON_CLIENT_ERROR_DRIVER_TIMEOUT);
    CHECK(aeron_publication_is_closed(publication));
    CHECK_EQ_LL(aeron_publication_offer(publication, (const uint8_t *)"x", 1, NULL, NULL), AERON_PUBLICATION_CLOSED);
    aeron_async_add_publication_t *async = NULL;
    CHECK_FAILS_WITH(aeron_async_add_publication(&async, env.client, IPC, 1), -1, EPERM);
    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_close(env.client), 0);
    CHECK_EQ_LL(aeron_context_close(env.context), 0);
    CHECK_EQ_LL(aeron_driver_context_close(env.driver_context), 0);
}

static void undriven_invoker_client_times_out(void)
{
    test_env_t env;
    memset(&env, 0, sizeof(env));
    prepare_driver(&env, "undriven");
    CHECK_EQ_LL(aeron_driver_context_set_timer_interval_ns(env.driver_context, 100000000), 0);
    CHECK_EQ_LL(aeron_driver_context_set_client_liveness_timeout_ns(env.driver_context, 500000000), 0);
    launch_driver(&env);
    env.context = client_context(&env);
    CHECK_EQ_LL(aeron_context_set_use_conductor_agent_invoker(env.context, true), 0);
    CHECK_EQ_LL(aeron_context_set_error_handler(env.context, on_error, NULL), 0);
    CHECK_EQ_LL(aeron_init(&env.client, env.context), 0);
    CHECK_EQ_LL(aeron_start(env.client), 0);
    CHECK(aeron_main_do_work(env.client) >= 0);
    /* Not driven for longer than the driver's client liveness timeout: the service interval
     * check fires on the next duty cycle (or the driver timed the client out first). */
    aeron_driver_context_t *dc = env.driver_context;
    uint64_t liveness_ns = aeron_driver_context_get_client_liveness_timeout_ns(dc);
    CHECK(liveness_ns > 0 && liveness_ns <= 10000000000ULL);
    g_errors = 0;
    sleep_ms((long)(liveness_ns / 1000000) + 200);
    aeron_main_do_work(env.client);
    CHECK(aeron_is_closed(env.client));
    CHECK(g_errors >= 1);
    CHECK(g_last_errcode == AERON_CLIENT_ERROR_CONDUCTOR_SERVICE_TIMEOUT ||
        g_last_errcode == AERON_CLIENT_ERROR_CLIENT_TIMEOUT);
    aeron_async_add_publication_t *async = NULL;
    CHECK_FAILS_WITH(aeron_async_add_publication(&async, env.client, IPC, 1), -1, EPERM);
    teardown(&env);
}

static void ipc_endpoint_queries(void)
{
    test_env_t env;
    setup(&env, "ipcqueries");
    aeron_publication_t *publication = add_publication(env.client, IPC, 1);
    aeron_exclusive_publication_t *exclusive = add_exclusive_publication(env.client, IPC, 2);
    aeron_subscription_t *subscription = add_subscription(env.client, IPC, 1);
    /* IPC channels have no socket addresses; no wildcard port to resolve. */
    char address[AERON_CLIENT_MAX_LOCAL_ADDRESS_STR_LEN];
    aeron_iovec_t address_vec = { (uint8_t *)address, sizeof(address) };
    CHECK_EQ_LL(aeron_subscription_local_sockaddrs(subscription, &address_vec, 1), 0);
    CHECK_EQ_LL(aeron_subscription_resolved_endpoint(subscription, address, sizeof(address)), 0);
    char uri[64];
    CHECK_EQ_LL(aeron_subscription_try_resolve_channel_endpoint_port(subscription, uri, sizeof(uri)), 9);
    CHECK(strcmp(uri, IPC) == 0);
    CHECK_EQ_LL(aeron_subscription_try_resolve_channel_endpoint_port(subscription, uri, 4), 9);
    CHECK(strcmp(uri, "aer") == 0); /* truncated */
    aeron_image_t *image = NULL;
    WAIT_FOR((image = aeron_subscription_image_at_index(subscription, 0)) != NULL, sleep_ms(1));
    /* An IPC image is no network image: the driver does not know it for rejection. */
    CHECK_FAILS_WITH(aeron_image_reject(image, "no"), -1, -11); /* -AERON_ERROR_CODE_GENERIC_ERROR */
    CHECK(strstr(aeron_errmsg(), "unable to resolve image") != NULL);
    CHECK_EQ_LL(aeron_subscription_image_release(subscription, image), 0);

    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_close(exclusive, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&env);
}

static void error_values_copy(void)
{
    uint8_t storage[sizeof(aeron_publication_error_values_t) + 8];
    memset(storage, 0, sizeof(storage));
    aeron_publication_error_values_t *values = (aeron_publication_error_values_t *)storage;
    values->registration_id = 5;
    values->error_code = 4;
    values->error_message_length = 7;
    memcpy(storage + offsetof(aeron_publication_error_values_t, error_message), "bad thing", 7);
    aeron_publication_error_values_t *copy = NULL;
    CHECK_EQ_LL(aeron_publication_error_values_copy(&copy, values), 0);
    CHECK(copy != NULL && copy != values);
    CHECK_EQ_LL(copy->registration_id, 5);
    CHECK_EQ_LL(copy->error_message_length, 7);
    CHECK(memcmp((const uint8_t *)copy + offsetof(aeron_publication_error_values_t, error_message), "bad thing", 7) == 0);
    aeron_publication_error_values_delete(copy);
    aeron_publication_error_values_delete(NULL);
    CHECK_FAILS_WITH(aeron_publication_error_values_copy(NULL, values), -1, EINVAL);
    values->error_message_length = -1;
    CHECK_FAILS_WITH(aeron_publication_error_values_copy(&copy, values), -1, EINVAL);
}

static void uri_string_builder(void)
{
    aeron_uri_string_builder_t builder;
    char uri[256];
    CHECK_EQ_LL(aeron_uri_string_builder_init_new(&builder), 0);
    CHECK_FAILS_WITH(aeron_uri_string_builder_sprint(&builder, uri, sizeof(uri)), -1, EINVAL); /* no media */
    CHECK_EQ_LL(aeron_uri_string_builder_put(&builder, AERON_URI_STRING_BUILDER_MEDIA_KEY, "udp"), 0);
    CHECK_EQ_LL(aeron_uri_string_builder_put(&builder, "endpoint", "localhost:20121"), 0);
    CHECK_EQ_LL(aeron_uri_string_builder_put_int32(&builder, "mtu", 8192), 0);
    CHECK_EQ_LL(aeron_uri_string_builder_put_int64(&builder, "gtag", -5), 0);
    CHECK_EQ_LL(aeron_uri_string_builder_sprint(&builder, uri, sizeof(uri)), 0);
    CHECK(strcmp(uri, "aeron:udp?endpoint=localhost:20121|mtu=8192|gtag=-5") == 0);
    CHECK(strcmp(aeron_uri_string_builder_get(&builder, "mtu"), "8192") == 0);
    CHECK(aeron_uri_string_builder_get(&builder, "nothing") == NULL);
    CHECK_EQ_LL(aeron_uri_string_builder_put(&builder, "mtu", NULL), 0);
    CHECK(aeron_uri_string_builder_get(&builder, "mtu") == NULL);
    CHECK_FAILS_WITH(aeron_uri_string_builder_put(&builder, "a|b", "c"), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_uri_string_builder_sprint(&builder, uri, 10), -1, EINVAL);
    CHECK_EQ_LL(strlen(uri), 9); /* truncated and terminated */
    CHECK_EQ_LL(aeron_uri_string_builder_set_initial_position(&builder, 131072 * 3 + 64, 777, 131072), 0);
    CHECK(strcmp(aeron_uri_string_builder_get(&builder, "term-id"), "780") == 0);
    CHECK_FAILS_WITH(aeron_uri_string_builder_set_initial_position(&builder, 33, 0, 65536), -1, EINVAL);
    CHECK_EQ_LL(aeron_uri_string_builder_close(&builder), 0);
    CHECK_EQ_LL(aeron_uri_string_builder_close(&builder), 0);
    CHECK_FAILS_WITH(aeron_uri_string_builder_put(&builder, "k", "v"), -1, EPERM);

    CHECK_EQ_LL(aeron_uri_string_builder_init_on_string(&builder, "aeron-spy:aeron:ipc?alias=x"), 0);
    CHECK(strcmp(aeron_uri_string_builder_get(&builder, AERON_URI_STRING_BUILDER_PREFIX_KEY), "aeron-spy") == 0);
    CHECK(strcmp(aeron_uri_string_builder_get(&builder, AERON_URI_STRING_BUILDER_MEDIA_KEY), "ipc") == 0);
    CHECK_EQ_LL(aeron_uri_string_builder_sprint(&builder, uri, sizeof(uri)), 0);
    CHECK(strcmp(uri, "aeron-spy:aeron:ipc?alias=x") == 0);
    CHECK_EQ_LL(aeron_uri_string_builder_close(&builder), 0);
    CHECK_FAILS_WITH(aeron_uri_string_builder_init_on_string(&builder, "nonsense"), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_uri_string_builder_init_new(NULL), -1, EINVAL);
}

int main(void)
{
    RUN(null_handles);
    RUN(refused_uris);
    RUN(client_closes_when_the_driver_goes);
    RUN(ipc_endpoint_queries);
    RUN(error_values_copy);
    RUN(uri_string_builder);
    RUN(undriven_invoker_client_times_out);
    return 0;
}
