/* What the samples share: default channels and streams (those of Aeron's C samples), the
 * SIGINT flag, image printouts, a rate reporter on its own agent thread, and a latency
 * histogram. Only the public headers (aeronc.h, aeronmd.h) are used. */
#ifndef AERONRS_SAMPLE_UTIL_H
#define AERONRS_SAMPLE_UTIL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aeronc.h"

#define DEFAULT_CHANNEL "aeron:udp?endpoint=localhost:20121"
#define DEFAULT_PING_CHANNEL "aeron:udp?endpoint=localhost:20123"
#define DEFAULT_PONG_CHANNEL "aeron:udp?endpoint=localhost:20124"
#define DEFAULT_STREAM_ID (1001)
#define DEFAULT_PING_STREAM_ID (1002)
#define DEFAULT_PONG_STREAM_ID (1003)
#define DEFAULT_NUMBER_OF_WARM_UP_MESSAGES (100000)
#define DEFAULT_NUMBER_OF_MESSAGES (10000000)
#define DEFAULT_MESSAGE_LENGTH (32)
#define DEFAULT_LINGER_TIMEOUT_MS (0)
#define DEFAULT_FRAGMENT_COUNT_LIMIT (10)

/* Cleared by SIGINT (and SIGTERM): loops check it to finish cleanly. */
extern volatile sig_atomic_t g_running;
void install_signal_handlers(void);
/* Inline: the samples' hot loops test it per message (as the Rust twins, whose compiler
 * inlines it), so it costs a load, not a call. */
static inline bool is_running(void)
{
    return g_running != 0;
}

/* Prints the -v line of every sample. */
void print_version(const char *program);

/* Image handlers printing what joined or left. */
void print_available_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image);
void print_unavailable_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image);

/* Connects a client to the driver in `aeron_dir` (NULL: the default directory). Returns 0,
 * or -1 having printed why. */
int connect_client(aeron_context_t **context, aeron_t **client, const char *aeron_dir);

/* Counts messages and bytes (one writer thread) and prints their rates once a second from
 * an agent thread. */
typedef struct
{
    aeron_agent_runner_t runner;
    uint64_t idle_duration_ns;
    uint64_t total_messages; /* written with release by the counting thread */
    uint64_t total_bytes;
    uint64_t last_total_messages;
    uint64_t last_total_bytes;
    int64_t last_timestamp_ns;
}
rate_reporter_t;

int rate_reporter_start(rate_reporter_t *reporter);
/* Inline for the same reason as is_running: called once per message. One counting thread:
 * plain reads of its own values, release stores for the reporter. */
static inline void rate_reporter_on_message(rate_reporter_t *reporter, size_t length)
{
    __atomic_store_n(&reporter->total_bytes, reporter->total_bytes + length, __ATOMIC_RELEASE);
    __atomic_store_n(&reporter->total_messages, reporter->total_messages + 1, __ATOMIC_RELEASE);
}
/* A fragment handler counting each message into the rate reporter given as clientd. */
void rate_reporter_poll_handler(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header);
void rate_reporter_halt(rate_reporter_t *reporter);
void print_rate_report(uint64_t duration_ns, double mps, double bps, uint64_t messages, uint64_t bytes);

/* Latencies in nanoseconds with 3 significant decimal digits (1024 linear sub-buckets per
 * power of two), up to 2^63. */
#define LATENCY_SUB_BUCKETS 1024
#define LATENCY_BUCKETS 55
typedef struct
{
    uint64_t counts[LATENCY_SUB_BUCKETS + LATENCY_BUCKETS * (LATENCY_SUB_BUCKETS / 2)];
    uint64_t total;
    uint64_t max;
}
latency_histogram_t;

void latency_histogram_reset(latency_histogram_t *histogram);
void latency_histogram_record(latency_histogram_t *histogram, uint64_t value_ns);
/* The highest value its bucket holds at `quantile` (0..1), as HdrHistogram reports it. */
uint64_t latency_histogram_value_at(const latency_histogram_t *histogram, double quantile);
/* The percentile table and the one-line summary the Rust benchmarks print. */
/* The mean of the lowest `fraction` of the values (outliers left out): resolves
 * differences below the clock's tick, which the percentiles cannot. */
double latency_histogram_trimmed_mean(const latency_histogram_t *histogram, double fraction);
void latency_histogram_print(const latency_histogram_t *histogram, const char *what, double elapsed_s);

#endif
