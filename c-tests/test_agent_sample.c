/* A program written the way Aeron's C samples are, with Aeron's headers only: an embedded
 * media driver (aeronmd.h), an IPC publication and subscription (aeronc.h), and two agents
 * whose aeron_agent_runner_t lives by value inside the caller's structs (as sample_util.c's
 * rate reporter embeds it): a subscriber agent idling with a custom idle strategy, an
 * aeron_idle_strategy_t object found by name as Aeron loads custom strategies, and a rate
 * reporter sleeping with aeron_idle_strategy_sleeping_idle over its own uint64_t period. The
 * publisher spins with aeron_idle_strategy_busy_spinning_idle on back pressure, as
 * streaming_publisher.c does. Self-contained (no test helpers): c-tests builds it against
 * aeronrs::, and the aeron-consumer project and the pkg-config check build it against
 * Aeron's names (aeron::aeron, aeron::aeron_driver, pkg-config aeron). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aeronc.h"
#include "aeronmd.h"
#include "aeron_agent.h"
#include "concurrent/aeron_atomic.h"
#include "util/aeron_strutil.h"

#define MESSAGES (20000)
#define STREAM_ID (1001)

#define SAMPLE_CHECK(cond)                                                                  \
    do                                                                                      \
    {                                                                                       \
        if (!(cond))                                                                        \
        {                                                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #cond, aeron_errmsg()); \
            exit(EXIT_FAILURE);                                                             \
        }                                                                                   \
    }                                                                                       \
    while (0)

/* The custom idle strategy: yields, and counts its idles in the state its init made. */
static void counting_idle(void *state, int work_count)
{
    if (0 == work_count)
    {
        uint64_t *idles = (uint64_t *)state;
        (*idles)++;
        proc_yield();
    }
}

static int counting_idle_init(void **state, const char *env_var, const char *init_args)
{
    (void)env_var;
    (void)init_args;
    return aeron_alloc(state, sizeof(uint64_t));
}

/* Found by aeron_idle_strategy_load("sample_counting_idle_strategy", ...): the executable
 * exports its symbols (ENABLE_EXPORTS / -rdynamic). */
#if defined(__cplusplus)
extern "C"
{
#endif
aeron_idle_strategy_t sample_counting_idle_strategy = { counting_idle, counting_idle_init };
#if defined(__cplusplus)
}
#endif

typedef struct subscriber_agent_stct
{
    aeron_agent_runner_t runner;
    aeron_subscription_t *subscription;
    volatile int64_t received;
    volatile int64_t bytes;
    bool closed;
}
subscriber_agent_t;

typedef struct rate_reporter_stct
{
    aeron_agent_runner_t runner;
    uint64_t idle_duration_ns;
    subscriber_agent_t *subscriber;
    volatile int64_t reports;
}
rate_reporter_t;

static void on_fragment(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    subscriber_agent_t *agent = (subscriber_agent_t *)clientd;
    (void)buffer;
    (void)header;
    AERON_SET_RELEASE(agent->bytes, agent->bytes + (int64_t)length);
    AERON_SET_RELEASE(agent->received, agent->received + 1);
}

static int subscriber_do_work(void *state)
{
    subscriber_agent_t *agent = (subscriber_agent_t *)state;
    return aeron_subscription_poll(agent->subscription, on_fragment, agent, 10);
}

static void subscriber_on_close(void *state)
{
    ((subscriber_agent_t *)state)->closed = true;
}

static int reporter_do_work(void *state)
{
    rate_reporter_t *reporter = (rate_reporter_t *)state;
    AERON_SET_RELEASE(reporter->reports, reporter->reports + 1);
    return 0;
}

static void on_start(void *state, const char *role_name)
{
    (void)state;
    aeron_thread_set_name(role_name);
}

