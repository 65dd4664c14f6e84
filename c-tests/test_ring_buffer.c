/* aeronrs_ring_buffer_*: every function, both kinds, over a mapped file and caller memory;
 * error paths (NULL handle, bad capacity, oversize message, bad type id, double commit);
 * and a child process (fork) producing into a file-mapped many-to-one buffer that the
 * parent drains, checking order and content within a time bound. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aeronc.h"
#include "test_util.h"

#define CAPACITY 4096
#define MAX_SEEN 64

static char g_dir[] = "/tmp/aeronrs-rb-XXXXXX";

typedef struct
{
    int count;
    int32_t types[MAX_SEEN];
    size_t lengths[MAX_SEEN];
    uint8_t first_bytes[MAX_SEEN];
    int32_t abort_type;  /* controlled read: ABORT this type once */
    int32_t break_type;
    int32_t commit_type;
    int invalid_action;  /* controlled read: return this action for the first message */
    aeronrs_ring_buffer_t *rb;
    int64_t heads[MAX_SEEN];
} seen_t;

static void path_in_dir(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", g_dir, name);
}

static void on_message(void *clientd, int32_t msg_type_id, const uint8_t *buffer, size_t length)
{
    seen_t *seen = (seen_t *)clientd;
    CHECK(seen->count < MAX_SEEN);
    seen->types[seen->count] = msg_type_id;
    seen->lengths[seen->count] = length;
    seen->first_bytes[seen->count] = length > 0 ? buffer[0] : 0;
    seen->count++;
}

static aeronrs_ring_buffer_action_t on_controlled(
    void *clientd, int32_t msg_type_id, const uint8_t *buffer, size_t length)
{
    seen_t *seen = (seen_t *)clientd;
    if (seen->invalid_action != 0)
    {
        return seen->invalid_action;
    }
    if (seen->rb != NULL)
    {
        seen->heads[seen->count] = aeronrs_ring_buffer_consumer_position(seen->rb);
    }
    on_message(clientd, msg_type_id, buffer, length);
    if (msg_type_id == seen->abort_type)
    {
        seen->abort_type = 0;
        seen->count--;
        return AERONRS_RB_ABORT;
    }
    if (msg_type_id == seen->break_type)
    {
        return AERONRS_RB_BREAK;
    }
    if (msg_type_id == seen->commit_type)
    {
        return AERONRS_RB_COMMIT;
    }
    return AERONRS_RB_CONTINUE;
}

static void basic_round_trip(int kind, const char *name)
{
    char path[256];
    path_in_dir(path, sizeof(path), name);
    aeronrs_ring_buffer_t *rb = NULL;
    CHECK_EQ_LL(aeronrs_ring_buffer_create(&rb, kind, path, CAPACITY), 0);
    CHECK(rb != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_capacity(rb), CAPACITY);
    CHECK_EQ_LL(aeronrs_ring_buffer_max_msg_length(rb), CAPACITY / 8);

    const char hello[] = "hello";
    CHECK_EQ_LL(aeronrs_ring_buffer_write(rb, 7, hello, 5), 1);
    CHECK_EQ_LL(aeronrs_ring_buffer_write(rb, 8, NULL, 0), 1);
    CHECK_EQ_LL(aeronrs_ring_buffer_producer_position(rb), 16 + 8);
    CHECK_EQ_LL(aeronrs_ring_buffer_size(rb), 24);

    /* A second handle over the same file sees the same buffer. */
    aeronrs_ring_buffer_t *other = NULL;
    CHECK_EQ_LL(aeronrs_ring_buffer_open(&other, kind, path), 0);
    seen_t seen = { 0 };
    CHECK_EQ_LL(aeronrs_ring_buffer_read(other, on_message, &seen, 10), 2);
    CHECK_EQ_LL(seen.types[0], 7);
    CHECK_EQ_LL(seen.lengths[0], 5);
    CHECK_EQ_LL(seen.first_bytes[0], 'h');
    CHECK_EQ_LL(seen.types[1], 8);
    CHECK_EQ_LL(seen.lengths[1], 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_position(rb), 24);
    CHECK_EQ_LL(aeronrs_ring_buffer_size(rb), 0);

    CHECK_EQ_LL(aeronrs_ring_buffer_next_correlation_id(rb), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_next_correlation_id(other), 1);
    int64_t heartbeat = 1;
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_heartbeat_time(rb, &heartbeat), 0);
    CHECK_EQ_LL(heartbeat, 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_set_consumer_heartbeat_time(other, 1234567), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_heartbeat_time(rb, &heartbeat), 0);
    CHECK_EQ_LL(heartbeat, 1234567);
    CHECK_EQ_LL(aeronrs_ring_buffer_unblock(rb), 0);

    /* Fill it: full is not an error. */
    uint8_t block[504] = { 0 };
    int written = 0;
    int rc;
    while ((rc = aeronrs_ring_buffer_write(rb, 1, block, sizeof(block))) == 1)
    {
        written++;
    }
    CHECK_EQ_LL(rc, 0);
    /* 512-byte records from position 24: the eighth would need to wrap, and the start of the
     * buffer (head index 24) has no room for it. */
    CHECK_EQ_LL(written, 7);
    size_t index = 0;
    CHECK_EQ_LL(aeronrs_ring_buffer_try_claim(rb, 1, sizeof(block), &index, NULL), 0);

    CHECK_EQ_LL(aeronrs_ring_buffer_close(other), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_close(rb), 0);
}

