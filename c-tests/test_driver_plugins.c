/* Plug-ins of the embedded driver (aeronmd.h) written as for Aeron's C driver, against
 * Aeron's types: duty-cycle trackers on the conductor, sender and receiver (called once
 * at start and at every duty cycle), a name resolver and its time tracker (system
 * counters 32 and 33 when built in), UDP transport bindings copied from the default
 * table with counting send/receive/init/close functions, and interceptors: an outgoing
 * one that drops every 10th datagram the sender sends while the stream still arrives
 * whole, once and in order (recovered by NAKs), and an incoming one that sees every
 * datagram and the transports come and go; port managers that choose where endpoints
 * bind and hear when the ports are free again. Also the layouts of the structs and the
 * refusals of what is not supported. */
#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "aeron_duty_cycle_tracker.h"
#include "aeron_name_resolver.h"
#include "aeron_port_manager.h"
#include "client_support.h"
#include "media/aeron_udp_channel_transport.h"
#include "media/aeron_udp_channel_transport_bindings.h"

/* Aeron's layouts (LP64). */
_Static_assert(sizeof(aeron_duty_cycle_tracker_t) == 24, "tracker size");
_Static_assert(offsetof(aeron_duty_cycle_tracker_t, state) == 16, "tracker state");
_Static_assert(sizeof(aeron_name_resolver_t) == 48, "resolver size");
_Static_assert(offsetof(aeron_name_resolver_t, state) == 40, "resolver state");
_Static_assert(sizeof(aeron_udp_channel_transport_params_t) == 32, "params size");
_Static_assert(offsetof(aeron_udp_channel_transport_params_t, ttl) == 28, "params ttl");
_Static_assert(sizeof(aeron_udp_channel_transport_t) == 88, "transport size");
_Static_assert(offsetof(aeron_udp_channel_transport_t, data_paths) == 8, "transport data_paths");
_Static_assert(offsetof(aeron_udp_channel_transport_t, bindings_clientd) == 32, "transport bindings_clientd");
_Static_assert(offsetof(aeron_udp_channel_transport_t, interceptor_clientds) == 48, "interceptor_clientds");
_Static_assert(offsetof(aeron_udp_channel_transport_t, timestamp_flags) == 80, "timestamp_flags");
_Static_assert(sizeof(aeron_udp_channel_transport_bindings_t) == 120, "bindings size");
_Static_assert(offsetof(aeron_udp_channel_transport_bindings_t, meta_info) == 96, "bindings meta_info");
_Static_assert(sizeof(aeron_udp_channel_interceptor_bindings_t) == 128, "interceptor bindings size");
_Static_assert(offsetof(aeron_udp_channel_interceptor_bindings_t, meta_info) == 96, "interceptor meta_info");
_Static_assert(sizeof(aeron_udp_channel_outgoing_interceptor_t) == 56, "outgoing stage size");
_Static_assert(sizeof(aeron_udp_channel_incoming_interceptor_t) == 56, "incoming stage size");
_Static_assert(sizeof(aeron_udp_channel_data_paths_t) == 32, "data paths size");

#define SYSTEM_COUNTER_NAKS_SENT 5
#define SYSTEM_COUNTER_RETRANSMITS_SENT 11
#define SYSTEM_COUNTER_CONDUCTOR_MAX_CYCLE_TIME 26
#define SYSTEM_COUNTER_NAME_RESOLVER_MAX_TIME 32
#define SYSTEM_COUNTER_NAME_RESOLVER_THRESHOLD_EXCEEDED 33

static int free_udp_port(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(fd >= 0);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
    socklen_t length = sizeof(addr);
    CHECK(getsockname(fd, (struct sockaddr *)&addr, &length) == 0);
    close(fd);
    return ntohs(addr.sin_port);
}

static int64_t system_counter(aeron_t *client, int32_t id)
{
    return *aeron_counters_reader_addr(aeron_counters_reader(client), id);
}

/* ---- duty-cycle trackers ---- */

typedef struct
{
    atomic_llong updates;
    atomic_llong measures;
    atomic_llong last_now_ns;
    atomic_int went_backwards;
}
tracker_state_t;

static void tracker_update(void *state, int64_t now_ns)
{
    tracker_state_t *t = (tracker_state_t *)state;
    atomic_fetch_add(&t->updates, 1);
    atomic_store(&t->last_now_ns, now_ns);
}

