/* The embedded driver API of aeronmd.h: every aeron_driver_context_set_* / get_* pair
 * (round trip, Aeron's default for a NULL context, EINVAL for a NULL context on set, bad
 * values), the environment and properties as sources of settings, the suppliers and
 * callbacks, validation at aeron_driver_init, and the driver lifecycle in INVOKER (manual
 * main loop) and DEDICATED modes against a temporary Aeron directory. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aeronmd.h"
#include "test_util.h"

extern char **environ;

#define CHECK_FAILS(call, failure, code)                                                    \
    do                                                                                      \
    {                                                                                       \
        CHECK_EQ_LL((call), (failure));                                                     \
        CHECK_EQ_LL(aeron_errcode(), (code));                                               \
    }                                                                                       \
    while (0)

/* A scalar setting: Aeron's default (NULL context and fresh context), round trip, and a
 * NULL context on set. */
#define CHECK_PAIR(ctx, name, value, default_value)                                         \
    do                                                                                      \
    {                                                                                       \
        CHECK_EQ_LL(aeron_driver_context_get_##name(NULL), (default_value));                \
        CHECK_EQ_LL(aeron_driver_context_get_##name(ctx), (default_value));                 \
        CHECK_EQ_LL(aeron_driver_context_set_##name((ctx), (value)), 0);                    \
        CHECK_EQ_LL(aeron_driver_context_get_##name(ctx), (value));                         \
        CHECK_FAILS(aeron_driver_context_set_##name(NULL, (value)), -1, EINVAL);            \
    }                                                                                       \
    while (0)

/* A text setting: round trip, NULL for a NULL context unless stated. */
#define CHECK_TEXT(ctx, name, value)                                                        \
    do                                                                                      \
    {                                                                                       \
        CHECK_EQ_LL(aeron_driver_context_set_##name((ctx), (value)), 0);                    \
        CHECK(strcmp(aeron_driver_context_get_##name(ctx), (value)) == 0);                  \
        CHECK_FAILS(aeron_driver_context_set_##name(NULL, (value)), -1, EINVAL);            \
    }                                                                                       \
    while (0)

static char g_dir[] = "/tmp/aeronrs-driver-XXXXXX";

/* Tests must see Aeron's defaults, whatever the caller's environment holds. */
static void clear_aeron_environment(void)
{
    char names[256][128];
    int count = 0;
    for (char **e = environ; *e != NULL && count < 256; e++)
    {
        if (strncmp(*e, "AERON_", 6) == 0)
        {
            const char *eq = strchr(*e, '=');
            size_t n = NULL != eq ? (size_t)(eq - *e) : strlen(*e);
            n = n < 127 ? n : 127;
            memcpy(names[count], *e, n);
            names[count][n] = '\0';
            count++;
        }
    }
    for (int i = 0; i < count; i++)
    {
        unsetenv(names[i]);
    }
}

static void scalar_settings(void)
{
    aeron_driver_context_t *ctx = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);

    CHECK_PAIR(ctx, dir_warn_if_exists, true, false);
    CHECK_PAIR(ctx, dir_delete_on_start, true, false);
    CHECK_PAIR(ctx, dir_delete_on_shutdown, true, false);
    CHECK_PAIR(ctx, to_conductor_buffer_length, 2 * 1024 * 1024 + 768, 1024 * 1024 + 768);
    CHECK_PAIR(ctx, to_clients_buffer_length, 2 * 1024 * 1024 + 128, 1024 * 1024 + 128);
    CHECK_PAIR(ctx, counters_buffer_length, 2 * 1024 * 1024, 1024 * 1024);
    CHECK_PAIR(ctx, error_buffer_length, 2 * 1024 * 1024, 1024 * 1024);
    CHECK_PAIR(ctx, loss_report_buffer_length, 2 * 1024 * 1024, 1024 * 1024);
    CHECK_PAIR(ctx, term_buffer_length, 64 * 1024, 16 * 1024 * 1024);
    CHECK_PAIR(ctx, ipc_term_buffer_length, 128 * 1024, 64 * 1024 * 1024);
    CHECK_PAIR(ctx, term_buffer_sparse_file, true, false);
    CHECK_PAIR(ctx, perform_storage_checks, false, true);
    CHECK_PAIR(ctx, low_file_store_warning_threshold, 1024, INT64_C(160) * 1024 * 1024);
    CHECK_PAIR(ctx, file_page_size, 8192, 4096);
    CHECK_PAIR(ctx, print_configuration, true, false);
    CHECK_PAIR(ctx, spies_simulate_connection, true, false);
    CHECK_PAIR(ctx, mtu_length, 8192, 1408);
    CHECK_PAIR(ctx, ipc_mtu_length, 4096, 1408);
    CHECK_PAIR(ctx, ipc_publication_term_window_length, 65536, 0);
    CHECK_PAIR(ctx, publication_term_window_length, 65536, 0);
    CHECK_PAIR(ctx, reliable_stream, false, true);
    CHECK_PAIR(ctx, tether_subscriptions, false, true);
    CHECK_PAIR(ctx, rejoin_stream, false, true);
    CHECK_PAIR(ctx, publication_reserved_session_id_low, -100, -1);
    CHECK_PAIR(ctx, publication_reserved_session_id_high, 100, 1000);
    CHECK_PAIR(ctx, stream_session_limit, 5, INT32_MAX);
    CHECK_PAIR(ctx, enable_experimental_features, true, false);
    CHECK_PAIR(ctx, resource_free_limit, 3, 10);

    CHECK_PAIR(ctx, client_liveness_timeout_ns, INT64_C(20000000000), INT64_C(10000000000));
    CHECK_PAIR(ctx, publication_linger_timeout_ns, INT64_C(1000000000), INT64_C(5000000000));
    CHECK_PAIR(ctx, image_liveness_timeout_ns, INT64_C(3000000000), INT64_C(10000000000));
    CHECK_PAIR(ctx, publication_unblock_timeout_ns, INT64_C(30000000000), INT64_C(15000000000));
    CHECK_PAIR(ctx, publication_connection_timeout_ns, INT64_C(3000000000), INT64_C(5000000000));
    CHECK_PAIR(ctx, timer_interval_ns, INT64_C(500000000), INT64_C(1000000000));
    CHECK_PAIR(ctx, counters_free_to_reuse_timeout_ns, INT64_C(2000000000), INT64_C(1000000000));
    CHECK_PAIR(ctx, untethered_window_limit_timeout_ns, INT64_C(6000000000), INT64_C(5000000000));
    CHECK_PAIR(ctx, untethered_resting_timeout_ns, INT64_C(6000000000), INT64_C(10000000000));
    CHECK_PAIR(ctx, driver_timeout_ms, 20000, 10000);
    CHECK_PAIR(ctx, rcv_status_message_timeout_ns, INT64_C(100000000), INT64_C(200000000));
    CHECK_PAIR(ctx, re_resolution_check_interval_ns, INT64_C(2000000000), INT64_C(1000000000));
    CHECK_PAIR(ctx, flow_control_receiver_timeout_ns, INT64_C(2000000000), INT64_C(5000000000));
    CHECK_PAIR(ctx, conductor_cycle_threshold_ns, INT64_C(2000000), INT64_C(1000000000));
    CHECK_PAIR(ctx, sender_cycle_threshold_ns, INT64_C(3000000), INT64_C(1000000000));
    CHECK_PAIR(ctx, receiver_cycle_threshold_ns, INT64_C(4000000), INT64_C(1000000000));
    CHECK_PAIR(ctx, name_resolver_threshold_ns, INT64_C(5000000), INT64_C(5000000000));

    CHECK_PAIR(ctx, socket_so_rcvbuf, 256 * 1024, 128 * 1024);
    CHECK_PAIR(ctx, socket_so_sndbuf, 256 * 1024, 0);
    CHECK_PAIR(ctx, socket_multicast_ttl, 8, 0);
    CHECK_PAIR(ctx, send_to_status_poll_ratio, 4, 6);
    CHECK_PAIR(ctx, rcv_initial_window_length, 256 * 1024, 128 * 1024);
    CHECK_PAIR(ctx, nak_multicast_group_size, 20, 10);
    CHECK_PAIR(ctx, nak_multicast_max_backoff_ns, INT64_C(20000000), INT64_C(10000000));
    CHECK_PAIR(ctx, nak_unicast_delay_ns, INT64_C(200000), INT64_C(100000));
    CHECK_PAIR(ctx, nak_unicast_retry_delay_ratio, 50, 100);
    CHECK_PAIR(ctx, max_resend, 32, 16);
    CHECK_PAIR(ctx, retransmit_unicast_delay_ns, INT64_C(1000), 0);
    CHECK_PAIR(ctx, retransmit_unicast_linger_ns, INT64_C(20000000), INT64_C(10000000));
    CHECK_PAIR(ctx, flow_control_group_tag, 77, -1);
    CHECK_PAIR(ctx, flow_control_group_min_size, 3, 0);
    CHECK_PAIR(ctx, connect_enabled, false, true);
    CHECK_PAIR(ctx, receiver_io_vector_capacity, 8, 2);
    CHECK_PAIR(ctx, sender_io_vector_capacity, 8, 2);
    CHECK_PAIR(ctx, network_publication_max_messages_per_send, 8, 2);

    CHECK_PAIR(ctx, conductor_cpu_affinity, 1, -1);
    CHECK_PAIR(ctx, sender_cpu_affinity, 1, -1);
    CHECK_PAIR(ctx, receiver_cpu_affinity, 1, -1);
    CHECK_PAIR(ctx, async_executor_threads, 0, 1);
    CHECK_PAIR(ctx, async_executor_cpu_affinity, 1, -1);

    /* size_t settings held in 32 bits reject what does not fit. */
    CHECK_FAILS(aeron_driver_context_set_send_to_status_poll_ratio(ctx, (size_t)UINT32_MAX + 1), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_nak_multicast_group_size(ctx, (size_t)UINT32_MAX + 1), -1, EINVAL);
    CHECK_EQ_LL(aeron_driver_context_get_nak_multicast_group_size(ctx), 20);

    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
    CHECK_FAILS(aeron_driver_context_close(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_init(NULL), -1, EINVAL);
}

static void text_and_enum_settings(void)
{
    aeron_driver_context_t *ctx = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);

    CHECK(aeron_driver_context_get_dir(NULL) == NULL);
    const char *dir = aeron_driver_context_get_dir(ctx);
    CHECK(strncmp(dir, "/dev/shm/aeron-", 15) == 0);
    CHECK(aeron_driver_context_get_dir(ctx) == dir); /* stable until changed */
    CHECK_TEXT(ctx, dir, "/tmp/somewhere");
    CHECK_FAILS(aeron_driver_context_set_dir(ctx, NULL), -1, EINVAL);

    CHECK_EQ_LL(aeron_driver_context_get_threading_mode(NULL), AERON_THREADING_MODE_DEDICATED);
    CHECK_EQ_LL(aeron_driver_context_get_threading_mode(ctx), AERON_THREADING_MODE_DEDICATED);
    aeron_threading_mode_t modes[] = {
        AERON_THREADING_MODE_SHARED_NETWORK, AERON_THREADING_MODE_SHARED, AERON_THREADING_MODE_INVOKER,
        AERON_THREADING_MODE_DEDICATED };
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
    {
        CHECK_EQ_LL(aeron_driver_context_set_threading_mode(ctx, modes[i]), 0);
        CHECK_EQ_LL(aeron_driver_context_get_threading_mode(ctx), modes[i]);
    }
    CHECK_EQ_LL(AERON_THREADING_MODE_DEDICATED, 0);
    CHECK_EQ_LL(AERON_THREADING_MODE_INVOKER, 3);
    CHECK_FAILS(aeron_driver_context_set_threading_mode(ctx, 4), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_threading_mode(NULL, AERON_THREADING_MODE_SHARED), -1, EINVAL);

    /* Idle strategies: names as set, init args applied when the name is next set. */
    CHECK(strcmp(aeron_driver_context_get_sender_idle_strategy(NULL), "aeron_idle_strategy_backoff") == 0);
    CHECK(strcmp(aeron_driver_context_get_conductor_idle_strategy(ctx), "backoff") == 0);
    CHECK(aeron_driver_context_get_conductor_idle_strategy_init_args(ctx) == NULL);
    CHECK_EQ_LL(aeron_driver_context_set_conductor_idle_strategy_init_args(ctx, "100us"), 0);
    CHECK(strcmp(aeron_driver_context_get_conductor_idle_strategy_init_args(ctx), "100us") == 0);
    CHECK_TEXT(ctx, conductor_idle_strategy, "sleep-ns");
    CHECK_TEXT(ctx, sender_idle_strategy, "yield");
    CHECK_TEXT(ctx, receiver_idle_strategy, "spin");
    CHECK_TEXT(ctx, sharednetwork_idle_strategy, "noop");
    CHECK_EQ_LL(aeron_driver_context_set_shared_idle_strategy_init_args(ctx, "1-2-1us-1ms"), 0);
    CHECK_TEXT(ctx, shared_idle_strategy, "backoff");
    CHECK_TEXT(ctx, sender_idle_strategy_init_args, "5us");
    CHECK_TEXT(ctx, receiver_idle_strategy_init_args, "6us");
    CHECK_TEXT(ctx, sharednetwork_idle_strategy_init_args, "7us");
    CHECK_EQ_LL(aeron_driver_context_set_sender_idle_strategy_init_args(ctx, NULL), 0);
    CHECK(aeron_driver_context_get_sender_idle_strategy_init_args(ctx) == NULL);
    CHECK_FAILS(aeron_driver_context_set_sender_idle_strategy(ctx, "fastest"), -1, EINVAL);
    CHECK(strstr(aeron_errmsg(), "AERON_SENDER_IDLE_STRATEGY") != NULL);
    CHECK(strcmp(aeron_driver_context_get_sender_idle_strategy(ctx), "yield") == 0);
    CHECK_EQ_LL(aeron_driver_context_set_receiver_idle_strategy_init_args(ctx, "1-2"), 0);
    CHECK_FAILS(aeron_driver_context_set_receiver_idle_strategy(ctx, "backoff"), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_shared_idle_strategy(ctx, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_shared_idle_strategy_init_args(NULL, "x"), -1, EINVAL);
    CHECK(aeron_driver_context_get_shared_idle_strategy_init_args(NULL) == NULL);

    /* Name resolution texts; NULL clears. */
    CHECK(aeron_driver_context_get_resolver_name(ctx) == NULL);
    CHECK_TEXT(ctx, resolver_name, "node-a");
    CHECK_TEXT(ctx, resolver_interface, "127.0.0.1:8050");
    CHECK_TEXT(ctx, resolver_bootstrap_neighbor, "127.0.0.1:8051");
    CHECK_TEXT(ctx, name_resolver_init_args, "x=y");
    CHECK_EQ_LL(aeron_driver_context_set_resolver_name(ctx, NULL), 0);
    CHECK(aeron_driver_context_get_resolver_name(ctx) == NULL);
    CHECK(aeron_driver_context_get_resolver_interface(NULL) == NULL);

    CHECK_EQ_LL(aeron_driver_context_get_receiver_group_consideration(NULL), AERON_INFER);
    CHECK_EQ_LL(aeron_driver_context_get_receiver_group_consideration(ctx), AERON_INFER);
    CHECK_EQ_LL(aeron_driver_context_set_receiver_group_consideration(ctx, AERON_FORCE_TRUE), 0);
    CHECK_EQ_LL(aeron_driver_context_get_receiver_group_consideration(ctx), AERON_FORCE_TRUE);
    CHECK_EQ_LL(aeron_driver_context_set_receiver_group_consideration(ctx, AERON_FORCE_FALSE), 0);
    CHECK_EQ_LL(aeron_driver_context_get_receiver_group_consideration(ctx), AERON_FORCE_FALSE);
    CHECK_FAILS(aeron_driver_context_set_receiver_group_consideration(ctx, 9), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_receiver_group_consideration(NULL, AERON_INFER), -1, EINVAL);

    CHECK(!aeron_driver_context_get_receiver_group_tag_is_present(ctx));
    CHECK_EQ_LL(aeron_driver_context_get_receiver_group_tag_value(ctx), -1);
    CHECK_EQ_LL(aeron_driver_context_set_receiver_group_tag(ctx, true, 42), 0);
    CHECK(aeron_driver_context_get_receiver_group_tag_is_present(ctx));
    CHECK_EQ_LL(aeron_driver_context_get_receiver_group_tag_value(ctx), 42);
    CHECK_EQ_LL(aeron_driver_context_set_receiver_group_tag(ctx, false, 43), 0);
    CHECK(!aeron_driver_context_get_receiver_group_tag_is_present(ctx));
    CHECK_FAILS(aeron_driver_context_set_receiver_group_tag(NULL, true, 1), -1, EINVAL);
    CHECK(!aeron_driver_context_get_receiver_group_tag_is_present(NULL));

    uint16_t low = 1, high = 1;
    CHECK_EQ_LL(aeron_driver_context_get_sender_wildcard_port_range(ctx, &low, &high), 0);
    CHECK(low == 0 && high == 0);
    CHECK_EQ_LL(aeron_driver_context_set_sender_wildcard_port_range(ctx, 20000, 20010), 0);
    CHECK_EQ_LL(aeron_driver_context_get_sender_wildcard_port_range(ctx, &low, &high), 0);
    CHECK(low == 20000 && high == 20010);
    CHECK_EQ_LL(aeron_driver_context_set_receiver_wildcard_port_range(ctx, 30000, 30001), 0);
    CHECK_EQ_LL(aeron_driver_context_get_receiver_wildcard_port_range(ctx, &low, &high), 0);
    CHECK(low == 30000 && high == 30001);
    CHECK_FAILS(aeron_driver_context_get_receiver_wildcard_port_range(NULL, &low, &high), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_get_sender_wildcard_port_range(ctx, NULL, &high), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_sender_wildcard_port_range(NULL, 1, 2), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_receiver_wildcard_port_range(NULL, 1, 2), -1, EINVAL);

    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
}

static int custom_flow_control(
    aeron_flow_control_strategy_t **strategy,
    aeron_driver_context_t *context,
    aeron_counters_manager_t *counters_manager,
    const aeron_udp_channel_t *channel,
    int32_t stream_id,
    int32_t session_id,
    int64_t registration_id,
    int32_t initial_term_id,
    size_t term_length)
{
    (void)strategy; (void)context; (void)counters_manager; (void)channel; (void)stream_id;
    (void)session_id; (void)registration_id; (void)initial_term_id; (void)term_length;
    return 0;
}

static int custom_congestion_control(
    aeron_congestion_control_strategy_t **strategy,
    aeron_udp_channel_t *channel,
    int32_t stream_id,
    int32_t session_id,
    int64_t registration_id,
    int32_t term_length,
    int32_t sender_mtu_length,
    struct sockaddr_storage *control_address,
    struct sockaddr_storage *src_address,
    aeron_driver_context_t *context,
    aeron_counters_manager_t *counters_manager)
{
    (void)strategy; (void)channel; (void)stream_id; (void)session_id; (void)registration_id;
    (void)term_length; (void)sender_mtu_length; (void)control_address; (void)src_address;
    (void)context; (void)counters_manager;
    return 0;
}

static int g_validations = 0;
static bool validate_token(void *state, uint8_t *buffer, int32_t length)
{
    (void)buffer;
    g_validations++;
    return state != NULL && length == 4;
}

static int g_hook_calls = 0;
static void termination_hook(void *clientd)
{
    (void)clientd;
    g_hook_calls++;
}

typedef struct
{
    int calls;
    char role[64];
} on_start_seen_t;

static void on_start(void *state, const char *role_name)
{
    /* Agents of a DEDICATED driver start on several threads at once. */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    on_start_seen_t *seen = (on_start_seen_t *)state;
    pthread_mutex_lock(&lock);
    seen->calls++;
    snprintf(seen->role, sizeof(seen->role), "%s", role_name);
    pthread_mutex_unlock(&lock);
}

static void suppliers_and_callbacks(void)
{
    aeron_driver_context_t *ctx = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);

    aeron_flow_control_strategy_supplier_func_t unicast = aeron_flow_control_strategy_supplier_by_name(
        AERON_UNICAST_MAX_FLOW_CONTROL_STRATEGY_NAME);
    aeron_flow_control_strategy_supplier_func_t max = aeron_flow_control_strategy_supplier_by_name(
        AERON_MULTICAST_MAX_FLOW_CONTROL_STRATEGY_NAME);
    aeron_flow_control_strategy_supplier_func_t min = aeron_flow_control_strategy_supplier_by_name(
        AERON_MULTICAST_MIN_FLOW_CONTROL_STRATEGY_NAME);
    aeron_flow_control_strategy_supplier_func_t tagged = aeron_flow_control_strategy_supplier_by_name(
        AERON_MULTICAST_TAGGED_FLOW_CONTROL_STRATEGY_NAME);
    CHECK(unicast != NULL && max != NULL && min != NULL && tagged != NULL);
    CHECK(unicast != max && max != min && min != tagged && unicast != tagged);
    CHECK(aeron_flow_control_strategy_supplier_by_name("aeron_max_multicast_flow_control_strategy_supplier") == max);
    CHECK(aeron_flow_control_strategy_supplier_by_name("bogus") == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(aeron_flow_control_strategy_supplier_by_name(NULL) == NULL);
    CHECK(aeron_driver_context_get_unicast_flowcontrol_supplier(ctx) == unicast);
    CHECK(aeron_driver_context_get_multicast_flowcontrol_supplier(ctx) == max);
    CHECK(aeron_driver_context_get_multicast_flowcontrol_supplier(NULL) == max);
    CHECK_EQ_LL(aeron_driver_context_set_multicast_flowcontrol_supplier(ctx, tagged), 0);
    CHECK(aeron_driver_context_get_multicast_flowcontrol_supplier(ctx) == tagged);
    CHECK_EQ_LL(aeron_driver_context_set_unicast_flowcontrol_supplier(ctx, unicast), 0);
    CHECK_FAILS(aeron_driver_context_set_multicast_flowcontrol_supplier(ctx, custom_flow_control), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_unicast_flowcontrol_supplier(ctx, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_unicast_flowcontrol_supplier(NULL, unicast), -1, EINVAL);
    CHECK_FAILS(max(NULL, ctx, NULL, NULL, 1, 2, 3, 4, 65536), -1, ENOTSUP);

    aeron_congestion_control_strategy_supplier_func_t cc = aeron_driver_context_get_congestioncontrol_supplier(ctx);
    CHECK(cc != NULL);
    CHECK(aeron_driver_context_get_congestioncontrol_supplier(NULL) == cc);
    CHECK_EQ_LL(aeron_driver_context_set_congestioncontrol_supplier(ctx, cc), 0);
    CHECK(aeron_driver_context_get_congestioncontrol_supplier(ctx) == cc);
    CHECK_FAILS(aeron_driver_context_set_congestioncontrol_supplier(ctx, custom_congestion_control), -1, EINVAL);
    CHECK_FAILS(aeron_driver_context_set_congestioncontrol_supplier(NULL, cc), -1, EINVAL);
    CHECK_FAILS(cc(NULL, NULL, 1, 2, 3, 65536, 1408, NULL, NULL, ctx, NULL), -1, ENOTSUP);

    /* The termination validator: deny by default, custom, then the built-in allow. */
    aeron_driver_termination_validator_func_t deny = aeron_driver_context_get_driver_termination_validator(ctx);
    CHECK(deny != NULL);
    CHECK(!deny(NULL, NULL, 0));
    CHECK(aeron_driver_context_get_driver_termination_validator(NULL) == deny);
    CHECK(aeron_driver_context_get_driver_termination_validator_state(ctx) == NULL);
    int state = 1;
    CHECK_EQ_LL(aeron_driver_context_set_driver_termination_validator(ctx, validate_token, &state), 0);
    CHECK(aeron_driver_context_get_driver_termination_validator(ctx) == validate_token);
    CHECK(aeron_driver_context_get_driver_termination_validator_state(ctx) == &state);
    CHECK_EQ_LL(aeron_driver_context_set_driver_termination_validator(ctx, NULL, NULL), 0);
    CHECK(aeron_driver_context_get_driver_termination_validator(ctx) == deny);
    CHECK_FAILS(aeron_driver_context_set_driver_termination_validator(NULL, deny, NULL), -1, EINVAL);
    setenv("AERON_DRIVER_TERMINATION_VALIDATOR", "allow", 1);
    aeron_driver_context_t *allowing = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&allowing), 0);
    unsetenv("AERON_DRIVER_TERMINATION_VALIDATOR");
    aeron_driver_termination_validator_func_t allow = aeron_driver_context_get_driver_termination_validator(allowing);
    CHECK(allow != deny && allow(NULL, NULL, 0));
    CHECK_EQ_LL(aeron_driver_context_set_driver_termination_validator(ctx, allow, NULL), 0);
    CHECK(aeron_driver_context_get_driver_termination_validator(ctx) == allow);
    CHECK_EQ_LL(aeron_driver_context_close(allowing), 0);

    CHECK(aeron_driver_context_get_driver_termination_hook(ctx) == NULL);
    CHECK_EQ_LL(aeron_driver_context_set_driver_termination_hook(ctx, termination_hook, &state), 0);
    CHECK(aeron_driver_context_get_driver_termination_hook(ctx) == termination_hook);
    CHECK(aeron_driver_context_get_driver_termination_hook_state(ctx) == &state);
    CHECK_EQ_LL(aeron_driver_context_set_driver_termination_hook(ctx, NULL, NULL), 0);
    CHECK(aeron_driver_context_get_driver_termination_hook(ctx) == NULL);
    CHECK(aeron_driver_context_get_driver_termination_hook_state(NULL) == NULL);
    CHECK_FAILS(aeron_driver_context_set_driver_termination_hook(NULL, termination_hook, NULL), -1, EINVAL);

    on_start_seen_t seen = { 0, { 0 } };
    CHECK(aeron_driver_context_get_agent_on_start_function(ctx) == NULL);
    CHECK_EQ_LL(aeron_driver_context_set_agent_on_start_function(ctx, on_start, &seen), 0);
    CHECK(aeron_driver_context_get_agent_on_start_function(ctx) == on_start);
    CHECK(aeron_driver_context_get_agent_on_start_state(ctx) == &seen);
    CHECK(aeron_driver_context_get_agent_on_start_state(NULL) == NULL);
    CHECK_FAILS(aeron_driver_context_set_agent_on_start_function(NULL, on_start, NULL), -1, EINVAL);

    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
}

static void environment_and_properties(void)
{
    setenv(AERON_MTU_LENGTH_ENV_VAR, "4096", 1);
    setenv(AERON_SENDER_IDLE_STRATEGY_ENV_VAR, "sleep-ns", 1);
    setenv(AERON_SENDER_IDLE_STRATEGY_INIT_ARGS_ENV_VAR, "50us", 1);
    setenv(AERON_THREADING_MODE_ENV_VAR, "SHARED", 1);
    setenv(AERON_DRIVER_SENDER_WILDCARD_PORT_RANGE_ENV_VAR, "100 200", 1);
    setenv(AERON_RECEIVER_GROUP_TAG_ENV_VAR, "-5", 1);
    aeron_driver_context_t *ctx = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);
    CHECK_EQ_LL(aeron_driver_context_get_mtu_length(ctx), 4096);
    CHECK(strcmp(aeron_driver_context_get_sender_idle_strategy(ctx), "sleep-ns") == 0);
    CHECK(strcmp(aeron_driver_context_get_sender_idle_strategy_init_args(ctx), "50us") == 0);
    CHECK_EQ_LL(aeron_driver_context_get_threading_mode(ctx), AERON_THREADING_MODE_SHARED);
    uint16_t low = 0, high = 0;
    CHECK_EQ_LL(aeron_driver_context_get_sender_wildcard_port_range(ctx, &low, &high), 0);
    CHECK(low == 100 && high == 200);
    CHECK(aeron_driver_context_get_receiver_group_tag_is_present(ctx));
    CHECK_EQ_LL(aeron_driver_context_get_receiver_group_tag_value(ctx), -5);
    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
    clear_aeron_environment();

    /* A malformed variable fails init, naming it. */
    setenv(AERON_TERM_BUFFER_LENGTH_ENV_VAR, "lots", 1);
    ctx = NULL;
    CHECK_FAILS(aeron_driver_context_init(&ctx), -1, EINVAL);
    CHECK(strstr(aeron_errmsg(), "AERON_TERM_BUFFER_LENGTH") != NULL);
    CHECK(ctx == NULL);
    clear_aeron_environment();

    /* Properties act as settings for contexts created afterwards; empty values unset. */
    CHECK_EQ_LL(aeron_properties_buffer_load("aeron.ipc.term.buffer.length=128k\n# comment\naeron.socket.so_sndbuf: 1m\n"), 0);
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);
    CHECK_EQ_LL(aeron_driver_context_get_ipc_term_buffer_length(ctx), 128 * 1024);
    CHECK_EQ_LL(aeron_driver_context_get_socket_so_sndbuf(ctx), 1024 * 1024);
    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
    char path[512];
    snprintf(path, sizeof(path), "%s/driver.properties", g_dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("aeron.ipc.term.buffer.length=\naeron.socket.so_sndbuf=\naeron.mtu.length=2048\n", f);
    fclose(f);
    CHECK_EQ_LL(aeron_properties_file_load(path), 0);
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);
    CHECK_EQ_LL(aeron_driver_context_get_ipc_term_buffer_length(ctx), 64 * 1024 * 1024);
    CHECK_EQ_LL(aeron_driver_context_get_mtu_length(ctx), 2048);
    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
    CHECK_EQ_LL(aeron_properties_buffer_load("aeron.mtu.length="), 0);
    char url[600];
    snprintf(url, sizeof(url), "file://%s", path);
    CHECK_EQ_LL(aeron_properties_load(url), 0);
    CHECK_EQ_LL(aeron_properties_buffer_load("aeron.mtu.length="), 0);

    CHECK_FAILS(aeron_properties_buffer_load("no separator here"), -1, EINVAL);
    CHECK_FAILS(aeron_properties_buffer_load(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_properties_file_load("/nonexistent/aeronrs.properties"), -1, ENOENT);
    CHECK_FAILS(aeron_properties_file_load(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_properties_load(NULL), -1, EINVAL);
    CHECK_EQ_LL(aeron_properties_http_load("http://localhost/aeron.properties"), -1);
    CHECK(aeron_errcode() < 0);
    CHECK_FAILS(aeron_properties_http_load(NULL), -1, EINVAL);
}

static void dir_path(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", g_dir, name);
}

static void validation_at_init(void)
{
    char dir[512];
    dir_path(dir, sizeof(dir), "invalid");
    aeron_driver_context_t *ctx = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);
    CHECK_EQ_LL(aeron_driver_context_set_dir(ctx, dir), 0);
    CHECK_EQ_LL(aeron_driver_context_set_mtu_length(ctx, 1000), 0);
    aeron_driver_t *driver = NULL;
    CHECK_FAILS(aeron_driver_init(&driver, ctx), -1, EINVAL);
    CHECK(strstr(aeron_errmsg(), "AERON_MTU_LENGTH") != NULL);
    CHECK_EQ_LL(aeron_driver_context_set_mtu_length(ctx, 1408), 0);
    CHECK_EQ_LL(aeron_driver_context_set_ipc_term_buffer_length(ctx, 1000), 0);
    CHECK_FAILS(aeron_driver_init(&driver, ctx), -1, EINVAL);
    CHECK(strstr(aeron_errmsg(), "AERON_IPC_TERM_BUFFER_LENGTH") != NULL);
    CHECK(driver == NULL);
    CHECK_FAILS(aeron_driver_init(NULL, ctx), -1, EINVAL);
    CHECK_FAILS(aeron_driver_init(&driver, NULL), -1, EINVAL);
    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
}

static aeron_driver_context_t *small_context(const char *dir, aeron_threading_mode_t mode)
{
    aeron_driver_context_t *ctx = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);
    CHECK_EQ_LL(aeron_driver_context_set_dir(ctx, dir), 0);
    CHECK_EQ_LL(aeron_driver_context_set_threading_mode(ctx, mode), 0);
    CHECK_EQ_LL(aeron_driver_context_set_term_buffer_length(ctx, 64 * 1024), 0);
    CHECK_EQ_LL(aeron_driver_context_set_ipc_term_buffer_length(ctx, 64 * 1024), 0);
    CHECK_EQ_LL(aeron_driver_context_set_shared_idle_strategy(ctx, "yield"), 0);
    CHECK_EQ_LL(aeron_driver_context_set_conductor_idle_strategy(ctx, "yield"), 0);
    return ctx;
}

static void invoker_driver(void)
{
    char dir[512], cnc_file[600];
    dir_path(dir, sizeof(dir), "invoker");
    snprintf(cnc_file, sizeof(cnc_file), "%s/cnc.dat", dir);
    aeron_driver_context_t *ctx = small_context(dir, AERON_THREADING_MODE_INVOKER);
    CHECK_EQ_LL(aeron_driver_context_set_dir_delete_on_shutdown(ctx, true), 0);
    on_start_seen_t seen = { 0, { 0 } };
    CHECK_EQ_LL(aeron_driver_context_set_agent_on_start_function(ctx, on_start, &seen), 0);
    int validator_state = 1;
    CHECK_EQ_LL(aeron_driver_context_set_driver_termination_validator(ctx, validate_token, &validator_state), 0);
    CHECK_EQ_LL(aeron_driver_context_set_driver_termination_hook(ctx, termination_hook, NULL), 0);

    aeron_driver_t *driver = NULL;
    CHECK_EQ_LL(aeron_driver_init(&driver, ctx), 0);
    struct stat st;
    CHECK_EQ_LL(stat(cnc_file, &st), 0);
    CHECK(aeron_is_driver_active(dir, 10000, NULL));

    CHECK_FAILS(aeron_driver_start(driver, false), -1, EINVAL);
    CHECK_EQ_LL(aeron_driver_start(driver, true), 0);
    CHECK_EQ_LL(seen.calls, 1);
    /* INVOKER runs conductor, sender and receiver as one composite agent: one on-start call. */
    CHECK(strcmp(seen.role, "[conductor, sender, receiver]") == 0); /* Aeron C's role name */
    CHECK_FAILS(aeron_driver_start(driver, true), -1, EPERM);
    for (int i = 0; i < 10; i++)
    {
        int work = aeron_driver_main_do_work(driver);
        CHECK(work >= 0);
        aeron_driver_main_idle_strategy(driver, work);
    }

    /* A client's TERMINATE_DRIVER (0x0E) reaches the C validator, then the C hook. */
    aeron_mapped_file_t mapped = { NULL, 0 };
    CHECK_EQ_LL(aeron_map_existing_file(&mapped, cnc_file), 0);
    aeronrs_ring_buffer_t *to_driver = NULL;
    CHECK_EQ_LL(aeronrs_ring_buffer_wrap(
        &to_driver, AERONRS_RING_BUFFER_MANY_TO_ONE, (uint8_t *)mapped.addr + 128, 1024 * 1024 + 768), 0);
    uint8_t terminate[24];
    int64_t client_id = 1, correlation_id = 2;
    int32_t token_length = 4;
    memcpy(terminate, &client_id, 8);
    memcpy(terminate + 8, &correlation_id, 8);
    memcpy(terminate + 16, &token_length, 4);
    memcpy(terminate + 20, "tokn", 4);
    CHECK_EQ_LL(aeronrs_ring_buffer_write(to_driver, 0x0E, terminate, sizeof(terminate)), 1);
    for (int i = 0; i < 1000 && g_hook_calls == 0; i++)
    {
        aeron_driver_main_idle_strategy(driver, aeron_driver_main_do_work(driver));
    }
    CHECK_EQ_LL(g_validations, 1);
    CHECK_EQ_LL(g_hook_calls, 1);
    CHECK_EQ_LL(aeronrs_ring_buffer_close(to_driver), 0);
    CHECK_EQ_LL(aeron_unmap(&mapped), 0);

    /* The driver's cnc.dat reads as Aeron's. */
    aeron_cnc_t *cnc = NULL;
    CHECK_EQ_LL(aeron_cnc_init(&cnc, dir, 1000), 0);
    aeron_cnc_constants_t constants;
    CHECK_EQ_LL(aeron_cnc_constants(cnc, &constants), 0);
    CHECK_EQ_LL(constants.cnc_version, aeron_semantic_version_compose(0, 2, 0));
    CHECK_EQ_LL(constants.pid, getpid());
    aeron_counters_reader_t *reader = aeron_cnc_counters_reader(cnc);
    int64_t *version = aeron_counters_reader_addr(reader, 34);
    CHECK(version != NULL && *version == aeron_semantic_version_compose(1, 48, 0));
    CHECK(aeron_cnc_to_driver_heartbeat(cnc) > 0);
    aeron_cnc_close(cnc);

    CHECK_EQ_LL(aeron_driver_close(driver), 0);
    CHECK(stat(dir, &st) != 0); /* deleted on shutdown */
    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);

    CHECK_FAILS(aeron_driver_start(NULL, true), -1, EINVAL);
    CHECK_FAILS(aeron_driver_main_do_work(NULL), -1, EINVAL);
    aeron_driver_main_idle_strategy(NULL, 0);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_FAILS(aeron_driver_close(NULL), -1, EINVAL);
}

static void dedicated_driver(void)
{
    char dir[512], cnc_file[600];
    dir_path(dir, sizeof(dir), "dedicated");
    snprintf(cnc_file, sizeof(cnc_file), "%s/cnc.dat", dir);
    aeron_driver_context_t *ctx = small_context(dir, AERON_THREADING_MODE_DEDICATED);
    on_start_seen_t seen = { 0, { 0 } };
    CHECK_EQ_LL(aeron_driver_context_set_agent_on_start_function(ctx, on_start, &seen), 0);
    aeron_driver_t *driver = NULL;
    CHECK_EQ_LL(aeron_driver_init(&driver, ctx), 0);
    CHECK_EQ_LL(aeron_driver_start(driver, false), 0);

    /* A second driver on the same directory is refused while this one lives. */
    aeron_driver_t *second = NULL;
    CHECK_EQ_LL(aeron_driver_init(&second, ctx), -1);
    CHECK(second == NULL);

    CHECK_EQ_LL(aeron_driver_main_do_work(driver), 0); /* it runs on its own thread */
    CHECK(aeron_is_driver_active(dir, 10000, NULL));
    CHECK_EQ_LL(aeron_driver_close(driver), 0);
    /* DEDICATED: conductor, sender and receiver each start on their own thread, and the
     * on-start hook runs once on each, as Aeron calls it per agent runner. */
    CHECK_EQ_LL(seen.calls, 3);

    /* Closed cleanly: the heartbeat says so and the directory stays. */
    struct stat st;
    CHECK_EQ_LL(stat(cnc_file, &st), 0);
    CHECK(!aeron_is_driver_active(dir, 10000, NULL));
    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
}

typedef struct
{
    aeron_driver_context_t *ctx;
    const char *role;
    int cpu;
    int pinned_to;
} affinity_case_t;

static void *apply_affinity(void *arg)
{
    affinity_case_t *c = (affinity_case_t *)arg;
    aeron_set_thread_affinity_on_start(c->ctx, c->role);
    cpu_set_t set;
    CPU_ZERO(&set);
    CHECK_EQ_LL(sched_getaffinity(0, sizeof(set), &set), 0);
    c->pinned_to = CPU_COUNT(&set) == 1 && CPU_ISSET(c->cpu, &set) ? c->cpu : -1;
    return NULL;
}

static void thread_affinity(void)
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    CHECK_EQ_LL(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
    int cpu = 0;
    while (!CPU_ISSET(cpu, &allowed))
    {
        cpu++;
    }
    aeron_driver_context_t *ctx = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&ctx), 0);
    CHECK_EQ_LL(aeron_driver_context_set_conductor_cpu_affinity(ctx, cpu), 0);

    affinity_case_t pinned = { ctx, "conductor", cpu, -2 };
    pthread_t thread;
    CHECK_EQ_LL(pthread_create(&thread, NULL, apply_affinity, &pinned), 0);
    CHECK_EQ_LL(pthread_join(thread, NULL), 0);
    CHECK_EQ_LL(pinned.pinned_to, cpu);

    /* The sender has no affinity set: its thread keeps every CPU. */
    affinity_case_t untouched = { ctx, "sender", cpu, -2 };
    CHECK_EQ_LL(pthread_create(&thread, NULL, apply_affinity, &untouched), 0);
    CHECK_EQ_LL(pthread_join(thread, NULL), 0);
    CHECK_EQ_LL(untouched.pinned_to, CPU_COUNT(&allowed) == 1 ? cpu : -1);

    aeron_set_thread_affinity_on_start(NULL, "conductor");
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_EQ_LL(aeron_driver_context_close(ctx), 0);
}

int main(void)
{
    clear_aeron_environment();
    CHECK(mkdtemp(g_dir) != NULL);
    RUN(scalar_settings);
    RUN(text_and_enum_settings);
    RUN(suppliers_and_callbacks);
    RUN(environment_and_properties);
    RUN(validation_at_init);
    RUN(invoker_driver);
    RUN(dedicated_driver);
    RUN(thread_affinity);
    CHECK_EQ_LL(aeron_delete_directory(g_dir), 0);
    return 0;
}