static void round_trip_one_to_one(void)
{
    basic_round_trip(AERONRS_RING_BUFFER_ONE_TO_ONE, "o2o.rb");
}

static void round_trip_many_to_one(void)
{
    basic_round_trip(AERONRS_RING_BUFFER_MANY_TO_ONE, "m2o.rb");
}

static void claim_commit_abort(void)
{
    _Alignas(64) static uint8_t memory[1024 + AERONRS_RING_BUFFER_TRAILER_LENGTH];
    memset(memory, 0, sizeof(memory));
    aeronrs_ring_buffer_t *rb = NULL;
    CHECK_EQ_LL(aeronrs_ring_buffer_wrap(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, memory, sizeof(memory)), 0);

    size_t index = 0;
    uint8_t *payload = NULL;
    CHECK_EQ_LL(aeronrs_ring_buffer_try_claim(rb, 3, 4, &index, &payload), 1);
    CHECK_EQ_LL(index, 8);
    CHECK(payload == memory + 8);
    int32_t length_field;
    memcpy(&length_field, memory, sizeof(length_field));
    CHECK_EQ_LL(length_field, -12);
    memcpy(payload, "abcd", 4);
    CHECK_EQ_LL(aeronrs_ring_buffer_commit(rb, index), 0);
    memcpy(&length_field, memory, sizeof(length_field));
    CHECK_EQ_LL(length_field, 12);

    /* Double commit and commit after abort are errors. */
    CHECK_EQ_LL(aeronrs_ring_buffer_commit(rb, index), -1);
    CHECK_EQ_LL(aeron_errcode(), EPERM);
    CHECK(strstr(aeron_errmsg(), "already committed") != NULL);

    size_t aborted = 0;
    CHECK_EQ_LL(aeronrs_ring_buffer_try_claim(rb, 4, 10, &aborted, NULL), 1);
    CHECK_EQ_LL(aeronrs_ring_buffer_abort(rb, aborted), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_abort(rb, aborted), -1);
    CHECK_EQ_LL(aeron_errcode(), EPERM);
    CHECK_EQ_LL(aeronrs_ring_buffer_commit(rb, aborted), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_commit(rb, 3), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);

    seen_t seen = { 0 };
    CHECK_EQ_LL(aeronrs_ring_buffer_read(rb, on_message, &seen, 100), 1);
    CHECK_EQ_LL(seen.types[0], 3);
    CHECK_EQ_LL(seen.first_bytes[0], 'a');
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_position(rb), 16 + 24);

    /* A claim whose producer never commits: unblock turns it into padding. */
    CHECK_EQ_LL(aeronrs_ring_buffer_try_claim(rb, 5, 8, &index, NULL), 1);
    CHECK_EQ_LL(aeronrs_ring_buffer_write(rb, 6, "x", 1), 1);
    CHECK_EQ_LL(aeronrs_ring_buffer_read(rb, on_message, &seen, 100), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_unblock(rb), 1);
    CHECK_EQ_LL(aeronrs_ring_buffer_read(rb, on_message, &seen, 100), 1);
    CHECK_EQ_LL(seen.types[1], 6);
    CHECK_EQ_LL(aeronrs_ring_buffer_close(rb), 0);
}