static void tracker_measure_and_update(void *state, int64_t now_ns)
{
    tracker_state_t *t = (tracker_state_t *)state;
    if (now_ns < atomic_load(&t->last_now_ns))
    {
        atomic_store(&t->went_backwards, 1);
    }
    atomic_fetch_add(&t->measures, 1);
    atomic_store(&t->last_now_ns, now_ns);
}

static void trackers_see_every_duty_cycle(void)
{
    test_env_t env;
    memset(&env, 0, sizeof(env));
    prepare_driver(&env, "trackers");
    CHECK_EQ_LL(aeron_driver_context_set_threading_mode(env.driver_context, AERON_THREADING_MODE_INVOKER), 0);
    tracker_state_t states[3];
    memset(states, 0, sizeof(states));
    aeron_duty_cycle_tracker_t trackers[3];
    for (int i = 0; i < 3; i++)
    {
        trackers[i].update = tracker_update;
        trackers[i].measure_and_update = tracker_measure_and_update;
        trackers[i].state = &states[i];
    }
    CHECK(aeron_driver_context_get_conductor_duty_cycle_tracker(env.driver_context) == NULL);
    CHECK_EQ_LL(aeron_driver_context_set_conductor_duty_cycle_tracker(env.driver_context, &trackers[0]), 0);
    CHECK_EQ_LL(aeron_driver_context_set_sender_duty_cycle_tracker(env.driver_context, &trackers[1]), 0);
    CHECK_EQ_LL(aeron_driver_context_set_receiver_duty_cycle_tracker(env.driver_context, &trackers[2]), 0);
    CHECK(aeron_driver_context_get_conductor_duty_cycle_tracker(env.driver_context) == &trackers[0]);
    CHECK(aeron_driver_context_get_sender_duty_cycle_tracker(env.driver_context) == &trackers[1]);
    CHECK(aeron_driver_context_get_receiver_duty_cycle_tracker(env.driver_context) == &trackers[2]);
    CHECK_EQ_LL(aeron_driver_context_set_sender_duty_cycle_tracker(NULL, &trackers[1]), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);

    CHECK_EQ_LL(aeron_driver_init(&env.driver, env.driver_context), 0);
    for (int i = 0; i < 3; i++)
    {
        CHECK_EQ_LL(atomic_load(&states[i].updates), 0);
    }
    CHECK_EQ_LL(aeron_driver_start(env.driver, true), 0);
    for (int i = 0; i < 3; i++)
    {
        CHECK_EQ_LL(atomic_load(&states[i].updates), 1);
        CHECK_EQ_LL(atomic_load(&states[i].measures), 0);
    }
    for (long long cycle = 1; cycle <= 200; cycle++)
    {
        CHECK(aeron_driver_main_do_work(env.driver) >= 0);
        for (int i = 0; i < 3; i++)
        {
            CHECK_EQ_LL(atomic_load(&states[i].measures), cycle);
        }
    }
    for (int i = 0; i < 3; i++)
    {
        CHECK_EQ_LL(atomic_load(&states[i].updates), 1);
        CHECK_EQ_LL(atomic_load(&states[i].went_backwards), 0);
    }
    CHECK_EQ_LL(aeron_driver_close(env.driver), 0);
    CHECK_EQ_LL(aeron_driver_context_close(env.driver_context), 0);
}

/* ---- name resolver ---- */

typedef struct
{
    aeron_name_resolver_resolve_func_t default_resolve;
    atomic_int resolved_my_machine;
    atomic_int closed;
}
resolver_state_t;

static resolver_state_t g_resolver;

/* `my-machine` is 127.0.0.1; everything else goes to the default resolver. */
static int table_resolve(
    aeron_name_resolver_t *resolver,
    const char *name,
    const char *uri_param_name,
    bool is_re_resolution,
    struct sockaddr_storage *address)
{
    if (strcmp(name, "my-machine") == 0)
    {
        struct sockaddr_in *in = (struct sockaddr_in *)address;
        in->sin_family = AF_INET;
        in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        atomic_fetch_add(&g_resolver.resolved_my_machine, 1);
        return 0;
    }
    return g_resolver.default_resolve(resolver, name, uri_param_name, is_re_resolution, address);
}

static int table_close(aeron_name_resolver_t *resolver)
{
    (void)resolver;
    atomic_fetch_add(&g_resolver.closed, 1);
    return 0;
}

