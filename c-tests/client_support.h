/* What the client API tests share: a temporary Aeron directory, an embedded media driver
 * (aeronmd.h, SHARED threading mode, small terms, sleeping idle so that a loaded two-core
 * machine keeps up), a connected client, and bounded waits. Every wait gives up with a
 * failed CHECK after WAIT_LIMIT_MS instead of hanging. */
#ifndef AERONRS_CLIENT_SUPPORT_H
#define AERONRS_CLIENT_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "aeronc.h"
#include "aeronmd.h"
#include "test_util.h"

#define WAIT_LIMIT_MS 20000
#define IPC "aeron:ipc"
#define TERM_LENGTH (64 * 1024)

typedef struct
{
    char dir[256];
    aeron_driver_context_t *driver_context;
    aeron_driver_t *driver;
    aeron_context_t *context;
    aeron_t *client;
}
test_env_t;

static inline void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Waits (bounded) until `cond` holds, running `step` between checks. */
#define WAIT_FOR(cond, step)                                                                 \
    do                                                                                      \
    {                                                                                       \
        int64_t deadline_ = aeron_epoch_clock() + WAIT_LIMIT_MS;                            \
        while (!(cond))                                                                     \
        {                                                                                   \
            if (aeron_epoch_clock() > deadline_)                                            \
            {                                                                               \
                fprintf(stderr, "%s:%d: timed out waiting for %s; errmsg=%s\n", __FILE__,    \
                    __LINE__, #cond, aeron_errmsg());                                       \
                exit(1);                                                                    \
            }                                                                               \
            step;                                                                           \
        }                                                                                   \
    }                                                                                       \
    while (0)

/* Checks that `call` fails with `value` and errcode `code`. */
#define CHECK_FAILS_WITH(call, value, code)                                                 \
    do                                                                                      \
    {                                                                                       \
        CHECK_EQ_LL((call), (value));                                                       \
        CHECK_EQ_LL(aeron_errcode(), (code));                                               \
        CHECK(strlen(aeron_errmsg()) > 0);                                                  \
    }                                                                                       \
    while (0)

static inline void make_temp_dir(char *dir, size_t length, const char *name)
{
    snprintf(dir, length, "/tmp/aeronrs-ctest-%s-XXXXXX", name);
    CHECK(mkdtemp(dir) != NULL);
}

/* The settings of an embedded driver in a new `env->dir` (deleted on shutdown). */
static inline void prepare_driver(test_env_t *env, const char *name)
{
    make_temp_dir(env->dir, sizeof(env->dir), name);
    CHECK_EQ_LL(aeron_driver_context_init(&env->driver_context), 0);
    CHECK_EQ_LL(aeron_driver_context_set_dir(env->driver_context, env->dir), 0);
    CHECK_EQ_LL(aeron_driver_context_set_dir_delete_on_start(env->driver_context, true), 0);
    CHECK_EQ_LL(aeron_driver_context_set_dir_delete_on_shutdown(env->driver_context, true), 0);
    CHECK_EQ_LL(aeron_driver_context_set_threading_mode(env->driver_context, AERON_THREADING_MODE_SHARED), 0);
    CHECK_EQ_LL(aeron_driver_context_set_shared_idle_strategy(env->driver_context, "sleep-ns"), 0);
    CHECK_EQ_LL(aeron_driver_context_set_shared_idle_strategy_init_args(env->driver_context, "1ms"), 0);
    CHECK_EQ_LL(aeron_driver_context_set_term_buffer_length(env->driver_context, TERM_LENGTH), 0);
    CHECK_EQ_LL(aeron_driver_context_set_ipc_term_buffer_length(env->driver_context, TERM_LENGTH), 0);
}

/* Starts the embedded driver prepared in `env`. */
static inline void launch_driver(test_env_t *env)
{
    CHECK_EQ_LL(aeron_driver_init(&env->driver, env->driver_context), 0);
    CHECK_EQ_LL(aeron_driver_start(env->driver, false), 0);
}

/* An embedded driver in a new `env->dir` (deleted on shutdown). */
static inline void start_driver(test_env_t *env, const char *name)
{
    prepare_driver(env, name);
    launch_driver(env);
}

/* A client context for `env->dir` with a short idle sleep (fast command round trips). */
static inline aeron_context_t *client_context(const test_env_t *env)
{
    aeron_context_t *context = NULL;
    CHECK_EQ_LL(aeron_context_init(&context), 0);
    CHECK_EQ_LL(aeron_context_set_dir(context, env->dir), 0);
    CHECK_EQ_LL(aeron_context_set_idle_sleep_duration_ns(context, 1000000), 0);
    CHECK_EQ_LL(aeron_context_set_resource_linger_duration_ns(context, 10000000), 0);
    return context;
}

static inline void connect_client(test_env_t *env)
{
    env->context = client_context(env);
    CHECK_EQ_LL(aeron_init(&env->client, env->context), 0);
    CHECK_EQ_LL(aeron_start(env->client), 0);
}

/* Starts a driver and connects a client to it. */
static inline void setup(test_env_t *env, const char *name)
{
    memset(env, 0, sizeof(*env));
    start_driver(env, name);
    connect_client(env);
}

static inline void teardown(test_env_t *env)
{
    if (NULL != env->client)
    {
        CHECK_EQ_LL(aeron_close(env->client), 0);
    }
    if (NULL != env->context)
    {
        CHECK_EQ_LL(aeron_context_close(env->context), 0);
    }
    CHECK_EQ_LL(aeron_driver_close(env->driver), 0);
    CHECK_EQ_LL(aeron_driver_context_close(env->driver_context), 0);
}

static inline aeron_publication_t *add_publication(aeron_t *client, const char *channel, int32_t stream_id)
{
    aeron_async_add_publication_t *async = NULL;
    aeron_publication_t *publication = NULL;
    CHECK_EQ_LL(aeron_async_add_publication(&async, client, channel, stream_id), 0);
    int result = 0;
    WAIT_FOR((result = aeron_async_add_publication_poll(&publication, async)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, 1);
    return publication;
}

static inline aeron_exclusive_publication_t *add_exclusive_publication(
    aeron_t *client, const char *channel, int32_t stream_id)
{
    aeron_async_add_exclusive_publication_t *async = NULL;
    aeron_exclusive_publication_t *publication = NULL;
    CHECK_EQ_LL(aeron_async_add_exclusive_publication(&async, client, channel, stream_id), 0);
    int result = 0;
    WAIT_FOR((result = aeron_async_add_exclusive_publication_poll(&publication, async)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, 1);
    return publication;
}

static inline aeron_subscription_t *add_subscription_with_handlers(
    aeron_t *client,
    const char *channel,
    int32_t stream_id,
    aeron_on_available_image_t on_available,
    aeron_on_unavailable_image_t on_unavailable,
    void *clientd)
{
    aeron_async_add_subscription_t *async = NULL;
    aeron_subscription_t *subscription = NULL;
    CHECK_EQ_LL(aeron_async_add_subscription(
        &async, client, channel, stream_id, on_available, clientd, on_unavailable, clientd), 0);
    int result = 0;
    WAIT_FOR((result = aeron_async_add_subscription_poll(&subscription, async)) != 0, sleep_ms(1));
    CHECK_EQ_LL(result, 1);
    return subscription;
}

static inline aeron_subscription_t *add_subscription(aeron_t *client, const char *channel, int32_t stream_id)
{
    return add_subscription_with_handlers(client, channel, stream_id, NULL, NULL, NULL);
}

/* Offers until the message is in (bounded), retrying back pressure and admin actions. */
static inline int64_t offer_message(aeron_publication_t *publication, const void *message, size_t length)
{
    int64_t position = 0;
    WAIT_FOR((position = aeron_publication_offer(publication, (const uint8_t *)message, length, NULL, NULL)) > 0,
        { CHECK(position != AERON_PUBLICATION_CLOSED && position != AERON_PUBLICATION_ERROR); sched_yield(); });
    return position;
}

#endif
