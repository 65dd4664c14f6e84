/* The client's life cycle through aeronc.h: context defaults, environment and setters;
 * aeron_init without a driver; init/start/close in threaded and invoker mode; ids, the
 * counters printout, the context's callbacks and the handlers added at run time; asking
 * the driver to terminate. Each test runs its own embedded driver. */
#include "client_support.h"

static void context_defaults_and_setters(void)
{
    aeron_context_t *context = NULL;
    CHECK_FAILS_WITH(aeron_context_init(NULL), -1, EINVAL);
    CHECK_EQ_LL(aeron_context_init(&context), 0);
    CHECK_EQ_LL(aeron_context_get_driver_timeout_ms(context), 10000);
    CHECK_EQ_LL(aeron_context_get_keepalive_interval_ns(context), 500000000LL);
    CHECK_EQ_LL(aeron_context_get_resource_linger_duration_ns(context), 3000000000LL);
    CHECK_EQ_LL(aeron_context_get_idle_sleep_duration_ns(context), 16000000LL);
    CHECK(!aeron_context_get_pre_touch_mapped_memory(context));
    CHECK(!aeron_context_get_use_conductor_agent_invoker(context));
    CHECK(strcmp(aeron_context_get_client_name(context), "") == 0);
    CHECK(strncmp(aeron_context_get_dir(context), "/dev/shm/aeron-", 15) == 0);
    CHECK(aeron_context_get_error_handler(context) != NULL); /* prints to stderr */
    CHECK(aeron_context_get_on_new_publication(context) == NULL);
    CHECK(aeron_context_get_agent_on_start_function(context) == NULL);

    CHECK_EQ_LL(aeron_context_set_dir(context, "/tmp/somewhere"), 0);
    CHECK(strcmp(aeron_context_get_dir(context), "/tmp/somewhere") == 0);
    CHECK_EQ_LL(aeron_context_set_driver_timeout_ms(context, 1234), 0);
    CHECK_EQ_LL(aeron_context_get_driver_timeout_ms(context), 1234);
    CHECK_EQ_LL(aeron_context_set_keepalive_interval_ns(context, 7), 0);
    CHECK_EQ_LL(aeron_context_get_keepalive_interval_ns(context), 7);
    CHECK_EQ_LL(aeron_context_set_resource_linger_duration_ns(context, 8), 0);
    CHECK_EQ_LL(aeron_context_get_resource_linger_duration_ns(context), 8);
    CHECK_EQ_LL(aeron_context_set_idle_sleep_duration_ns(context, 9), 0);
    CHECK_EQ_LL(aeron_context_get_idle_sleep_duration_ns(context), 9);
    CHECK_EQ_LL(aeron_context_set_pre_touch_mapped_memory(context, true), 0);
    CHECK(aeron_context_get_pre_touch_mapped_memory(context));
    CHECK_EQ_LL(aeron_context_set_use_conductor_agent_invoker(context, true), 0);
    CHECK(aeron_context_get_use_conductor_agent_invoker(context));
    CHECK_EQ_LL(aeron_context_set_client_name(context, "tester"), 0);
    CHECK(strcmp(aeron_context_get_client_name(context), "tester") == 0);
    char long_name[128];
    memset(long_name, 'n', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    CHECK_FAILS_WITH(aeron_context_set_client_name(context, long_name), -1, EINVAL);
    CHECK(strcmp(aeron_context_get_client_name(context), "tester") == 0);
    int marker = 0;
    CHECK_EQ_LL(aeron_context_set_error_handler(context, NULL, &marker), 0);
    CHECK(aeron_context_get_error_handler(context) == NULL);
    CHECK(aeron_context_get_error_handler_clientd(context) == &marker);

    CHECK_FAILS_WITH(aeron_context_set_dir(NULL, "x"), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_context_set_dir(context, NULL), -1, EINVAL);
    CHECK(aeron_context_get_dir(NULL) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_EQ_LL(aeron_context_get_driver_timeout_ms(NULL), 0);
    CHECK_EQ_LL(aeron_context_close(context), 0);
    CHECK_EQ_LL(aeron_context_close(NULL), 0);
}

static void context_reads_the_environment(void)
{
    CHECK_EQ_LL(setenv(AERON_DIR_ENV_VAR, "/tmp/from-env", 1), 0);
    CHECK_EQ_LL(setenv(AERON_DRIVER_TIMEOUT_ENV_VAR, "2500", 1), 0);
    CHECK_EQ_LL(setenv(AERON_CLIENT_NAME_ENV_VAR, "env-name", 1), 0);
    CHECK_EQ_LL(setenv(AERON_CLIENT_IDLE_SLEEP_DURATION_ENV_VAR, "2ms", 1), 0);
    aeron_context_t *context = NULL;
    CHECK_EQ_LL(aeron_context_init(&context), 0);
    CHECK(strcmp(aeron_context_get_dir(context), "/tmp/from-env") == 0);
    CHECK_EQ_LL(aeron_context_get_driver_timeout_ms(context), 2500);
    CHECK(strcmp(aeron_context_get_client_name(context), "env-name") == 0);
    CHECK_EQ_LL(aeron_context_get_idle_sleep_duration_ns(context), 2000000);
    CHECK_EQ_LL(aeron_context_close(context), 0);

    CHECK_EQ_LL(setenv(AERON_DRIVER_TIMEOUT_ENV_VAR, "soon", 1), 0);
    CHECK_FAILS_WITH(aeron_context_init(&context), -1, EINVAL);
    CHECK(strstr(aeron_errmsg(), AERON_DRIVER_TIMEOUT_ENV_VAR) != NULL);
    unsetenv(AERON_DIR_ENV_VAR);
    unsetenv(AERON_DRIVER_TIMEOUT_ENV_VAR);
    unsetenv(AERON_CLIENT_NAME_ENV_VAR);
    unsetenv(AERON_CLIENT_IDLE_SLEEP_DURATION_ENV_VAR);
}

static void init_without_a_driver_times_out(void)
{
    char dir[256];
    make_temp_dir(dir, sizeof(dir), "nodriver");
    aeron_context_t *context = NULL;
    CHECK_EQ_LL(aeron_context_init(&context), 0);
    CHECK_EQ_LL(aeron_context_set_dir(context, dir), 0);
    CHECK_EQ_LL(aeron_context_set_driver_timeout_ms(context, 200), 0);
    aeron_t *client = NULL;
    CHECK_FAILS_WITH(aeron_init(&client, context), -1, ETIMEDOUT);
    CHECK(strstr(aeron_errmsg(), dir) != NULL);
    CHECK(client == NULL);
    CHECK_FAILS_WITH(aeron_init(NULL, context), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_init(&client, NULL), -1, EINVAL);
    CHECK_EQ_LL(aeron_context_close(context), 0);
    rmdir(dir);
}

/* Written by callbacks on the conductor thread, read by the test thread. */
typedef struct
{
    volatile int errors;
    volatile int closes;
    volatile int added_closes;
    volatile int new_publications;
    volatile int new_exclusive_publications;
    volatile int new_subscriptions;
    volatile int starts;
    char role[64];
    int64_t last_publication_correlation_id;
    void *last_async;
    volatile int available_counters;
    volatile int unavailable_counters;
    volatile int added_available_counters;
    aeron_counters_reader_t *counters_reader;
}
callbacks_seen_t;

static void on_error(void *clientd, int errcode, const char *message)
{
    (void)errcode;
    (void)message;
    ((callbacks_seen_t *)clientd)->errors++;
}

static void on_close(void *clientd)
{
    ((callbacks_seen_t *)clientd)->closes++;
}

static void on_added_close(void *clientd)
{
    ((callbacks_seen_t *)clientd)->added_closes++;
}

static void on_new_publication(
    void *clientd, aeron_async_add_publication_t *async, const char *channel, int32_t stream_id,
    int32_t session_id, int64_t correlation_id)
{
    callbacks_seen_t *seen = (callbacks_seen_t *)clientd;
    CHECK(strcmp(channel, IPC) == 0);
    CHECK_EQ_LL(stream_id, 10);
    (void)session_id;
    seen->new_publications++;
    seen->last_publication_correlation_id = correlation_id;
    seen->last_async = async;
}

static void on_new_exclusive_publication(
    void *clientd, aeron_async_add_publication_t *async, const char *channel, int32_t stream_id,
    int32_t session_id, int64_t correlation_id)
{
    (void)async;
    (void)channel;
    (void)stream_id;
    (void)session_id;
    (void)correlation_id;
    ((callbacks_seen_t *)clientd)->new_exclusive_publications++;
}

static void on_new_subscription(
    void *clientd, aeron_async_add_subscription_t *async, const char *channel, int32_t stream_id,
    int64_t correlation_id)
{
    (void)async;
    (void)correlation_id;
    CHECK(strcmp(channel, IPC) == 0);
    CHECK_EQ_LL(stream_id, 11);
    ((callbacks_seen_t *)clientd)->new_subscriptions++;
}

static void on_start(void *state, const char *role_name)
{
    callbacks_seen_t *seen = (callbacks_seen_t *)state;
    seen->starts++;
    snprintf(seen->role, sizeof(seen->role), "%s", role_name);
}

static void on_available_counter(
    void *clientd, aeron_counters_reader_t *reader, int64_t registration_id, int32_t counter_id)
{
    callbacks_seen_t *seen = (callbacks_seen_t *)clientd;
    (void)registration_id;
    (void)counter_id;
    seen->counters_reader = reader;
    seen->available_counters++;
}

static void on_unavailable_counter(
    void *clientd, aeron_counters_reader_t *reader, int64_t registration_id, int32_t counter_id)
{
    (void)reader;
    (void)registration_id;
    (void)counter_id;
    ((callbacks_seen_t *)clientd)->unavailable_counters++;
}

static void on_added_available_counter(
    void *clientd, aeron_counters_reader_t *reader, int64_t registration_id, int32_t counter_id)
{
    (void)reader;
    (void)registration_id;
    (void)counter_id;
    ((callbacks_seen_t *)clientd)->added_available_counters++;
}

static int g_lines = 0;
static int g_heartbeat_lines = 0;

static void count_line(const char *line)
{
    g_lines++;
    if (strstr(line, "client-heartbeat") != NULL)
    {
        g_heartbeat_lines++;
    }
    CHECK(line[strlen(line) - 1] == '\n');
}

static void threaded_client_with_callbacks(void)
{
    test_env_t env;
    memset(&env, 0, sizeof(env));
    start_driver(&env, "threaded");
    callbacks_seen_t seen;
    memset(&seen, 0, sizeof(seen));
    env.context = client_context(&env);
    aeron_context_t *context = env.context;
    CHECK_EQ_LL(aeron_context_set_error_handler(context, on_error, &seen), 0);
    CHECK_EQ_LL(aeron_context_set_on_close_client(context, on_close, &seen), 0);
    CHECK_EQ_LL(aeron_context_set_on_new_publication(context, on_new_publication, &seen), 0);
    CHECK_EQ_LL(aeron_context_set_on_new_exclusive_publication(context, on_new_exclusive_publication, &seen), 0);
    CHECK_EQ_LL(aeron_context_set_on_new_subscription(context, on_new_subscription, &seen), 0);
    CHECK_EQ_LL(aeron_context_set_agent_on_start_function(context, on_start, &seen), 0);
    CHECK_EQ_LL(aeron_context_set_on_available_counter(context, on_available_counter, &seen), 0);
    CHECK_EQ_LL(aeron_context_set_on_unavailable_counter(context, on_unavailable_counter, &seen), 0);
    CHECK(aeron_context_get_on_new_publication(context) == on_new_publication);
    CHECK(aeron_context_get_on_new_publication_clientd(context) == &seen);
    CHECK(aeron_context_get_agent_on_start_state(context) == &seen);
    CHECK(aeron_context_get_on_available_counter(context) == on_available_counter);
    CHECK(aeron_context_get_on_unavailable_counter_clientd(context) == &seen);
    CHECK_EQ_LL(aeron_init(&env.client, context), 0);
    CHECK_EQ_LL(seen.starts, 0);
    CHECK_EQ_LL(aeron_start(env.client), 0);
    CHECK_EQ_LL(aeron_start(env.client), 0); /* idempotent */
    aeron_t *client = env.client;
    CHECK(aeron_context(client) == context);
    CHECK(!aeron_is_closed(client));
    CHECK(aeron_client_id(client) >= 0);
    int64_t id = aeron_next_correlation_id(client);
    CHECK(aeron_next_correlation_id(client) > id);
    CHECK_FAILS_WITH(aeron_main_do_work(client), -1, EPERM); /* threaded: the conductor runs itself */
    CHECK(aeron_counters_reader(client) != NULL);

    aeron_on_close_client_pair_t close_pair = { on_added_close, &seen };
    CHECK_EQ_LL(aeron_add_close_handler(client, &close_pair), 0);
    CHECK_FAILS_WITH(aeron_add_close_handler(client, &close_pair), -1, EINVAL);
    aeron_on_available_counter_pair_t counter_pair = { on_added_available_counter, &seen };
    CHECK_EQ_LL(aeron_add_available_counter_handler(client, &counter_pair), 0);

    aeron_async_add_publication_t *async = NULL;
    CHECK_EQ_LL(aeron_async_add_publication(&async, client, IPC, 10), 0);
    int64_t registration_id = aeron_async_add_publication_get_registration_id(async);
    CHECK(registration_id > 0);
    aeron_publication_t *publication = NULL;
    int result = 0;
    WAIT_FOR((result = aeron_async_add_publication_poll(&publication, async)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, 1);
    /* The callback runs on the conductor thread once the driver answered: maybe after the poll. */
    WAIT_FOR(seen.new_publications == 1, sleep_ms(1));
    CHECK_EQ_LL(seen.last_publication_correlation_id, registration_id);
    CHECK(seen.last_async == NULL || seen.last_async == async);
    aeron_exclusive_publication_t *exclusive = add_exclusive_publication(client, IPC, 12);
    WAIT_FOR(seen.new_exclusive_publications == 1, sleep_ms(1));
    aeron_subscription_t *subscription = add_subscription(client, IPC, 11);
    WAIT_FOR(seen.new_subscriptions == 1, sleep_ms(1));

    /* A counter of this client: both available handlers hear of it, then the unavailable one. */
    aeron_async_add_counter_t *add_counter = NULL;
    aeron_counter_t *counter = NULL;
    CHECK_EQ_LL(aeron_async_add_counter(&add_counter, client, 1001, NULL, 0, "lifecycle", 9), 0);
    WAIT_FOR((result = aeron_async_add_counter_poll(&counter, add_counter)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, 1);
    WAIT_FOR(seen.available_counters >= 1 && seen.added_available_counters >= 1, sleep_ms(1));
    CHECK(seen.counters_reader == aeron_counters_reader(client));
    CHECK_EQ_LL(aeron_remove_available_counter_handler(client, &counter_pair), 0);
    CHECK_FAILS_WITH(aeron_remove_available_counter_handler(client, &counter_pair), -1, EINVAL);
    CHECK_EQ_LL(aeron_counter_close(counter, NULL, NULL), 0);
    WAIT_FOR(seen.unavailable_counters >= 1, sleep_ms(1));

    g_lines = 0;
    aeron_print_counters(client, count_line);
    CHECK(g_lines >= 5); /* system counters, the heartbeat, the publications' positions */
    CHECK_EQ_LL(g_heartbeat_lines, 1);
    aeron_print_counters(client, NULL);
    aeron_print_counters(NULL, count_line);

    WAIT_FOR(seen.starts == 1, sleep_ms(1));
    CHECK(strcmp(seen.role, "aeron-client-conductor") == 0);
    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_close(exclusive, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    CHECK_EQ_LL(seen.closes, 0);
    CHECK_EQ_LL(aeron_close(client), 0);
    CHECK_EQ_LL(seen.closes, 1);
    CHECK_EQ_LL(seen.added_closes, 1);
    CHECK_EQ_LL(seen.errors, 0);
    env.client = NULL;
    teardown(&env);
}

static void invoker_mode_is_driven_by_the_application(void)
{
    test_env_t env;
    memset(&env, 0, sizeof(env));
    start_driver(&env, "invoker");
    callbacks_seen_t seen;
    memset(&seen, 0, sizeof(seen));
    env.context = client_context(&env);
    CHECK_EQ_LL(aeron_context_set_use_conductor_agent_invoker(env.context, true), 0);
    CHECK_EQ_LL(aeron_context_set_agent_on_start_function(env.context, on_start, &seen), 0);
    CHECK_EQ_LL(aeron_init(&env.client, env.context), 0);
    CHECK_FAILS_WITH(aeron_main_do_work(env.client), -1, EPERM); /* not started */
    CHECK_EQ_LL(aeron_start(env.client), 0);
    CHECK_EQ_LL(seen.starts, 1);

    aeron_async_add_publication_t *async = NULL;
    aeron_publication_t *publication = NULL;
    CHECK_EQ_LL(aeron_async_add_publication(&async, env.client, IPC, 20), 0);
    int result = 0;
    int64_t work = 0;
    WAIT_FOR((result = aeron_async_add_publication_poll(&publication, async)) != 0, {
        int n = aeron_main_do_work(env.client);
        CHECK(n >= 0);
        work += n;
        aeron_main_idle_strategy(env.client, n);
    });
    CHECK_EQ_LL(result, 1);
    CHECK(work > 0);
    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    aeron_main_idle_strategy(NULL, 0);
    teardown(&env);
}

static void driver_termination_request(void)
{
    test_env_t env;
    memset(&env, 0, sizeof(env));
    start_driver(&env, "terminate");
    /* The embedded driver's default validator refuses every token: the request is written
     * and the driver keeps running. */
    CHECK_EQ_LL(aeron_context_request_driver_termination(env.dir, (const uint8_t *)"token", 5), 1);
    CHECK_EQ_LL(aeron_context_request_driver_termination(env.dir, NULL, 0), 1);
    sleep_ms(50);
    CHECK(aeron_is_driver_active(env.dir, 10000, NULL));
    CHECK_FAILS_WITH(aeron_context_request_driver_termination(NULL, NULL, 0), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_context_request_driver_termination(env.dir, NULL, 3), -1, EINVAL);
    CHECK_EQ_LL(aeron_context_request_driver_termination("/tmp/aeronrs-no-such-dir", NULL, 0), -1);
    CHECK_EQ_LL(aeron_errcode(), ENOENT);
    teardown(&env);
}

static void null_client_arguments(void)
{
    CHECK_FAILS_WITH(aeron_start(NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_main_do_work(NULL), -1, EINVAL);
    CHECK(!aeron_is_closed(NULL));
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(aeron_context(NULL) == NULL);
    CHECK_FAILS_WITH(aeron_client_id(NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_next_correlation_id(NULL), -1, EINVAL);
    CHECK(aeron_counters_reader(NULL) == NULL);
    CHECK_FAILS_WITH(aeron_add_close_handler(NULL, NULL), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_remove_unavailable_counter_handler(NULL, NULL), -1, EINVAL);
    CHECK_EQ_LL(aeron_close(NULL), 0);
}

int main(void)
{
    RUN(context_defaults_and_setters);
    RUN(context_reads_the_environment);
    RUN(init_without_a_driver_times_out);
    RUN(threaded_client_with_callbacks);
    RUN(invoker_mode_is_driven_by_the_application);
    RUN(driver_termination_request);
    RUN(null_client_arguments);
    return 0;
}