static int table_supplier(aeron_name_resolver_t *resolver, const char *args, aeron_driver_context_t *context)
{
    CHECK(strcmp(args, "rows=1") == 0);
    aeron_name_resolver_supplier_func_t default_supplier = aeron_driver_context_get_name_resolver_supplier(NULL);
    CHECK(default_supplier != table_supplier);
    if (default_supplier(resolver, args, context) < 0)
    {
        return -1;
    }
    g_resolver.default_resolve = resolver->resolve_func;
    resolver->resolve_func = table_resolve;
    resolver->close_func = table_close;
    resolver->name = "table";
    return 0;
}

static void name_resolver_and_its_time_tracker(void)
{
    memset(&g_resolver, 0, sizeof(g_resolver));
    tracker_state_t timing;
    memset(&timing, 0, sizeof(timing));
    aeron_duty_cycle_tracker_t time_tracker = { tracker_update, tracker_measure_and_update, &timing };
    test_env_t env;
    memset(&env, 0, sizeof(env));
    prepare_driver(&env, "resolver");
    CHECK_EQ_LL(aeron_driver_context_set_name_resolver_supplier(env.driver_context, table_supplier), 0);
    CHECK(aeron_driver_context_get_name_resolver_supplier(env.driver_context) == table_supplier);
    CHECK_EQ_LL(aeron_driver_context_set_name_resolver_init_args(env.driver_context, "rows=1"), 0);
    CHECK_EQ_LL(aeron_driver_context_set_name_resolver_time_tracker(env.driver_context, &time_tracker), 0);
    launch_driver(&env);
    connect_client(&env);

    char channel[128];
    int port = free_udp_port();
    snprintf(channel, sizeof(channel), "aeron:udp?endpoint=my-machine:%d", port);
    aeron_subscription_t *subscription = add_subscription(env.client, channel, 5);
    snprintf(channel, sizeof(channel), "aeron:udp?endpoint=127.0.0.1:%d", port);
    aeron_publication_t *publication = add_publication(env.client, channel, 5);
    WAIT_FOR(aeron_subscription_is_connected(subscription), sleep_ms(1));
    CHECK_EQ_LL(atomic_load(&g_resolver.resolved_my_machine), 1);
    /* Two lookups and one resolution, each timed. */
    CHECK_EQ_LL(atomic_load(&timing.updates), 3);
    CHECK_EQ_LL(atomic_load(&timing.measures), 3);
    CHECK_EQ_LL(system_counter(env.client, SYSTEM_COUNTER_NAME_RESOLVER_MAX_TIME), 0);
    aeron_publication_close(publication, NULL, NULL);
    aeron_subscription_close(subscription, NULL, NULL);
    teardown(&env);
    CHECK_EQ_LL(atomic_load(&g_resolver.closed), 1);

    /* The built-in tracker: a 1 ns threshold counts the lookup and resolution of localhost. */
    memset(&env, 0, sizeof(env));
    prepare_driver(&env, "resolver-counters");
    CHECK_EQ_LL(aeron_driver_context_set_name_resolver_threshold_ns(env.driver_context, 1), 0);
    launch_driver(&env);
    connect_client(&env);
    snprintf(channel, sizeof(channel), "aeron:udp?endpoint=localhost:%d", free_udp_port());
    publication = add_publication(env.client, channel, 6);
    CHECK(system_counter(env.client, SYSTEM_COUNTER_NAME_RESOLVER_MAX_TIME) > 0);
    CHECK_EQ_LL(system_counter(env.client, SYSTEM_COUNTER_NAME_RESOLVER_THRESHOLD_EXCEEDED), 2);
    CHECK(system_counter(env.client, SYSTEM_COUNTER_CONDUCTOR_MAX_CYCLE_TIME) > 0);
    aeron_publication_close(publication, NULL, NULL);
    teardown(&env);
}

/* ---- transport bindings and interceptors ---- */

typedef struct
{
    aeron_udp_channel_transport_bindings_t defaults;
    atomic_llong inits;
    atomic_llong closes;
    atomic_llong sends;
    atomic_llong receives;
    atomic_llong mtu_seen;
}
bindings_state_t;

static bindings_state_t g_bindings;