static void controlled_read_actions(void)
{
    _Alignas(64) static uint8_t memory[1024 + AERONRS_RING_BUFFER_TRAILER_LENGTH];
    memset(memory, 0, sizeof(memory));
    aeronrs_ring_buffer_t *rb = NULL;
    CHECK_EQ_LL(aeronrs_ring_buffer_wrap(&rb, AERONRS_RING_BUFFER_ONE_TO_ONE, memory, sizeof(memory)), 0);
    for (int32_t t = 1; t <= 6; t++)
    {
        uint8_t body[8] = { (uint8_t)t };
        CHECK_EQ_LL(aeronrs_ring_buffer_write(rb, t, body, sizeof(body)), 1);
    }

    seen_t seen = { 0 };
    seen.abort_type = 2;
    CHECK_EQ_LL(aeronrs_ring_buffer_controlled_read(rb, on_controlled, &seen, 100), 1);
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_position(rb), 16);

    seen_t second = { 0 };
    second.commit_type = 2;
    second.break_type = 3;
    second.rb = rb;
    CHECK_EQ_LL(aeronrs_ring_buffer_controlled_read(rb, on_controlled, &second, 100), 2);
    CHECK_EQ_LL(second.types[0], 2);
    CHECK_EQ_LL(second.heads[0], 16);
    CHECK_EQ_LL(second.heads[1], 32);
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_position(rb), 48);

    seen_t bad = { 0 };
    bad.invalid_action = 7;
    CHECK_EQ_LL(aeronrs_ring_buffer_controlled_read(rb, on_controlled, &bad, 100), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(strstr(aeron_errmsg(), "invalid action 7") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_position(rb), 48);

    seen_t rest = { 0 };
    CHECK_EQ_LL(aeronrs_ring_buffer_controlled_read(rb, on_controlled, &rest, 2), 2);
    CHECK_EQ_LL(aeronrs_ring_buffer_read(rb, on_message, &rest, 100), 1);
    CHECK_EQ_LL(rest.types[2], 6);
    CHECK_EQ_LL(aeronrs_ring_buffer_close(rb), 0);
}

