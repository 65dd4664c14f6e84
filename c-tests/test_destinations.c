/* The destination functions of the client API (aeron_*_async_*destination*): argument
 * checks, what the polls return and when they free the async handle, and closed
 * resources. The embedded driver has no multi-destination channels to offer here (the
 * publications are IPC), so every command ends in the driver's refusal: that is the
 * pending-then-error path of the polls. The success path runs against a Java media driver
 * in tests/ffi_destinations.rs. The client runs in invoker mode, so a command stays
 * pending, deterministically, until the test runs the conductor. */
#include "client_support.h"

#define DESTINATION "aeron:udp?endpoint=127.0.0.1:24325"

/* Runs the conductor until `poll_call` stops answering 0; the result. */
#define POLL_UNTIL_DONE(client, result, poll_call)                                          \
    WAIT_FOR(((result) = (poll_call)) != 0, { aeron_main_do_work(client); sleep_ms(1); })

static void connect_invoker_client(test_env_t *env, const char *name)
{
    memset(env, 0, sizeof(*env));
    start_driver(env, name);
    env->context = client_context(env);
    CHECK_EQ_LL(aeron_context_set_use_conductor_agent_invoker(env->context, true), 0);
    /* Closed handles stay readable this long (the closed-resource checks use them). */
    CHECK_EQ_LL(aeron_context_set_resource_linger_duration_ns(env->context, 5000000000ULL), 0);
    CHECK_EQ_LL(aeron_init(&env->client, env->context), 0);
    CHECK_EQ_LL(aeron_start(env->client), 0);
}

static aeron_publication_t *add_ipc_publication(aeron_t *client, int32_t stream_id)
{
    aeron_async_add_publication_t *async = NULL;
    aeron_publication_t *publication = NULL;
    CHECK_EQ_LL(aeron_async_add_publication(&async, client, IPC, stream_id), 0);
    int result = 0;
    POLL_UNTIL_DONE(client, result, aeron_async_add_publication_poll(&publication, async));
    CHECK_EQ_LL(result, 1);
    return publication;
}

static aeron_exclusive_publication_t *add_ipc_exclusive_publication(aeron_t *client, int32_t stream_id)
{
    aeron_async_add_exclusive_publication_t *async = NULL;
    aeron_exclusive_publication_t *publication = NULL;
    CHECK_EQ_LL(aeron_async_add_exclusive_publication(&async, client, IPC, stream_id), 0);
    int result = 0;
    POLL_UNTIL_DONE(client, result, aeron_async_add_exclusive_publication_poll(&publication, async));
    CHECK_EQ_LL(result, 1);
    return publication;
}

static aeron_subscription_t *add_ipc_subscription(aeron_t *client, int32_t stream_id)
{
    aeron_async_add_subscription_t *async = NULL;
    aeron_subscription_t *subscription = NULL;
    CHECK_EQ_LL(aeron_async_add_subscription(&async, client, IPC, stream_id, NULL, NULL, NULL, NULL), 0);
    int result = 0;
    POLL_UNTIL_DONE(client, result, aeron_async_add_subscription_poll(&subscription, async));
    CHECK_EQ_LL(result, 1);
    return subscription;
}

/* Checks that `call` fails with -1, EINVAL, and an errmsg naming `arg`. */
#define CHECK_EINVAL_NAMING(call, arg)                                                      \
    do                                                                                      \
    {                                                                                       \
        CHECK_FAILS_WITH((call), -1, EINVAL);                                               \
        CHECK(strstr(aeron_errmsg(), (arg)) != NULL);                                       \
    }                                                                                       \
    while (0)