static int counting_init(
    aeron_udp_channel_transport_t *transport,
    struct sockaddr_storage *bind_addr,
    struct sockaddr_storage *multicast_if_addr,
    struct sockaddr_storage *connect_addr,
    aeron_udp_channel_transport_params_t *params,
    aeron_driver_context_t *context,
    aeron_udp_channel_transport_affinity_t affinity)
{
    CHECK(NULL != transport->data_paths);
    atomic_store(&g_bindings.mtu_seen, (long long)params->mtu_length);
    int result = g_bindings.defaults.init_func(
        transport, bind_addr, multicast_if_addr, connect_addr, params, context, affinity);
    if (result >= 0)
    {
        CHECK(transport->fd >= 0 && transport->recv_fd >= 0);
        atomic_fetch_add(&g_bindings.inits, 1);
    }
    return result;
}

static int counting_close(aeron_udp_channel_transport_t *transport)
{
    atomic_fetch_add(&g_bindings.closes, 1);
    return g_bindings.defaults.close_func(transport);
}

static int counting_send(
    aeron_udp_channel_data_paths_t *data_paths,
    aeron_udp_channel_transport_t *transport,
    struct sockaddr_storage *address,
    struct iovec *iov,
    size_t iov_length,
    int64_t *bytes_sent)
{
    atomic_fetch_add(&g_bindings.sends, (long long)iov_length);
    return g_bindings.defaults.send_func(data_paths, transport, address, iov, iov_length, bytes_sent);
}

static int counting_recvmmsg(
    aeron_udp_channel_transport_t *transport,
    struct mmsghdr *msgvec,
    size_t vlen,
    int64_t *bytes_rcved,
    aeron_udp_transport_recv_func_t recv_func,
    void *clientd)
{
    int result = g_bindings.defaults.recvmmsg_func(transport, msgvec, vlen, bytes_rcved, recv_func, clientd);
    if (result > 0)
    {
        atomic_fetch_add(&g_bindings.receives, result);
    }
    return result;
}

typedef struct
{
    aeron_udp_channel_transport_affinity_t affinity;
    long long seen;
}
dropper_t;

static atomic_llong g_dropped;
static atomic_llong g_droppers_closed;

static int dropper_init(void **state, aeron_driver_context_t *context, aeron_udp_channel_transport_affinity_t affinity)
{
    CHECK(NULL != context);
    dropper_t *dropper = (dropper_t *)calloc(1, sizeof(dropper_t));
    CHECK(NULL != dropper);
    dropper->affinity = affinity;
    *state = dropper;
    return 0;
}

/* Drops every 10th datagram the sender sends (reported as sent, as the network loses it). */
static int dropper_send(
    void *interceptor_state,
    aeron_udp_channel_outgoing_interceptor_t *delegate,
    aeron_udp_channel_transport_t *transport,
    struct sockaddr_storage *address,
    struct iovec *iov,
    size_t iov_length,
    int64_t *bytes_sent)
{
    dropper_t *dropper = (dropper_t *)interceptor_state;
    if (AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_SENDER == dropper->affinity && ++dropper->seen % 10 == 0)
    {
        atomic_fetch_add(&g_dropped, 1);
        for (size_t i = 0; i < iov_length; i++)
        {
            *bytes_sent += (int64_t)iov[i].iov_len;
        }
        return (int)iov_length;
    }
    return delegate->outgoing_send_func(
        delegate->interceptor_state, delegate->next_interceptor, transport, address, iov, iov_length, bytes_sent);
}

static int dropper_close(void *interceptor_state)
{
    free(interceptor_state);
    atomic_fetch_add(&g_droppers_closed, 1);
    return 0;
}

static atomic_llong g_incoming_seen;
static atomic_llong g_transports_added;
static atomic_llong g_transports_removed;

static int observer_init(void **state, aeron_driver_context_t *context, aeron_udp_channel_transport_affinity_t affinity)
{
    (void)context;
    (void)affinity;
    *state = NULL;
    return 0;
}

static void observer_incoming(
    void *interceptor_state,
    aeron_udp_channel_incoming_interceptor_t *delegate,
    aeron_udp_channel_transport_t *transport,
    void *receiver_clientd,
    void *endpoint_clientd,
    void *destination_clientd,
    uint8_t *buffer,
    size_t length,
    struct sockaddr_storage *addr,
    struct timespec *media_timestamp)
{
    (void)interceptor_state;
    atomic_fetch_add(&g_incoming_seen, 1);
    delegate->incoming_func(
        delegate->interceptor_state,
        delegate->next_interceptor,
        transport,
        receiver_clientd,
        endpoint_clientd,
        destination_clientd,
        buffer,
        length,
        addr,
        media_timestamp);
}

