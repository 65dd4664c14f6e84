/* Shared sample code; see sample_util.h. */
#include "sample_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

volatile sig_atomic_t g_running = 1;

static void on_signal(int signal)
{
    (void)signal;
    g_running = 0;
}

void install_signal_handlers(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
}


void print_version(const char *program)
{
    printf("%s <%s> major %d minor %d patch %d git %s\n", program, aeron_version_full(), aeron_version_major(),
        aeron_version_minor(), aeron_version_patch(), aeron_version_gitsha());
}

void print_available_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image)
{
    aeron_subscription_constants_t subscription_constants;
    aeron_image_constants_t image_constants;
    (void)clientd;
    if (aeron_subscription_constants(subscription, &subscription_constants) < 0 ||
        aeron_image_constants(image, &image_constants) < 0)
    {
        fprintf(stderr, "could not get subscription/image constants: %s\n", aeron_errmsg());
        return;
    }
    printf("Available image on %s streamId=%" PRId32 " sessionId=%" PRId32 " mtu=%" PRId32 " term-length=%" PRId32
        " from %s\n",
        subscription_constants.channel, subscription_constants.stream_id, image_constants.session_id,
        (int32_t)image_constants.mtu_length, (int32_t)image_constants.term_buffer_length,
        image_constants.source_identity);
    fflush(stdout);
}

void print_unavailable_image(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image)
{
    aeron_subscription_constants_t subscription_constants;
    aeron_image_constants_t image_constants;
    (void)clientd;
    if (aeron_subscription_constants(subscription, &subscription_constants) < 0 ||
        aeron_image_constants(image, &image_constants) < 0)
    {
        fprintf(stderr, "could not get subscription/image constants: %s\n", aeron_errmsg());
        return;
    }
    printf("Unavailable image on %s streamId=%" PRId32 " sessionId=%" PRId32 "\n", subscription_constants.channel,
        subscription_constants.stream_id, image_constants.session_id);
    fflush(stdout);
}

int connect_client(aeron_context_t **context, aeron_t **client, const char *aeron_dir)
{
    if (aeron_context_init(context) < 0)
    {
        fprintf(stderr, "aeron_context_init: %s\n", aeron_errmsg());
        return -1;
    }
    if (NULL != aeron_dir && aeron_context_set_dir(*context, aeron_dir) < 0)
    {
        fprintf(stderr, "aeron_context_set_dir: %s\n", aeron_errmsg());
        return -1;
    }
    if (aeron_init(client, *context) < 0)
    {
        fprintf(stderr, "aeron_init: %s\n", aeron_errmsg());
        return -1;
    }
    if (aeron_start(*client) < 0)
    {
        fprintf(stderr, "aeron_start: %s\n", aeron_errmsg());
        return -1;
    }
    return 0;
}

void print_rate_report(uint64_t duration_ns, double mps, double bps, uint64_t messages, uint64_t bytes)
{
    printf("%" PRIu64 "ms, %.04g msgs/sec, %.04g bytes/sec, totals %" PRIu64 " messages %" PRIu64 " MB payloads\n",
        duration_ns / UINT64_C(1000000), mps, bps, messages, bytes / (UINT64_C(1024) * UINT64_C(1024)));
    fflush(stdout);
}

static int rate_reporter_do_work(void *state)
{
    rate_reporter_t *reporter = (rate_reporter_t *)state;
    /* Acquire: pairs with the counting thread's release stores. */
    uint64_t messages = __atomic_load_n(&reporter->total_messages, __ATOMIC_ACQUIRE);
    uint64_t bytes = __atomic_load_n(&reporter->total_bytes, __ATOMIC_ACQUIRE);
    int64_t now_ns = aeron_nano_clock();
    int64_t duration_ns = now_ns - reporter->last_timestamp_ns;
    if (duration_ns <= 0)
    {
        return 0;
    }
    double mps = (double)(messages - reporter->last_total_messages) * 1e9 / (double)duration_ns;
    double bps = (double)(bytes - reporter->last_total_bytes) * 1e9 / (double)duration_ns;
    print_rate_report((uint64_t)duration_ns, mps, bps, messages, bytes);
    reporter->last_total_messages = messages;
    reporter->last_total_bytes = bytes;
    reporter->last_timestamp_ns = now_ns;
    return 0;
}

int rate_reporter_start(rate_reporter_t *reporter)
{
    memset(reporter, 0, sizeof(*reporter));
    reporter->idle_duration_ns = UINT64_C(1000000000);
    reporter->last_timestamp_ns = aeron_nano_clock();
    if (aeron_agent_init(&reporter->runner, "rate reporter", reporter, NULL, NULL, rate_reporter_do_work, NULL,
        aeron_idle_strategy_sleeping_idle, &reporter->idle_duration_ns) < 0)
    {
        return -1;
    }
    return aeron_agent_start(&reporter->runner);
}