static void null_arguments(void)
{
    test_env_t env;
    connect_invoker_client(&env, "dstnull");
    aeron_t *c = env.client;
    aeron_publication_t *p = add_ipc_publication(c, 1);
    aeron_exclusive_publication_t *x = add_ipc_exclusive_publication(c, 2);
    aeron_subscription_t *s = add_ipc_subscription(c, 1);
    aeron_async_destination_t *async = NULL;

    CHECK_EINVAL_NAMING(aeron_publication_async_add_destination(NULL, c, p, DESTINATION), "async");
    CHECK_EINVAL_NAMING(aeron_publication_async_add_destination(&async, NULL, p, DESTINATION), "client");
    CHECK_EINVAL_NAMING(aeron_publication_async_add_destination(&async, c, NULL, DESTINATION), "publication");
    CHECK_EINVAL_NAMING(aeron_publication_async_add_destination(&async, c, p, NULL), "uri");
    CHECK_EINVAL_NAMING(aeron_publication_async_remove_destination(NULL, c, p, DESTINATION), "async");
    CHECK_EINVAL_NAMING(aeron_publication_async_remove_destination(&async, NULL, p, DESTINATION), "client");
    CHECK_EINVAL_NAMING(aeron_publication_async_remove_destination(&async, c, NULL, DESTINATION), "publication");
    CHECK_EINVAL_NAMING(aeron_publication_async_remove_destination(&async, c, p, NULL), "uri");
    CHECK_EINVAL_NAMING(aeron_publication_async_remove_destination_by_id(NULL, c, p, 7), "async");
    CHECK_EINVAL_NAMING(aeron_publication_async_remove_destination_by_id(&async, NULL, p, 7), "client");
    CHECK_EINVAL_NAMING(aeron_publication_async_remove_destination_by_id(&async, c, NULL, 7), "publication");

    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_add_destination(NULL, c, x, DESTINATION), "async");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_add_destination(&async, NULL, x, DESTINATION), "client");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_add_destination(&async, c, NULL, DESTINATION),
        "publication");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_add_destination(&async, c, x, NULL), "uri");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_remove_destination(NULL, c, x, DESTINATION), "async");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_remove_destination(&async, NULL, x, DESTINATION),
        "client");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_remove_destination(&async, c, NULL, DESTINATION),
        "publication");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_remove_destination(&async, c, x, NULL), "uri");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_remove_destination_by_id(NULL, c, x, 7), "async");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_remove_destination_by_id(&async, NULL, x, 7), "client");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_remove_destination_by_id(&async, c, NULL, 7),
        "publication");

    CHECK_EINVAL_NAMING(aeron_subscription_async_add_destination(NULL, c, s, DESTINATION), "async");
    CHECK_EINVAL_NAMING(aeron_subscription_async_add_destination(&async, NULL, s, DESTINATION), "client");
    CHECK_EINVAL_NAMING(aeron_subscription_async_add_destination(&async, c, NULL, DESTINATION), "subscription");
    CHECK_EINVAL_NAMING(aeron_subscription_async_add_destination(&async, c, s, NULL), "uri");
    CHECK_EINVAL_NAMING(aeron_subscription_async_remove_destination(NULL, c, s, DESTINATION), "async");
    CHECK_EINVAL_NAMING(aeron_subscription_async_remove_destination(&async, NULL, s, DESTINATION), "client");
    CHECK_EINVAL_NAMING(aeron_subscription_async_remove_destination(&async, c, NULL, DESTINATION), "subscription");
    CHECK_EINVAL_NAMING(aeron_subscription_async_remove_destination(&async, c, s, NULL), "uri");

    CHECK_EINVAL_NAMING(aeron_publication_async_destination_poll(NULL), "async");
    CHECK_EINVAL_NAMING(aeron_exclusive_publication_async_destination_poll(NULL), "async");
    CHECK_EINVAL_NAMING(aeron_subscription_async_destination_poll(NULL), "async");
    CHECK_FAILS_WITH(aeron_async_destination_get_registration_id(NULL), -1, EINVAL);

    /* URIs the client refuses before sending anything: empty, not UTF-8. */
    CHECK_FAILS_WITH(aeron_publication_async_add_destination(&async, c, p, ""), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_async_add_destination(&async, c, s, "aeron:\xff"), -1, EINVAL);
    CHECK(async == NULL);

    CHECK_EQ_LL(aeron_publication_close(p, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_close(x, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(s, NULL, NULL), 0);
    teardown(&env);
}

/* Each command is pending (0, repeatedly) until the conductor runs, then the driver's
 * refusal (-1, its code negated) frees the handle. */
static void polls_are_pending_then_complete_once(void)
{
    test_env_t env;
    connect_invoker_client(&env, "dstpoll");
    aeron_t *c = env.client;
    aeron_publication_t *p = add_ipc_publication(c, 1);
    aeron_exclusive_publication_t *x = add_ipc_exclusive_publication(c, 2);
    aeron_subscription_t *s = add_ipc_subscription(c, 1);
    aeron_publication_constants_t constants;
    CHECK_EQ_LL(aeron_publication_constants(p, &constants), 0);

    aeron_async_destination_t *add = NULL;
    CHECK_EQ_LL(aeron_publication_async_add_destination(&add, c, p, DESTINATION), 0);
    CHECK(add != NULL);
    int64_t destination_id = aeron_async_destination_get_registration_id(add);
    CHECK(destination_id > 0);
    CHECK(destination_id != constants.registration_id); /* the command's, not the publication's */
    CHECK_EQ_LL(aeron_publication_async_destination_poll(add), 0);
    CHECK_EQ_LL(aeron_publication_async_destination_poll(add), 0);
    CHECK_EQ_LL(aeron_async_destination_get_registration_id(add), destination_id);
    int result = 0;
    POLL_UNTIL_DONE(c, result, aeron_publication_async_destination_poll(add));
    CHECK_EQ_LL(result, -1);
    CHECK(aeron_errcode() < 0); /* -AERON_ERROR_CODE_*: an IPC publication has no destinations */
    CHECK(strlen(aeron_errmsg()) > 0);

    aeron_async_destination_t *by_id = NULL;
    CHECK_EQ_LL(aeron_exclusive_publication_async_remove_destination_by_id(&by_id, c, x, destination_id), 0);
    CHECK(aeron_async_destination_get_registration_id(by_id) > destination_id);
    CHECK_EQ_LL(aeron_exclusive_publication_async_destination_poll(by_id), 0);
    POLL_UNTIL_DONE(c, result, aeron_exclusive_publication_async_destination_poll(by_id));
    CHECK_EQ_LL(result, -1);
    CHECK(aeron_errcode() < 0);

    /* The three polls are one function: a subscription's command polls as well here. */
    aeron_async_destination_t *rcv = NULL;
    CHECK_EQ_LL(aeron_subscription_async_add_destination(&rcv, c, s, DESTINATION), 0);
    CHECK_EQ_LL(aeron_subscription_async_destination_poll(rcv), 0);
    POLL_UNTIL_DONE(c, result, aeron_publication_async_destination_poll(rcv));
    CHECK_EQ_LL(result, -1);
    CHECK(aeron_errcode() < 0);

    CHECK_EQ_LL(aeron_subscription_async_remove_destination(&rcv, c, s, DESTINATION), 0);
    POLL_UNTIL_DONE(c, result, aeron_subscription_async_destination_poll(rcv));
    CHECK_EQ_LL(result, -1);
    CHECK(aeron_errcode() < 0);

    CHECK_EQ_LL(aeron_publication_close(p, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_close(x, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(s, NULL, NULL), 0);
    teardown(&env);
}

/* A poll given an async handle of another kind refuses it (EINVAL) and frees nothing: the
 * handle still completes through its own poll (ASan reports a double free otherwise). */
static void polls_refuse_handles_of_other_kinds(void)
{
    test_env_t env;
    connect_invoker_client(&env, "dstkind");
    aeron_t *c = env.client;
    aeron_publication_t *p = add_ipc_publication(c, 1);

    aeron_async_add_publication_t *add_publication = NULL;
    CHECK_EQ_LL(aeron_async_add_publication(&add_publication, c, IPC, 3), 0);
    CHECK_FAILS_WITH(aeron_publication_async_destination_poll(add_publication), -1, EINVAL);
    aeron_publication_t *other = NULL;
    int result = 0;
    POLL_UNTIL_DONE(c, result, aeron_async_add_publication_poll(&other, add_publication));
    CHECK_EQ_LL(result, 1);

    aeron_async_destination_t *add = NULL;
    CHECK_EQ_LL(aeron_publication_async_remove_destination(&add, c, p, DESTINATION), 0);
    aeron_publication_t *not_a_publication = NULL;
    CHECK_FAILS_WITH(aeron_async_add_publication_poll(&not_a_publication, add), -1, EINVAL);
    CHECK(not_a_publication == NULL);
    POLL_UNTIL_DONE(c, result, aeron_publication_async_destination_poll(add));
    CHECK_EQ_LL(result, -1);

    CHECK_EQ_LL(aeron_publication_close(other, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_publication_close(p, NULL, NULL), 0);
    teardown(&env);
}

/* A closed publication or subscription (still lingering) takes no destination command:
 * -1 with EPERM, nothing sent, `*async` NULL. */
static void closed_resources_are_refused(void)
{
    test_env_t env;
    connect_invoker_client(&env, "dstclosed");
    aeron_t *c = env.client;
    aeron_publication_t *p = add_ipc_publication(c, 1);
    aeron_exclusive_publication_t *x = add_ipc_exclusive_publication(c, 2);
    aeron_subscription_t *s = add_ipc_subscription(c, 1);
    aeron_subscription_t *kept = add_ipc_subscription(c, 4);

    CHECK_EQ_LL(aeron_publication_close(p, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_close(x, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(s, NULL, NULL), 0);
    aeron_async_destination_t *async = (aeron_async_destination_t *)&env; /* overwritten with NULL */
    CHECK_FAILS_WITH(aeron_publication_async_add_destination(&async, c, p, DESTINATION), -1, EPERM);
    CHECK(async == NULL);
    CHECK(strstr(aeron_errmsg(), "closed") != NULL);
    CHECK_FAILS_WITH(aeron_publication_async_remove_destination_by_id(&async, c, p, 5), -1, EPERM);
    CHECK_FAILS_WITH(aeron_exclusive_publication_async_remove_destination(&async, c, x, DESTINATION), -1, EPERM);
    CHECK_FAILS_WITH(aeron_subscription_async_add_destination(&async, c, s, DESTINATION), -1, EPERM);

    /* A command in flight when its subscription closes still completes once (here with the
     * driver's refusal). */
    CHECK_EQ_LL(aeron_subscription_async_add_destination(&async, c, kept, DESTINATION), 0);
    CHECK_EQ_LL(aeron_subscription_async_destination_poll(async), 0);
    CHECK_EQ_LL(aeron_subscription_close(kept, NULL, NULL), 0);
    int result = 0;
    POLL_UNTIL_DONE(c, result, aeron_subscription_async_destination_poll(async));
    CHECK_EQ_LL(result, -1);
    teardown(&env);
}

int main(void)
{
    RUN(null_arguments);
    RUN(polls_are_pending_then_complete_once);
    RUN(polls_refuse_handles_of_other_kinds);
    RUN(closed_resources_are_refused);
    return 0;
}