static int observer_transport_notification(
    void *interceptor_state,
    aeron_udp_channel_transport_t *transport,
    const aeron_udp_channel_t *udp_channel,
    aeron_data_packet_dispatcher_t *data_packet_dispatcher,
    aeron_udp_channel_interceptor_notification_type_t type)
{
    (void)interceptor_state;
    (void)data_packet_dispatcher;
    CHECK(NULL != transport && NULL != udp_channel);
    /* Interceptors may keep data of their own on each transport. */
    if (AERON_UDP_CHANNEL_INTERCEPTOR_ADD_NOTIFICATION == type)
    {
        CHECK(NULL == aeron_udp_channel_transport_get_interceptor_clientd(transport, 0));
        aeron_udp_channel_transport_set_interceptor_clientd(transport, 0, transport);
    }
    else
    {
        CHECK(transport == aeron_udp_channel_transport_get_interceptor_clientd(transport, 0));
    }
    atomic_fetch_add(
        AERON_UDP_CHANNEL_INTERCEPTOR_ADD_NOTIFICATION == type ? &g_transports_added : &g_transports_removed, 1);
    return 0;
}

#define MESSAGES 2000

typedef struct
{
    long long received;
    int out_of_order;
}
stream_check_t;

static void on_fragment(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    (void)header;
    stream_check_t *check = (stream_check_t *)clientd;
    long long sequence = -1;
    if (length >= sizeof(sequence))
    {
        memcpy(&sequence, buffer, sizeof(sequence));
    }
    if (sequence != check->received || length != (size_t)(16 + sequence % 200))
    {
        check->out_of_order = 1;
    }
    check->received++;
}