void rate_reporter_poll_handler(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    (void)buffer;
    (void)header;
    rate_reporter_on_message((rate_reporter_t *)clientd, length);
}

void rate_reporter_halt(rate_reporter_t *reporter)
{
    aeron_agent_stop(&reporter->runner);
    aeron_agent_close(&reporter->runner);
}

void latency_histogram_reset(latency_histogram_t *histogram)
{
    memset(histogram, 0, sizeof(*histogram));
}

/* Values below 1024 have their own counter; above, each power of two [2^m, 2^(m+1)) is split
 * into 512 equal sub-buckets (at least 3 significant digits). */
static size_t histogram_index(uint64_t value)
{
    if (value < LATENCY_SUB_BUCKETS)
    {
        return (size_t)value;
    }
    int msb = 63 - __builtin_clzll(value);
    int shift = msb - 9;
    uint64_t sub = value >> shift; /* 512..1023 */
    return LATENCY_SUB_BUCKETS + (size_t)(shift - 1) * (LATENCY_SUB_BUCKETS / 2) + (size_t)(sub - 512);
}

static uint64_t histogram_highest_value(size_t index)
{
    if (index < LATENCY_SUB_BUCKETS)
    {
        return index;
    }
    size_t above = index - LATENCY_SUB_BUCKETS;
    int shift = (int)(above / (LATENCY_SUB_BUCKETS / 2)) + 1;
    uint64_t sub = 512 + above % (LATENCY_SUB_BUCKETS / 2);
    return ((sub + 1) << shift) - 1;
}

void latency_histogram_record(latency_histogram_t *histogram, uint64_t value_ns)
{
    histogram->counts[histogram_index(value_ns)]++;
    histogram->total++;
    if (value_ns > histogram->max)
    {
        histogram->max = value_ns;
    }
}

uint64_t latency_histogram_value_at(const latency_histogram_t *histogram, double quantile)
{
    if (0 == histogram->total)
    {
        return 0;
    }
    uint64_t wanted = (uint64_t)(quantile * (double)histogram->total + 0.5);
    if (wanted < 1)
    {
        wanted = 1;
    }
    uint64_t seen = 0;
    size_t length = sizeof(histogram->counts) / sizeof(histogram->counts[0]);
    for (size_t i = 0; i < length; i++)
    {
        seen += histogram->counts[i];
        if (seen >= wanted)
        {
            uint64_t value = histogram_highest_value(i);
            return value < histogram->max ? value : histogram->max;
        }
    }
    return histogram->max;
}

double latency_histogram_trimmed_mean(const latency_histogram_t *histogram, double fraction)
{
    uint64_t wanted = (uint64_t)(fraction * (double)histogram->total);
    wanted = wanted < 1 ? 1 : wanted;
    uint64_t taken = 0;
    double sum = 0.0;
    size_t length = sizeof(histogram->counts) / sizeof(histogram->counts[0]);
    for (size_t i = 0; i < length && taken < wanted; i++)
    {
        uint64_t take = histogram->counts[i] < wanted - taken ? histogram->counts[i] : wanted - taken;
        uint64_t value = histogram_highest_value(i);
        sum += (double)take * (double)(value < histogram->max ? value : histogram->max);
        taken += take;
    }
    return 0 == taken ? 0.0 : sum / (double)taken;
}

void latency_histogram_print(const latency_histogram_t *histogram, const char *what, double elapsed_s)
{
    static const double quantiles[] = { 0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 1.0 };
    printf("%12s %14s %10s\n", "Value (us)", "Percentile", "TotalCount");
    for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]); i++)
    {
        uint64_t value = quantiles[i] >= 1.0 ? histogram->max : latency_histogram_value_at(histogram, quantiles[i]);
        printf("%12.3f %14.6f %10" PRIu64 "\n", (double)value / 1000.0, quantiles[i],
            (uint64_t)(quantiles[i] * (double)histogram->total));
    }
    printf("%" PRIu64 " %s in %.2fs: p50 %" PRIu64 " ns, p90 %" PRIu64 " ns, p99 %" PRIu64 " ns, p99.9 %" PRIu64
        " ns, max %" PRIu64 " ns, mean99 %.2f ns\n",
        histogram->total, what, elapsed_s, latency_histogram_value_at(histogram, 0.5),
        latency_histogram_value_at(histogram, 0.9), latency_histogram_value_at(histogram, 0.99),
        latency_histogram_value_at(histogram, 0.999), histogram->max, latency_histogram_trimmed_mean(histogram, 0.99));
    fflush(stdout);
}
