/* The main job from C: what examples/embedded_demo.rs does, on Aeron's C API only
 * (aeronmd.h for the embedded driver, aeronc.h for the client), as a C user of Aeron would
 * write it. An embedded media driver in SHARED mode; two publisher threads offer into one
 * concurrent IPC publication while this thread polls a subscription and checks every
 * message's content and per-publisher order; then ping/pong over two exclusive
 * publications, timing each round trip with aeron_nano_clock.
 *
 *   embedded_demo [messages] [pings]      (defaults 20000000 and 200000, as the Rust demo)
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aeronc.h"
#include "aeronmd.h"

#define CHANNEL "aeron:ipc?term-length=64m"
#define MESSAGE_LENGTH (32)
#define PUBLISHERS (2)

static void fail(const char *what)
{
    fprintf(stderr, "embedded_demo: %s: %s\n", what, aeron_errmsg());
    exit(EXIT_FAILURE);
}

static aeron_publication_t *add_publication(aeron_t *aeron, int32_t stream_id)
{
    aeron_async_add_publication_t *async = NULL;
    aeron_publication_t *publication = NULL;
    if (aeron_async_add_publication(&async, aeron, CHANNEL, stream_id) < 0)
    {
        fail("aeron_async_add_publication");
    }
    int result;
    while (0 == (result = aeron_async_add_publication_poll(&publication, async)))
    {
        sched_yield();
    }
    if (result < 0)
    {
        fail("aeron_async_add_publication_poll");
    }
    return publication;
}

static aeron_exclusive_publication_t *add_exclusive_publication(aeron_t *aeron, int32_t stream_id)
{
    aeron_async_add_exclusive_publication_t *async = NULL;
    aeron_exclusive_publication_t *publication = NULL;
    if (aeron_async_add_exclusive_publication(&async, aeron, CHANNEL, stream_id) < 0)
    {
        fail("aeron_async_add_exclusive_publication");
    }
    int result;
    while (0 == (result = aeron_async_add_exclusive_publication_poll(&publication, async)))
    {
        sched_yield();
    }
    if (result < 0)
    {
        fail("aeron_async_add_exclusive_publication_poll");
    }
    return publication;
}

static aeron_subscription_t *add_subscription(aeron_t *aeron, int32_t stream_id)
{
    aeron_async_add_subscription_t *async = NULL;
    aeron_subscription_t *subscription = NULL;
    if (aeron_async_add_subscription(&async, aeron, CHANNEL, stream_id, NULL, NULL, NULL, NULL) < 0)
    {
        fail("aeron_async_add_subscription");
    }
    int result;
    while (0 == (result = aeron_async_add_subscription_poll(&subscription, async)))
    {
        sched_yield();
    }
    if (result < 0)
    {
        fail("aeron_async_add_subscription_poll");
    }
    return subscription;
}

typedef struct
{
    aeron_publication_t *publication;
    uint64_t publisher;
    uint64_t messages;
    uint64_t back_pressured;
}
publisher_t;

static void *publish(void *arg)
{
    publisher_t *p = (publisher_t *)arg;
    uint8_t message[MESSAGE_LENGTH] = { 0 };
    memcpy(message + 8, &p->publisher, sizeof(p->publisher));
    for (uint64_t seq = 0; seq < p->messages; seq++)
    {
        memcpy(message, &seq, sizeof(seq));
        int64_t result;
        while ((result = aeron_publication_offer(p->publication, message, sizeof(message), NULL, NULL)) < 0)
        {
            if (AERON_PUBLICATION_BACK_PRESSURED != result && AERON_PUBLICATION_ADMIN_ACTION != result)
            {
                fprintf(stderr, "embedded_demo: offer failed: %" PRId64 "\n", result);
                exit(EXIT_FAILURE);
            }
            p->back_pressured++;
        }
    }
    return NULL;
}

typedef struct
{
    uint64_t next[PUBLISHERS];
    uint64_t received;
}
checker_t;

static void check_message(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    checker_t *checker = (checker_t *)clientd;
    uint64_t seq;
    uint64_t publisher;
    (void)header;
    memcpy(&seq, buffer, sizeof(seq));
    memcpy(&publisher, buffer + 8, sizeof(publisher));
    if (MESSAGE_LENGTH != length || publisher >= PUBLISHERS || checker->next[publisher] != seq)
    {
        fprintf(stderr, "embedded_demo: message %" PRIu64 " of publisher %" PRIu64 " out of order\n", seq, publisher);
        exit(EXIT_FAILURE);
    }
    checker->next[publisher]++;
    checker->received++;
}

static void throughput(aeron_t *aeron, uint64_t messages)
{
    aeron_subscription_t *subscription = add_subscription(aeron, 1001);
    aeron_publication_t *publication = add_publication(aeron, 1001);
    while (!aeron_publication_is_connected(publication))
    {
        sched_yield();
    }

    uint64_t per_publisher = messages / PUBLISHERS;
    publisher_t publishers[PUBLISHERS];
    pthread_t threads[PUBLISHERS];
    checker_t checker;
    memset(&checker, 0, sizeof(checker));
    int64_t start = aeron_nano_clock();
    for (int i = 0; i < PUBLISHERS; i++)
    {
        publishers[i].publication = publication;
        publishers[i].publisher = (uint64_t)i;
        publishers[i].messages = per_publisher;
        publishers[i].back_pressured = 0;
        if (0 != pthread_create(&threads[i], NULL, publish, &publishers[i]))
        {
            fail("pthread_create");
        }
    }
    while (checker.received < per_publisher * PUBLISHERS)
    {
        if (aeron_subscription_poll(subscription, check_message, &checker, 256) < 0)
        {
            fail("aeron_subscription_poll");
        }
    }
    double seconds = (double)(aeron_nano_clock() - start) / 1e9;
    uint64_t back_pressured = 0;
    for (int i = 0; i < PUBLISHERS; i++)
    {
        pthread_join(threads[i], NULL);
        back_pressured += publishers[i].back_pressured;
    }
    double rate = (double)checker.received / seconds;
    printf(
        "throughput over %s, stream 1001: %d publishers (one concurrent publication) -> 1 subscriber, "
        "%" PRIu64 " messages of %d bytes (%.1f MB) in %.2f s\n",
        CHANNEL, PUBLISHERS, checker.received, MESSAGE_LENGTH, (double)(checker.received * MESSAGE_LENGTH) / 1e6,
        seconds);
    printf(
        "  = %.2f M msgs/s, %.1f MB/s; every message checked intact and in order; %" PRIu64 " offers back-pressured\n",
        rate / 1e6, rate * MESSAGE_LENGTH / 1e6, back_pressured);
    aeron_publication_close(publication, NULL, NULL);
    aeron_subscription_close(subscription, NULL, NULL);
}

typedef struct
{
    aeron_subscription_t *ping_subscription;
    aeron_exclusive_publication_t *pong_publication;
    volatile int stop;
    uint8_t echo[MESSAGE_LENGTH];
    int got;
}
ponger_t;

static void on_ping(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    ponger_t *ponger = (ponger_t *)clientd;
    (void)header;
    memcpy(ponger->echo, buffer, length < MESSAGE_LENGTH ? length : MESSAGE_LENGTH);
    ponger->got = 1;
}

static void *pong(void *arg)
{
    ponger_t *ponger = (ponger_t *)arg;
    while (!__atomic_load_n(&ponger->stop, __ATOMIC_ACQUIRE))
    {
        ponger->got = 0;
        aeron_subscription_poll(ponger->ping_subscription, on_ping, ponger, 1);
        if (ponger->got)
        {
            while (aeron_exclusive_publication_offer(ponger->pong_publication, ponger->echo, MESSAGE_LENGTH, NULL, NULL) < 0)
            {
            }
        }
    }
    return NULL;
}

typedef struct
{
    uint64_t expected;
    int got;
}
pinger_t;

static void on_pong(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    pinger_t *pinger = (pinger_t *)clientd;
    uint64_t seq;
    (void)length;
    (void)header;
    memcpy(&seq, buffer, sizeof(seq));
    if (seq != pinger->expected)
    {
        fprintf(stderr, "embedded_demo: pong %" PRIu64 " does not echo ping %" PRIu64 "\n", seq, pinger->expected);
        exit(EXIT_FAILURE);
    }
    pinger->got = 1;
}

static int compare_ns(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The smallest recorded value with at least `quantile` of the values at or below it. */
static double percentile_us(const int64_t *sorted, uint64_t count, double quantile)
{
    uint64_t rank = (uint64_t)(quantile * (double)count + 0.999999);
    rank = rank < 1 ? 1 : (rank > count ? count : rank);
    return (double)sorted[rank - 1] / 1000.0;
}