static void stream_through_bindings_and_a_lossy_interceptor_in(aeron_threading_mode_t mode)
{
    memset(&g_bindings, 0, sizeof(g_bindings));
    atomic_store(&g_dropped, 0);
    atomic_store(&g_droppers_closed, 0);
    atomic_store(&g_incoming_seen, 0);
    atomic_store(&g_transports_added, 0);
    atomic_store(&g_transports_removed, 0);
    g_bindings.defaults = *aeron_driver_context_get_udp_channel_transport_bindings(NULL);
    aeron_udp_channel_transport_bindings_t bindings = g_bindings.defaults;
    bindings.init_func = counting_init;
    bindings.close_func = counting_close;
    bindings.send_func = counting_send;
    bindings.recvmmsg_func = counting_recvmmsg;
    bindings.meta_info.name = "counting";

    aeron_udp_channel_interceptor_bindings_t dropper;
    memset(&dropper, 0, sizeof(dropper));
    dropper.outgoing_init_func = dropper_init;
    dropper.outgoing_send_func = dropper_send;
    dropper.outgoing_close_func = dropper_close;
    dropper.meta_info.name = "drop-every-10th";
    dropper.meta_info.type = "interceptor";

    aeron_udp_channel_interceptor_bindings_t observer;
    memset(&observer, 0, sizeof(observer));
    observer.incoming_init_func = observer_init;
    observer.incoming_func = observer_incoming;
    observer.incoming_transport_notification_func = observer_transport_notification;
    observer.meta_info.name = "observer";
    observer.meta_info.type = "interceptor";

    test_env_t env;
    memset(&env, 0, sizeof(env));
    prepare_driver(&env, "bindings");
    CHECK_EQ_LL(aeron_driver_context_set_threading_mode(env.driver_context, mode), 0);
    if (AERON_THREADING_MODE_DEDICATED == mode)
    {
        CHECK_EQ_LL(aeron_driver_context_set_sender_idle_strategy(env.driver_context, "sleep-ns"), 0);
        CHECK_EQ_LL(aeron_driver_context_set_receiver_idle_strategy(env.driver_context, "sleep-ns"), 0);
        CHECK_EQ_LL(aeron_driver_context_set_conductor_idle_strategy(env.driver_context, "sleep-ns"), 0);
    }
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_transport_bindings(env.driver_context, &bindings), 0);
    CHECK(aeron_driver_context_get_udp_channel_transport_bindings(env.driver_context) == &bindings);
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_outgoing_interceptors(env.driver_context, &dropper), 0);
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_incoming_interceptors(env.driver_context, &observer), 0);
    CHECK(aeron_driver_context_get_udp_channel_outgoing_interceptors(env.driver_context) == &dropper);
    CHECK(aeron_driver_context_get_udp_channel_incoming_interceptors(env.driver_context) == &observer);
    /* Endpoints close soon after their last user, so the test sees them go. */
    CHECK_EQ_LL(aeron_driver_context_set_publication_linger_timeout_ns(env.driver_context, 100000000), 0);
    CHECK_EQ_LL(aeron_driver_context_set_timer_interval_ns(env.driver_context, 100000000), 0);
    launch_driver(&env);
    connect_client(&env);

    char channel[128];
    int port = free_udp_port();
    snprintf(channel, sizeof(channel), "aeron:udp?endpoint=127.0.0.1:%d", port);
    aeron_subscription_t *subscription = add_subscription(env.client, channel, 7);
    snprintf(channel, sizeof(channel), "aeron:udp?endpoint=127.0.0.1:%d|mtu=1408", port);
    aeron_publication_t *publication = add_publication(env.client, channel, 7);
    WAIT_FOR(aeron_publication_is_connected(publication) && aeron_subscription_is_connected(subscription), sleep_ms(1));
    CHECK_EQ_LL(atomic_load(&g_bindings.inits), 2);
    CHECK_EQ_LL(atomic_load(&g_bindings.mtu_seen), 1408);
    CHECK(atomic_load(&g_transports_added) >= 2);

    stream_check_t check = { 0, 0 };
    uint8_t message[256];
    memset(message, 0xab, sizeof(message));
    long long sent = 0;
    int64_t deadline = aeron_epoch_clock() + WAIT_LIMIT_MS;
    while (check.received < MESSAGES)
    {
        CHECK(aeron_epoch_clock() < deadline);
        if (sent < MESSAGES)
        {
            memcpy(message, &sent, sizeof(sent));
            int64_t position = aeron_publication_offer(
                publication, message, (size_t)(16 + sent % 200), NULL, NULL);
            CHECK(position != AERON_PUBLICATION_CLOSED && position != AERON_PUBLICATION_ERROR);
            if (position > 0)
            {
                sent++;
            }
        }
        if (aeron_subscription_poll(subscription, on_fragment, &check, 64) == 0 && sent == MESSAGES)
        {
            sleep_ms(1);
        }
    }
    CHECK_EQ_LL(check.received, MESSAGES);
    CHECK_EQ_LL(check.out_of_order, 0);
    sleep_ms(50);
    CHECK_EQ_LL(aeron_subscription_poll(subscription, on_fragment, &check, 64), 0);
    CHECK_EQ_LL(check.received, MESSAGES);

    CHECK(atomic_load(&g_dropped) > 0);
    CHECK(system_counter(env.client, SYSTEM_COUNTER_NAKS_SENT) > 0);
    CHECK(system_counter(env.client, SYSTEM_COUNTER_RETRANSMITS_SENT) > 0);
    CHECK(atomic_load(&g_bindings.sends) > MESSAGES / 10);
    CHECK(atomic_load(&g_bindings.receives) > 0);
    CHECK(atomic_load(&g_incoming_seen) >= atomic_load(&g_bindings.receives));
    printf("sent through bindings %lld, dropped %lld, received %lld, NAKs %lld, retransmits %lld\n",
        (long long)atomic_load(&g_bindings.sends),
        (long long)atomic_load(&g_dropped),
        (long long)atomic_load(&g_bindings.receives),
        (long long)system_counter(env.client, SYSTEM_COUNTER_NAKS_SENT),
        (long long)system_counter(env.client, SYSTEM_COUNTER_RETRANSMITS_SENT));

    aeron_publication_close(publication, NULL, NULL);
    aeron_subscription_close(subscription, NULL, NULL);
    /* Both endpoints leave their agents: the interceptor hears of each. */
    WAIT_FOR(atomic_load(&g_transports_removed) == atomic_load(&g_transports_added), sleep_ms(1));
    teardown(&env);
    CHECK_EQ_LL(atomic_load(&g_bindings.closes), atomic_load(&g_bindings.inits));
    /* One dropper per agent (sender and receiver), each closed with the driver. */
    CHECK_EQ_LL(atomic_load(&g_droppers_closed), 2);
}

/* All agents on one thread, then each on its own. */
static void stream_through_bindings_and_a_lossy_interceptor(void)
{
    stream_through_bindings_and_a_lossy_interceptor_in(AERON_THREADING_MODE_SHARED);
    stream_through_bindings_and_a_lossy_interceptor_in(AERON_THREADING_MODE_DEDICATED);
}

/* ---- port managers ---- */