int main(void)
{
    char dir[] = "/tmp/aeron-agent-sample-XXXXXX";
    SAMPLE_CHECK(mkdtemp(dir) != NULL);

    aeron_driver_context_t *driver_context = NULL;
    aeron_driver_t *driver = NULL;
    SAMPLE_CHECK(aeron_driver_context_init(&driver_context) == 0);
    SAMPLE_CHECK(aeron_driver_context_set_dir(driver_context, dir) == 0);
    SAMPLE_CHECK(aeron_driver_context_set_dir_delete_on_start(driver_context, true) == 0);
    SAMPLE_CHECK(aeron_driver_context_set_dir_delete_on_shutdown(driver_context, true) == 0);
    SAMPLE_CHECK(aeron_driver_context_set_threading_mode(driver_context, AERON_THREADING_MODE_SHARED) == 0);
    SAMPLE_CHECK(aeron_driver_context_set_shared_idle_strategy(driver_context, "sleep-ns") == 0);
    SAMPLE_CHECK(aeron_driver_context_set_ipc_term_buffer_length(driver_context, 64 * 1024) == 0);
    SAMPLE_CHECK(aeron_driver_init(&driver, driver_context) == 0);
    SAMPLE_CHECK(aeron_driver_start(driver, false) == 0);

    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    SAMPLE_CHECK(aeron_context_init(&context) == 0);
    SAMPLE_CHECK(aeron_context_set_dir(context, dir) == 0);
    SAMPLE_CHECK(aeron_init(&aeron, context) == 0);
    SAMPLE_CHECK(aeron_start(aeron) == 0);

    aeron_async_add_subscription_t *async_sub = NULL;
    aeron_subscription_t *subscription = NULL;
    SAMPLE_CHECK(aeron_async_add_subscription(&async_sub, aeron, "aeron:ipc", STREAM_ID, NULL, NULL, NULL, NULL) == 0);
    int poll = 0;
    while (0 == (poll = aeron_async_add_subscription_poll(&subscription, async_sub)))
    {
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    SAMPLE_CHECK(poll == 1);
    aeron_async_add_publication_t *async_pub = NULL;
    aeron_publication_t *publication = NULL;
    SAMPLE_CHECK(aeron_async_add_publication(&async_pub, aeron, "aeron:ipc", STREAM_ID) == 0);
    while (0 == (poll = aeron_async_add_publication_poll(&publication, async_pub)))
    {
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    SAMPLE_CHECK(poll == 1);

    /* The subscriber agent, idling with the custom strategy loaded by name. */
    subscriber_agent_t subscriber;
    memset(&subscriber, 0, sizeof(subscriber));
    subscriber.subscription = subscription;
    void *idle_state = NULL;
    aeron_idle_strategy_func_t idle =
        aeron_idle_strategy_load("sample_counting_idle_strategy", &idle_state, "SAMPLE_IDLE_STRATEGY", NULL);
    SAMPLE_CHECK(idle == counting_idle && idle_state != NULL);
    SAMPLE_CHECK(aeron_agent_init(
        &subscriber.runner, "sample-subscriber", &subscriber, on_start, NULL, subscriber_do_work,
        subscriber_on_close, idle, idle_state) == 0);
    SAMPLE_CHECK(subscriber.runner.state == AERON_AGENT_STATE_INITED);

    /* The rate reporter, as sample_util.c starts one: sleeping idle over its own period. */
    rate_reporter_t reporter;
    memset(&reporter, 0, sizeof(reporter));
    reporter.idle_duration_ns = 1000 * 1000;
    reporter.subscriber = &subscriber;
    SAMPLE_CHECK(aeron_agent_init(
        &reporter.runner, "sample-rate-reporter", &reporter, NULL, NULL, reporter_do_work, NULL,
        aeron_idle_strategy_sleeping_idle, &reporter.idle_duration_ns) == 0);

    SAMPLE_CHECK(aeron_agent_start(&subscriber.runner) == 0);
    SAMPLE_CHECK(aeron_agent_start(&reporter.runner) == 0);
    SAMPLE_CHECK(subscriber.runner.state == AERON_AGENT_STATE_STARTED);
    SAMPLE_CHECK(aeron_agent_is_running(&subscriber.runner));

    while (!aeron_publication_is_connected(publication))
    {
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    uint8_t message[32];
    memset(message, 'm', sizeof(message));
    int64_t back_pressured = 0;
    for (int i = 0; i < MESSAGES; i++)
    {
        int64_t result;
        while ((result = aeron_publication_offer(publication, message, sizeof(message), NULL, NULL)) < 0)
        {
            SAMPLE_CHECK(result == AERON_PUBLICATION_BACK_PRESSURED || result == AERON_PUBLICATION_ADMIN_ACTION);
            back_pressured++;
            aeron_idle_strategy_busy_spinning_idle(NULL, 0);
        }
    }

    int64_t received = 0;
    int64_t deadline = aeron_epoch_clock() + 20000;
    do
    {
        AERON_GET_ACQUIRE(received, subscriber.received);
        aeron_nano_sleep(1000 * 1000);
    }
    while (received < MESSAGES && aeron_epoch_clock() < deadline);
    SAMPLE_CHECK(received == MESSAGES);
    /* On a loaded machine the reporter's thread may not have run a cycle yet. */
    int64_t reports = 0;
    do
    {
        AERON_GET_ACQUIRE(reports, reporter.reports);
        aeron_nano_sleep(1000 * 1000);
    }
    while (reports == 0 && aeron_epoch_clock() < deadline);

    SAMPLE_CHECK(aeron_agent_stop(&subscriber.runner) == 0);
    SAMPLE_CHECK(aeron_agent_stop(&reporter.runner) == 0);
    SAMPLE_CHECK(!aeron_agent_is_running(&subscriber.runner));
    SAMPLE_CHECK(subscriber.runner.state == AERON_AGENT_STATE_STOPPED);
    SAMPLE_CHECK(aeron_agent_close(&subscriber.runner) == 0);
    SAMPLE_CHECK(aeron_agent_close(&reporter.runner) == 0);
    SAMPLE_CHECK(subscriber.closed);
    SAMPLE_CHECK(reporter.reports > 0);
    uint64_t idles = *(uint64_t *)idle_state;
    aeron_free(idle_state);

    int64_t bytes = 0;
    AERON_GET_ACQUIRE(bytes, subscriber.bytes);
    char grouped[AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN];
    printf(
        "agent sample: %" PRId64 " messages (%s bytes) over IPC, %" PRId64 " back-pressured offers, "
        "subscriber idled %" PRIu64 " times, reporter ran %" PRId64 " duty cycles\n",
        received, aeron_format_number_to_locale(bytes, grouped, sizeof(grouped)), back_pressured, idles,
        reporter.reports);

    SAMPLE_CHECK(aeron_publication_close(publication, NULL, NULL) == 0);
    SAMPLE_CHECK(aeron_subscription_close(subscription, NULL, NULL) == 0);
    SAMPLE_CHECK(aeron_close(aeron) == 0);
    SAMPLE_CHECK(aeron_context_close(context) == 0);
    SAMPLE_CHECK(aeron_driver_close(driver) == 0);
    SAMPLE_CHECK(aeron_driver_context_close(driver_context) == 0);
    return 0;
}