static void latency(aeron_t *aeron, uint64_t pings)
{
    aeron_exclusive_publication_t *ping_publication = add_exclusive_publication(aeron, 1002);
    aeron_subscription_t *ping_subscription = add_subscription(aeron, 1002);
    aeron_exclusive_publication_t *pong_publication = add_exclusive_publication(aeron, 1003);
    aeron_subscription_t *pong_subscription = add_subscription(aeron, 1003);
    while (!aeron_exclusive_publication_is_connected(ping_publication) ||
        !aeron_exclusive_publication_is_connected(pong_publication))
    {
        sched_yield();
    }

    ponger_t ponger;
    memset(&ponger, 0, sizeof(ponger));
    ponger.ping_subscription = ping_subscription;
    ponger.pong_publication = pong_publication;
    pthread_t ponger_thread;
    if (0 != pthread_create(&ponger_thread, NULL, pong, &ponger))
    {
        fail("pthread_create");
    }

    uint64_t warmup = pings / 10;
    int64_t *round_trips = (int64_t *)malloc(sizeof(int64_t) * (pings > 0 ? pings : 1));
    if (NULL == round_trips)
    {
        fail("malloc");
    }
    uint8_t message[MESSAGE_LENGTH] = { 0 };
    pinger_t pinger;
    for (uint64_t i = 0; i < warmup + pings; i++)
    {
        memcpy(message, &i, sizeof(i));
        int64_t sent = aeron_nano_clock();
        while (aeron_exclusive_publication_offer(ping_publication, message, sizeof(message), NULL, NULL) < 0)
        {
        }
        pinger.expected = i;
        pinger.got = 0;
        while (!pinger.got)
        {
            aeron_subscription_poll(pong_subscription, on_pong, &pinger, 1);
        }
        if (i >= warmup)
        {
            round_trips[i - warmup] = aeron_nano_clock() - sent;
        }
    }
    __atomic_store_n(&ponger.stop, 1, __ATOMIC_RELEASE);
    pthread_join(ponger_thread, NULL);

    qsort(round_trips, pings, sizeof(int64_t), compare_ns);
    printf(
        "round trip over %s (exclusive publications, ping stream 1002, pong stream 1003): "
        "%" PRIu64 " pings of %d bytes after %" PRIu64 " warm-up\n",
        CHANNEL, pings, MESSAGE_LENGTH, warmup);
    if (pings > 0)
    {
        printf(
            "  p50 %.2f us, p90 %.2f us, p99 %.2f us, p99.9 %.2f us, max %.2f us\n",
            percentile_us(round_trips, pings, 0.50), percentile_us(round_trips, pings, 0.90),
            percentile_us(round_trips, pings, 0.99), percentile_us(round_trips, pings, 0.999),
            (double)round_trips[pings - 1] / 1000.0);
    }
    free(round_trips);
    aeron_exclusive_publication_close(ping_publication, NULL, NULL);
    aeron_exclusive_publication_close(pong_publication, NULL, NULL);
    aeron_subscription_close(ping_subscription, NULL, NULL);
    aeron_subscription_close(pong_subscription, NULL, NULL);
}