static void error_paths(void)
{
    char path[256];
    path_in_dir(path, sizeof(path), "errors.rb");
    aeronrs_ring_buffer_t *rb = NULL;
    size_t index = 0;
    int64_t value = 0;
    seen_t seen = { 0 };

    /* NULL handle everywhere. */
    CHECK_EQ_LL(aeronrs_ring_buffer_write(NULL, 1, "x", 1), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(strstr(aeron_errmsg(), "rb must not be NULL") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_try_claim(NULL, 1, 1, &index, NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_commit(NULL, 8), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_abort(NULL, 8), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_read(NULL, on_message, &seen, 1), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_controlled_read(NULL, on_controlled, &seen, 1), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_producer_position(NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_position(NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_size(NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_capacity(NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_max_msg_length(NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_next_correlation_id(NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_heartbeat_time(NULL, &value), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_set_consumer_heartbeat_time(NULL, 1), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_unblock(NULL), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_EQ_LL(aeronrs_ring_buffer_close(NULL), 0);

    /* Bad arguments to the constructors. */
    CHECK_EQ_LL(aeronrs_ring_buffer_create(NULL, AERONRS_RING_BUFFER_MANY_TO_ONE, path, CAPACITY), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_create(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, NULL, CAPACITY), -1);
    CHECK(strstr(aeron_errmsg(), "path must not be NULL") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_create(&rb, 3, path, CAPACITY), -1);
    CHECK(strstr(aeron_errmsg(), "unknown ring buffer kind 3") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_create(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, path, 0), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(strstr(aeron_errmsg(), "capacity is 0") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_create(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, path, 1000), -1);
    CHECK(strstr(aeron_errmsg(), "not a power of two") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_create(&rb, AERONRS_RING_BUFFER_ONE_TO_ONE, path, 8), -1);
    CHECK(strstr(aeron_errmsg(), "below the minimum") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_open(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, "/nonexistent/aeronrs.rb"), -1);
    CHECK_EQ_LL(aeron_errcode(), ENOENT);
    CHECK_EQ_LL(aeronrs_ring_buffer_open(&rb, 0, path), -1);
    _Alignas(64) static uint8_t memory[64 + AERONRS_RING_BUFFER_TRAILER_LENGTH + 8];
    CHECK_EQ_LL(aeronrs_ring_buffer_wrap(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, NULL, sizeof(memory)), -1);
    CHECK(strstr(aeron_errmsg(), "memory must not be NULL") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_wrap(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, memory, 700), -1);
    CHECK(strstr(aeron_errmsg(), "smaller than its 768-byte trailer") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_wrap(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, memory + 4, sizeof(memory) - 8), -1);
    CHECK(strstr(aeron_errmsg(), "not aligned") != NULL);
    CHECK(rb == NULL);

    /* Bad messages, NULL out-params and handlers on a good buffer. */
    CHECK_EQ_LL(aeronrs_ring_buffer_wrap(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, memory, 64 + AERONRS_RING_BUFFER_TRAILER_LENGTH), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_max_msg_length(rb), 8);
    uint8_t big[9] = { 0 };
    CHECK_EQ_LL(aeronrs_ring_buffer_write(rb, 1, big, sizeof(big)), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(strstr(aeron_errmsg(), "exceeds max_msg_length 8") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_try_claim(rb, 1, 9, &index, NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_write(rb, 0, big, 1), -1);
    CHECK(strstr(aeron_errmsg(), "type id must be >= 1") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_write(rb, -1, big, 1), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_try_claim(rb, 0, 1, &index, NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_write(rb, 1, NULL, 1), -1);
    CHECK(strstr(aeron_errmsg(), "msg must not be NULL") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_try_claim(rb, 1, 1, NULL, NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_read(rb, NULL, &seen, 1), -1);
    CHECK(strstr(aeron_errmsg(), "handler must not be NULL") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_controlled_read(rb, NULL, &seen, 1), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_consumer_heartbeat_time(rb, NULL), -1);
    CHECK_EQ_LL(aeronrs_ring_buffer_commit(rb, 8), -1);
    CHECK(strstr(aeron_errmsg(), "never claimed") != NULL);
    CHECK_EQ_LL(aeronrs_ring_buffer_producer_position(rb), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_close(rb), 0);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define CHILD_MESSAGES 200000
#define TIME_LIMIT_SECONDS 60.0

typedef struct
{
    uint64_t next;
    int failed;
} order_t;

static void check_order(void *clientd, int32_t msg_type_id, const uint8_t *buffer, size_t length)
{
    order_t *order = (order_t *)clientd;
    uint64_t seq;
    size_t expected_length = 8 + (size_t)(order->next % 5) * 4;
    if (msg_type_id != 42 || length != expected_length)
    {
        order->failed = 1;
        return;
    }
    memcpy(&seq, buffer, sizeof(seq));
    for (size_t i = 8; i < length; i++)
    {
        if (buffer[i] != (uint8_t)seq)
        {
            order->failed = 1;
        }
    }
    if (seq != order->next)
    {
        order->failed = 1;
    }
    order->next++;
}

static void child_produce(const char *path)
{
    aeronrs_ring_buffer_t *rb = NULL;
    if (aeronrs_ring_buffer_open(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, path) != 0)
    {
        _exit(2);
    }
    double start = now_seconds();
    uint8_t body[32];
    for (uint64_t seq = 0; seq < CHILD_MESSAGES; seq++)
    {
        size_t length = 8 + (size_t)(seq % 5) * 4;
        memcpy(body, &seq, sizeof(seq));
        memset(body + 8, (uint8_t)seq, length - 8);
        int rc;
        while ((rc = aeronrs_ring_buffer_write(rb, 42, body, length)) == 0)
        {
            if (now_seconds() - start > TIME_LIMIT_SECONDS)
            {
                _exit(3);
            }
            sched_yield();
        }
        if (rc != 1)
        {
            _exit(4);
        }
    }
    aeronrs_ring_buffer_close(rb);
    _exit(0);
}

static void two_processes(void)
{
    char path[256];
    path_in_dir(path, sizeof(path), "two-process.rb");
    aeronrs_ring_buffer_t *rb = NULL;
    CHECK_EQ_LL(aeronrs_ring_buffer_create(&rb, AERONRS_RING_BUFFER_MANY_TO_ONE, path, 16384), 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
    {
        child_produce(path);
    }

    order_t order = { 0, 0 };
    double start = now_seconds();
    while (order.next < CHILD_MESSAGES && !order.failed)
    {
        if (now_seconds() - start > TIME_LIMIT_SECONDS)
        {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            fprintf(stderr, "timed out after %llu messages\n", (unsigned long long)order.next);
            exit(1);
        }
        int n = aeronrs_ring_buffer_read(rb, check_order, &order, 256);
        CHECK(n >= 0);
        if (n == 0)
        {
            sched_yield();
        }
    }
    CHECK(!order.failed);
    CHECK_EQ_LL(order.next, CHILD_MESSAGES);

    int status = 0;
    pid_t reaped = 0;
    while ((reaped = waitpid(pid, &status, WNOHANG)) == 0)
    {
        if (now_seconds() - start > TIME_LIMIT_SECONDS)
        {
            kill(pid, SIGKILL);
        }
        usleep(1000);
    }
    CHECK_EQ_LL(reaped, pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ_LL(WEXITSTATUS(status), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_size(rb), 0);
    CHECK_EQ_LL(aeronrs_ring_buffer_close(rb), 0);
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    RUN(round_trip_one_to_one);
    RUN(round_trip_many_to_one);
    RUN(claim_commit_abort);
    RUN(controlled_read_actions);
    RUN(error_paths);
    RUN(two_processes);

    const char *names[] = { "o2o.rb", "m2o.rb", "errors.rb", "two-process.rb" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    {
        char path[256];
        path_in_dir(path, sizeof(path), names[i]);
        unlink(path);
    }
    rmdir(g_dir);
    return 0;
}