typedef struct
{
    int port;
    atomic_int gets;
    atomic_int frees;
    atomic_int freed_port;
}
fixed_port_t;

/* Binds port 0 to `port`, keeps other ports. */
static int fixed_port_get(
    void *state, struct sockaddr_storage *bind_addr_out, aeron_udp_channel_t *udp_channel, struct sockaddr_storage *bind_addr)
{
    fixed_port_t *manager = (fixed_port_t *)state;
    CHECK(NULL != udp_channel);
    memcpy(bind_addr_out, bind_addr, sizeof(*bind_addr_out));
    struct sockaddr_in *in = (struct sockaddr_in *)bind_addr_out;
    if (AF_INET == in->sin_family && 0 == in->sin_port)
    {
        in->sin_port = htons((uint16_t)manager->port);
    }
    atomic_fetch_add(&manager->gets, 1);
    return 0;
}

static void fixed_port_free(void *state, struct sockaddr_storage *bind_addr)
{
    fixed_port_t *manager = (fixed_port_t *)state;
    atomic_store(&manager->freed_port, ntohs(((struct sockaddr_in *)bind_addr)->sin_port));
    atomic_fetch_add(&manager->frees, 1);
}

static void port_managers_choose_bind_addresses(void)
{
    fixed_port_t receiver_state;
    memset(&receiver_state, 0, sizeof(receiver_state));
    receiver_state.port = free_udp_port();
    fixed_port_t sender_state;
    memset(&sender_state, 0, sizeof(sender_state));
    aeron_port_manager_t receiver_manager = { fixed_port_get, fixed_port_free, &receiver_state };
    aeron_port_manager_t sender_manager = { fixed_port_get, fixed_port_free, &sender_state };
    test_env_t env;
    memset(&env, 0, sizeof(env));
    prepare_driver(&env, "ports");
    CHECK(aeron_driver_context_get_receiver_port_manager(env.driver_context) == NULL);
    CHECK_EQ_LL(aeron_driver_context_set_receiver_port_manager(env.driver_context, &receiver_manager), 0);
    CHECK_EQ_LL(aeron_driver_context_set_sender_port_manager(env.driver_context, &sender_manager), 0);
    CHECK(aeron_driver_context_get_receiver_port_manager(env.driver_context) == &receiver_manager);
    CHECK(aeron_driver_context_get_sender_port_manager(env.driver_context) == &sender_manager);
    aeron_port_manager_t incomplete = { fixed_port_get, NULL, NULL };
    CHECK_EQ_LL(aeron_driver_context_set_sender_port_manager(env.driver_context, &incomplete), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_EQ_LL(aeron_driver_context_set_timer_interval_ns(env.driver_context, 20000000), 0);
    launch_driver(&env);
    connect_client(&env);

    aeron_subscription_t *subscription = add_subscription(env.client, "aeron:udp?endpoint=127.0.0.1:0", 8);
    char resolved[64];
    CHECK(aeron_subscription_resolved_endpoint(subscription, resolved, sizeof(resolved)) > 0);
    char expected[64];
    snprintf(expected, sizeof(expected), "127.0.0.1:%d", receiver_state.port);
    CHECK(strcmp(resolved, expected) == 0);
    char channel[128];
    snprintf(channel, sizeof(channel), "aeron:udp?endpoint=%s", expected);
    aeron_publication_t *publication = add_publication(env.client, channel, 8);
    WAIT_FOR(aeron_subscription_is_connected(subscription), sleep_ms(1));
    CHECK_EQ_LL(atomic_load(&receiver_state.gets), 1);
    CHECK_EQ_LL(atomic_load(&sender_state.gets), 1);
    aeron_subscription_close(subscription, NULL, NULL);
    WAIT_FOR(1 == atomic_load(&receiver_state.frees), sleep_ms(1));
    CHECK_EQ_LL(atomic_load(&receiver_state.freed_port), receiver_state.port);
    aeron_publication_close(publication, NULL, NULL);
    teardown(&env);
}

/* ---- what is refused ---- */

static int custom_poller_init(
    aeron_udp_transport_poller_t *poller, aeron_driver_context_t *context, aeron_udp_channel_transport_affinity_t affinity)
{
    (void)poller;
    (void)context;
    (void)affinity;
    return 0;
}

static int publication_notification(
    void *state,
    aeron_udp_channel_transport_t *transport,
    aeron_network_publication_t *publication,
    aeron_udp_channel_interceptor_notification_type_t type)
{
    (void)state;
    (void)transport;
    (void)publication;
    (void)type;
    return 0;
}

static void refusals_and_defaults(void)
{
    aeron_driver_context_t *context = NULL;
    CHECK_EQ_LL(aeron_driver_context_init(&context), 0);
    aeron_udp_channel_transport_bindings_t *defaults = aeron_driver_context_get_udp_channel_transport_bindings(NULL);
    CHECK(NULL != defaults && NULL != defaults->init_func && NULL != defaults->poller_poll_func);
    CHECK(strcmp(defaults->meta_info.name, "default") == 0);
    CHECK(aeron_driver_context_get_udp_channel_transport_bindings(context) == defaults);
    CHECK(aeron_driver_context_get_udp_channel_outgoing_interceptors(context) == NULL);
    CHECK(aeron_driver_context_get_udp_channel_incoming_interceptors(NULL) == NULL);
    CHECK(aeron_driver_context_get_name_resolver_time_tracker(context) == NULL);
    CHECK(aeron_driver_context_get_name_resolver_supplier(context) != NULL);

    /* The default poller functions only mark the table: the driver polls itself. */
    CHECK_EQ_LL(defaults->poller_init_func(NULL, context, AERON_UDP_CHANNEL_TRANSPORT_AFFINITY_SENDER), -1);
    CHECK_EQ_LL(aeron_errcode(), ENOTSUP);

    aeron_udp_channel_transport_bindings_t custom = *defaults;
    custom.poller_init_func = custom_poller_init;
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_transport_bindings(context, &custom), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(strstr(aeron_errmsg(), "poller") != NULL);
    custom = *defaults;
    custom.send_func = NULL;
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_transport_bindings(context, &custom), -1);
    CHECK(strstr(aeron_errmsg(), "send_func") != NULL);
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_transport_bindings(NULL, defaults), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);

    aeron_udp_channel_interceptor_bindings_t interceptor;
    memset(&interceptor, 0, sizeof(interceptor));
    interceptor.incoming_init_func = observer_init;
    interceptor.incoming_func = observer_incoming;
    interceptor.meta_info.name = "incoming-only";
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_outgoing_interceptors(context, &interceptor), -1);
    CHECK(strstr(aeron_errmsg(), "outgoing_init_func") != NULL);
    interceptor.incoming_publication_notification_func = publication_notification;
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_incoming_interceptors(context, &interceptor), -1);
    CHECK(strstr(aeron_errmsg(), "publication and image notification") != NULL);
    interceptor.incoming_publication_notification_func = NULL;
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_incoming_interceptors(context, &interceptor), 0);
    CHECK_EQ_LL(aeron_driver_context_set_udp_channel_incoming_interceptors(context, NULL), 0);
    CHECK(aeron_driver_context_get_udp_channel_incoming_interceptors(context) == NULL);
    CHECK_EQ_LL(aeron_driver_context_close(context), 0);

    /* Name resolvers other than default, csv_table and driver, media other than the default
     * and outgoing interceptors are not built in. */
    const char *refused[][2] = {
        { "AERON_NAME_RESOLVER_SUPPLIER", "nonesuch" },
        { "AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "ef_vi" },
        { "AERON_CONDUCTOR_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "ef_vi" },
        { "AERON_UDP_CHANNEL_OUTGOING_INTERCEPTORS", "loss" },
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
    {
        setenv(refused[i][0], refused[i][1], 1);
        CHECK_EQ_LL(aeron_driver_context_init(&context), -1);
        CHECK_EQ_LL(aeron_errcode(), EINVAL);
        CHECK(strstr(aeron_errmsg(), refused[i][0]) != NULL);
        unsetenv(refused[i][0]);
    }
    setenv("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA", "default", 1);
    setenv("AERON_NAME_RESOLVER_SUPPLIER", "default", 1);
    CHECK_EQ_LL(aeron_driver_context_init(&context), 0);
    CHECK_EQ_LL(aeron_driver_context_close(context), 0);
    unsetenv("AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_MEDIA");
    unsetenv("AERON_NAME_RESOLVER_SUPPLIER");
}

int main(void)
{
    RUN(refusals_and_defaults);
    RUN(trackers_see_every_duty_cycle);
    RUN(name_resolver_and_its_time_tracker);
    RUN(stream_through_bindings_and_a_lossy_interceptor);
    RUN(port_managers_choose_bind_addresses);
    return 0;
}