int main(int argc, char **argv)
{
    uint64_t messages = argc > 1 ? strtoull(argv[1], NULL, 10) : UINT64_C(20000000);
    uint64_t pings = argc > 2 ? strtoull(argv[2], NULL, 10) : UINT64_C(200000);

    char dir[256];
    snprintf(dir, sizeof(dir), "/tmp/aeronrs-demo-c-%ld", (long)getpid());
    aeron_driver_context_t *driver_context = NULL;
    aeron_driver_t *driver = NULL;
    if (aeron_driver_context_init(&driver_context) < 0 ||
        aeron_driver_context_set_dir(driver_context, dir) < 0 ||
        aeron_driver_context_set_dir_delete_on_start(driver_context, true) < 0 ||
        aeron_driver_context_set_dir_delete_on_shutdown(driver_context, true) < 0 ||
        aeron_driver_context_set_threading_mode(driver_context, AERON_THREADING_MODE_SHARED) < 0 ||
        aeron_driver_context_set_shared_idle_strategy(driver_context, "sleep-ns") < 0 ||
        aeron_driver_context_set_shared_idle_strategy_init_args(driver_context, "100us") < 0)
    {
        fail("driver context");
    }
    if (aeron_driver_init(&driver, driver_context) < 0 || aeron_driver_start(driver, false) < 0)
    {
        fail("aeron_driver_start");
    }
    printf("aeronrs embedded demo, C API (examples-c/embedded_demo.c: aeronmd.h, aeronc.h)\n");
    printf(
        "media driver: embedded, threading mode SHARED (conductor, sender and receiver on one thread, "
        "sleeping 100 us when idle), directory %s\n",
        dir);

    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    if (aeron_context_init(&context) < 0 || aeron_context_set_dir(context, dir) < 0 ||
        aeron_init(&aeron, context) < 0 || aeron_start(aeron) < 0)
    {
        fail("client");
    }

    throughput(aeron, messages);
    latency(aeron, pings);

    aeron_close(aeron);
    aeron_context_close(context);
    aeron_driver_close(driver);
    aeron_driver_context_close(driver_context);
    return 0;
}
