/* The utility functions libaeron exports beyond aeronc.h that Aeron's samples and tools
 * call: allocation, clocks and sleeps, semantic versions, parsing, formatting, idle
 * strategies (built-in and custom by symbol name), the agent runner (thread and manual),
 * mapped files, directory deletion and error log reading; each with its error paths. */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aeronc.h"
#include "test_util.h"

/* A call that must fail with `failure` and aeron_errcode() == `code`. */
#define CHECK_FAILS(call, failure, code)                                                    \
    do                                                                                      \
    {                                                                                       \
        CHECK_EQ_LL((call), (failure));                                                     \
        CHECK_EQ_LL(aeron_errcode(), (code));                                               \
    }                                                                                       \
    while (0)

/* Upstream's layout of aeron_agent_runner_t on LP64. */
_Static_assert(offsetof(aeron_agent_runner_t, role_name) == 0, "role_name");
_Static_assert(offsetof(aeron_agent_runner_t, on_start) == 32, "on_start");
_Static_assert(offsetof(aeron_agent_runner_t, idle_strategy) == 56, "idle_strategy");
_Static_assert(offsetof(aeron_agent_runner_t, thread) == 64, "thread");
_Static_assert(offsetof(aeron_agent_runner_t, running) == 72, "running");
_Static_assert(offsetof(aeron_agent_runner_t, state) == 73, "state");
_Static_assert(sizeof(aeron_agent_runner_t) == 80, "runner size");
_Static_assert(sizeof(aeron_idle_strategy_t) == 2 * sizeof(void *), "idle strategy size");
_Static_assert(sizeof(aeron_mapped_file_t) == 16, "mapped file size");
_Static_assert(offsetof(aeron_mapped_file_t, length) == 8, "mapped file length");

static char g_dir[] = "/tmp/aeronrs-util-XXXXXX";

static void alloc_and_free(void)
{
    void *p = NULL;
    CHECK_EQ_LL(aeron_alloc(&p, 64), 0);
    CHECK(p != NULL);
    for (int i = 0; i < 64; i++)
    {
        CHECK_EQ_LL(((uint8_t *)p)[i], 0);
    }
    aeron_free(p);
    aeron_free(NULL);
    CHECK_FAILS(aeron_alloc(NULL, 8), -1, EINVAL);
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    CHECK_EQ_LL(clock_gettime(CLOCK_MONOTONIC, &ts), 0);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void clocks_and_sleeps(void)
{
    /* Upstream's nano clock is CLOCK_MONOTONIC itself (as Java's System.nanoTime), so
     * stamps compare across processes: it must fall between two direct readings. */
    int64_t before = monotonic_ns();
    int64_t reading = aeron_nano_clock();
    int64_t after = monotonic_ns();
    CHECK(before <= reading && reading <= after);
    int64_t t0 = aeron_nano_clock();
    aeron_nano_sleep(1000 * 1000);
    int64_t t1 = aeron_nano_clock();
    CHECK(t1 - t0 >= 1000 * 1000);
    aeron_micro_sleep(1000);
    CHECK(aeron_nano_clock() - t1 >= 1000 * 1000);
    int64_t epoch = aeron_epoch_clock();
    CHECK(epoch > INT64_C(1577836800000));
    CHECK(llabs((long long)(epoch - (int64_t)time(NULL) * 1000)) < 5000);
}

static void semantic_versions(void)
{
    CHECK_EQ_LL(aeron_semantic_version_compose(0, 2, 0), 512);
    int32_t v = aeron_semantic_version_compose(1, 48, 7);
    CHECK_EQ_LL(v, (1 << 16) | (48 << 8) | 7);
    CHECK_EQ_LL(aeron_semantic_version_major(v), 1);
    CHECK_EQ_LL(aeron_semantic_version_minor(v), 48);
    CHECK_EQ_LL(aeron_semantic_version_patch(v), 7);
    CHECK_EQ_LL(aeron_semantic_version_compose(255, 255, 255), 0xFFFFFF);
}

static void parsing(void)
{
    uint64_t r = 0;
    CHECK_EQ_LL(aeron_parse_duration_ns("100", &r), 0);
    CHECK_EQ_LL(r, 100);
    CHECK_EQ_LL(aeron_parse_duration_ns("100ns", &r), 0);
    CHECK_EQ_LL(r, 100);
    CHECK_EQ_LL(aeron_parse_duration_ns("250us", &r), 0);
    CHECK_EQ_LL(r, 250000);
    CHECK_EQ_LL(aeron_parse_duration_ns("5ms", &r), 0);
    CHECK_EQ_LL(r, 5000000);
    CHECK_EQ_LL(aeron_parse_duration_ns("10s", &r), 0);
    CHECK_EQ_LL(r, INT64_C(10000000000));
    r = 42;
    CHECK_FAILS(aeron_parse_duration_ns("fast", &r), -1, EINVAL);
    CHECK_EQ_LL(r, 42);
    CHECK_FAILS(aeron_parse_duration_ns("-5ms", &r), -1, EINVAL);
    CHECK_FAILS(aeron_parse_duration_ns(NULL, &r), -1, EINVAL);
    CHECK_FAILS(aeron_parse_duration_ns("1s", NULL), -1, EINVAL);

    CHECK_EQ_LL(aeron_parse_size64("65536", &r), 0);
    CHECK_EQ_LL(r, 65536);
    CHECK_EQ_LL(aeron_parse_size64("64k", &r), 0);
    CHECK_EQ_LL(r, 65536);
    CHECK_EQ_LL(aeron_parse_size64("16M", &r), 0);
    CHECK_EQ_LL(r, 16 * 1024 * 1024);
    CHECK_EQ_LL(aeron_parse_size64("2g", &r), 0);
    CHECK_EQ_LL(r, INT64_C(2147483648));
    CHECK_FAILS(aeron_parse_size64("12q", &r), -1, EINVAL);
    CHECK_FAILS(aeron_parse_size64("99999999999999999999g", &r), -1, EINVAL);
    CHECK_FAILS(aeron_parse_size64(NULL, &r), -1, EINVAL);
    CHECK_FAILS(aeron_parse_size64("1k", NULL), -1, EINVAL);
}

static void formatting(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    char date[AERON_FORMAT_DATE_MAX_LENGTH];
    aeron_format_date(date, sizeof(date), INT64_C(1795962602375));
    CHECK(strcmp(date, "2026-11-29 14:30:02.375+0000") == 0);
    char short_date[11];
    aeron_format_date(short_date, sizeof(short_date), INT64_C(1795962602375));
    CHECK(strcmp(short_date, "2026-11-29") == 0);
    aeron_format_date(NULL, 10, 0);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);

    char number[AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN];
    CHECK(aeron_format_number_to_locale(1234567, number, sizeof(number)) == number);
    CHECK(strcmp(number, "1,234,567") == 0);
    CHECK(strcmp(aeron_format_number_to_locale(-999, number, sizeof(number)), "-999") == 0);
    CHECK(strcmp(aeron_format_number_to_locale(-1000, number, sizeof(number)), "-1,000") == 0);
    CHECK(strcmp(aeron_format_number_to_locale(0, number, sizeof(number)), "0") == 0);
    char tiny[4];
    CHECK(strcmp(aeron_format_number_to_locale(1234567, tiny, sizeof(tiny)), "1,2") == 0);
    CHECK_FAILS(aeron_format_number_to_locale(1, NULL, 8) == NULL, 1, EINVAL);
    CHECK_FAILS(aeron_format_number_to_locale(1, number, 0) == NULL, 1, EINVAL);

    char path[256];
    int length = aeron_default_path(path, sizeof(path));
    CHECK(length > 0);
    CHECK_EQ_LL(length, strlen(path));
    CHECK(strncmp(path, "/dev/shm/aeron-", 15) == 0);
    char cut[8];
    CHECK_EQ_LL(aeron_default_path(cut, sizeof(cut)), length);
    CHECK(strncmp(cut, path, 7) == 0 && cut[7] == '\0');
    CHECK_EQ_LL(aeron_default_path(NULL, 0), length);
    CHECK_FAILS(aeron_default_path(NULL, 8), -1, EINVAL);
}

/* A custom idle strategy found by symbol name (the executable exports its symbols). */
static int g_custom_idles = 0;
static void custom_idle(void *state, int work_count)
{
    (void)work_count;
    (*(int *)state)++;
}
static int custom_init(void **state, const char *env_var, const char *init_args)
{
    (void)env_var;
    *state = &g_custom_idles;
    return NULL != init_args && 0 == strcmp(init_args, "fail") ? -1 : 0;
}
aeron_idle_strategy_t aeronrs_test_custom_idle_strategy = { custom_idle, custom_init };

static void idle_strategies(void)
{
    void *state = (void *)1;
    aeron_idle_strategy_func_t idle = aeron_idle_strategy_load("sleep-ns", &state, "ENV", "1us");
    CHECK(idle == aeron_idle_strategy_sleeping_idle);
    CHECK_EQ_LL(*(uint64_t *)state, 1000);
    idle(state, 0);
    idle(state, 1);
    aeron_free(state);

    CHECK(aeron_idle_strategy_load("yield", &state, NULL, NULL) == aeron_idle_strategy_yielding_idle);
    CHECK(state == NULL);
    CHECK(aeron_idle_strategy_load("spin", &state, NULL, NULL) == aeron_idle_strategy_busy_spinning_idle);
    CHECK(aeron_idle_strategy_load("noop", &state, NULL, NULL) == aeron_idle_strategy_noop_idle);
    CHECK(aeron_idle_strategy_load("aeron_idle_strategy_sleeping", &state, NULL, NULL) ==
        aeron_idle_strategy_sleeping_idle);
    aeron_free(state);
    aeron_idle_strategy_yielding_idle(NULL, 0);
    aeron_idle_strategy_busy_spinning_idle(NULL, 0);
    aeron_idle_strategy_noop_idle(NULL, 0);

    idle = aeron_idle_strategy_load("backoff", &state, NULL, "1-2-1us-2us");
    CHECK(idle == aeron_idle_strategy_backoff_idle);
    for (int i = 0; i < 10; i++)
    {
        idle(state, 0);
    }
    idle(state, 1);
    aeron_free(state);
    idle = aeron_idle_strategy_load("backoff", &state, NULL, NULL);
    CHECK(idle == aeron_idle_strategy_backoff_idle);
    aeron_free(state);

    CHECK_EQ_LL(aeron_idle_strategy_backoff_state_init(&state, 1, 1, 1000, 4000), 0);
    aeron_idle_strategy_backoff_idle(state, 0);
    aeron_idle_strategy_backoff_idle(state, 0);
    aeron_idle_strategy_backoff_idle(state, 0);
    aeron_idle_strategy_backoff_idle(state, 0);
    aeron_free(state);
    CHECK_FAILS(aeron_idle_strategy_backoff_state_init(&state, 1, 1, 0, 10), -1, EINVAL);
    CHECK_FAILS(aeron_idle_strategy_backoff_state_init(&state, 1, 1, 100, 10), -1, EINVAL);
    CHECK_FAILS(aeron_idle_strategy_backoff_state_init(NULL, 1, 1, 1, 1), -1, EINVAL);

    state = (void *)1;
    CHECK_EQ_LL(aeron_idle_strategy_init_null(&state, "ENV", "x"), 0);
    CHECK(state == NULL);
    CHECK_FAILS(aeron_idle_strategy_init_null(NULL, NULL, NULL), -1, EINVAL);

    idle = aeron_idle_strategy_load("aeronrs_test_custom_idle_strategy", &state, "ENV", NULL);
    CHECK(idle == custom_idle);
    CHECK(state == &g_custom_idles);
    idle(state, 0);
    CHECK_EQ_LL(g_custom_idles, 1);
    CHECK(aeron_idle_strategy_load("aeronrs_test_custom_idle_strategy", &state, "ENV", "fail") == NULL);

    CHECK(aeron_idle_strategy_load("bogus", &state, "ENV", NULL) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(strstr(aeron_errmsg(), "bogus") != NULL);
    CHECK(aeron_idle_strategy_load("backoff", &state, "ENV", "1-2") == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(aeron_idle_strategy_load("sleeping", &state, "ENV", "soon") == NULL);
    CHECK(aeron_idle_strategy_load(NULL, &state, NULL, NULL) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(aeron_idle_strategy_load("yield", NULL, NULL, NULL) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    aeron_idle_strategy_sleeping_idle(NULL, 0);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    aeron_idle_strategy_backoff_idle(NULL, 0);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
}

typedef struct
{
    volatile int64_t work;
    int started;
    int closed;
    char role[32];
} agent_state_t;

static int agent_do_work(void *state)
{
    agent_state_t *agent = (agent_state_t *)state;
    __atomic_add_fetch(&agent->work, 1, __ATOMIC_RELEASE);
    return 1;
}

static void agent_on_close(void *state)
{
    ((agent_state_t *)state)->closed++;
}

void aeronrs_test_on_start(void *state, const char *role_name)
{
    agent_state_t *agent = (agent_state_t *)state;
    agent->started++;
    snprintf(agent->role, sizeof(agent->role), "%s", role_name);
}

static void agent_runner(void)
{
    agent_state_t agent;
    memset(&agent, 0, sizeof(agent));
    aeron_agent_runner_t runner;
    memset(&runner, 0, sizeof(runner));
    void *idle_state = NULL;
    aeron_idle_strategy_func_t idle = aeron_idle_strategy_load("yield", &idle_state, NULL, NULL);

    CHECK_EQ_LL(aeron_agent_init(
        &runner, "test-agent", &agent, aeronrs_test_on_start, &agent, agent_do_work, agent_on_close, idle,
        idle_state), 0);
    CHECK_EQ_LL(runner.state, AERON_AGENT_STATE_INITED);
    CHECK(strcmp(runner.role_name, "test-agent") == 0);
    CHECK(aeron_agent_is_running(&runner));
    CHECK_EQ_LL(aeron_agent_start(&runner), 0);
    CHECK_EQ_LL(runner.state, AERON_AGENT_STATE_STARTED);
    CHECK_FAILS(aeron_agent_start(&runner), -1, EPERM);
    for (int i = 0; i < 10000 && __atomic_load_n(&agent.work, __ATOMIC_ACQUIRE) < 1000; i++)
    {
        aeron_micro_sleep(1000);
    }
    CHECK(__atomic_load_n(&agent.work, __ATOMIC_ACQUIRE) >= 1000);
    CHECK_EQ_LL(aeron_agent_stop(&runner), 0);
    CHECK_EQ_LL(runner.state, AERON_AGENT_STATE_STOPPED);
    CHECK(!aeron_agent_is_running(&runner));
    int64_t after_stop = agent.work;
    aeron_micro_sleep(2000);
    CHECK_EQ_LL(agent.work, after_stop);
    CHECK_EQ_LL(agent.started, 1);
    CHECK(strcmp(agent.role, "test-agent") == 0);
    CHECK_EQ_LL(aeron_agent_close(&runner), 0);
    CHECK_EQ_LL(agent.closed, 1);
    CHECK(runner.role_name == NULL);

    /* Driven by the caller instead of a thread. */
    memset(&agent, 0, sizeof(agent));
    CHECK_EQ_LL(aeron_agent_init(&runner, "manual", &agent, NULL, NULL, agent_do_work, NULL, idle, idle_state), 0);
    CHECK_EQ_LL(aeron_agent_do_work(&runner), 1);
    aeron_agent_idle(&runner, 0);
    CHECK_EQ_LL(agent.work, 1);
    CHECK_EQ_LL(aeron_agent_stop(&runner), 0);
    CHECK_EQ_LL(aeron_agent_close(&runner), 0);
    CHECK_EQ_LL(agent.closed, 0);

    CHECK_FAILS(aeron_agent_init(NULL, "x", &agent, NULL, NULL, agent_do_work, NULL, idle, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_agent_init(&runner, "x", &agent, NULL, NULL, NULL, NULL, idle, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_agent_init(&runner, "x", &agent, NULL, NULL, agent_do_work, NULL, NULL, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_agent_init(&runner, NULL, &agent, NULL, NULL, agent_do_work, NULL, idle, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_agent_start(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_agent_stop(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_agent_close(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_agent_do_work(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_agent_is_running(NULL), false, EINVAL);
    aeron_agent_idle(NULL, 0);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);

    CHECK(aeron_agent_on_start_load("aeronrs_test_on_start") == aeronrs_test_on_start);
    CHECK(aeron_agent_on_start_load("aeronrs_no_such_function") == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(aeron_agent_on_start_load(NULL) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
}

static void mapped_files_and_directories(void)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/data.bin", g_dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    for (int i = 0; i < 5000; i++)
    {
        fputc(i & 0xFF, f);
    }
    fclose(f);

    aeron_mapped_file_t mapped = { NULL, 0 };
    CHECK_EQ_LL(aeron_map_existing_file(&mapped, path), 0);
    CHECK_EQ_LL(mapped.length, 5000);
    CHECK_EQ_LL(((uint8_t *)mapped.addr)[4999], 4999 & 0xFF);
    ((uint8_t *)mapped.addr)[0] = 0xAB; /* shared, writable */
    aeron_mapped_file_t wrong = { mapped.addr, 4096 };
    CHECK_FAILS(aeron_unmap(&wrong), -1, EINVAL);
    CHECK_EQ_LL(aeron_unmap(&mapped), 0);
    CHECK_FAILS(aeron_unmap(&mapped), -1, EINVAL);
    aeron_mapped_file_t empty = { NULL, 0 };
    CHECK_EQ_LL(aeron_unmap(&empty), 0);
    f = fopen(path, "rb");
    CHECK(f != NULL && fgetc(f) == 0xAB);
    fclose(f);

    char missing[512];
    snprintf(missing, sizeof(missing), "%s/missing.bin", g_dir);
    CHECK_FAILS(aeron_map_existing_file(&mapped, missing), -1, ENOENT);
    CHECK_FAILS(aeron_map_existing_file(NULL, path), -1, EINVAL);
    CHECK_FAILS(aeron_map_existing_file(&mapped, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_unmap(NULL), -1, EINVAL);

    char tree[512], leaf[600];
    snprintf(tree, sizeof(tree), "%s/tree", g_dir);
    snprintf(leaf, sizeof(leaf), "%s/sub", tree);
    CHECK_EQ_LL(mkdir(tree, 0700), 0);
    CHECK_EQ_LL(mkdir(leaf, 0700), 0);
    CHECK_EQ_LL(aeron_delete_directory(tree), 0);
    struct stat st;
    CHECK(stat(tree, &st) != 0);
    CHECK_FAILS(aeron_delete_directory(tree), -1, ENOENT);
    CHECK_FAILS(aeron_delete_directory(NULL), -1, EINVAL);
}

typedef struct
{
    int count;
    int32_t observations[4];
    int64_t first[4];
    int64_t last[4];
    char text[4][32];
} errors_seen_t;

static void on_error(
    int32_t observation_count, int64_t first, int64_t last, const char *error, size_t error_length, void *clientd)
{
    errors_seen_t *seen = (errors_seen_t *)clientd;
    CHECK(seen->count < 4);
    seen->observations[seen->count] = observation_count;
    seen->first[seen->count] = first;
    seen->last[seen->count] = last;
    memcpy(seen->text[seen->count], error, error_length < 31 ? error_length : 31);
    seen->count++;
}

/* Writes an error log record as Aeron lays it out: length, count, last, first, text. */
static size_t put_error(uint8_t *log, size_t offset, int32_t count, int64_t first, int64_t last, const char *text)
{
    int32_t length = (int32_t)(24 + strlen(text));
    memcpy(log + offset + 4, &count, 4);
    memcpy(log + offset + 8, &last, 8);
    memcpy(log + offset + 16, &first, 8);
    memcpy(log + offset + 24, text, strlen(text));
    memcpy(log + offset, &length, 4);
    return offset + (((size_t)length + 7) & ~(size_t)7);
}

static void error_log_reading(void)
{
    static int64_t storage[128];
    uint8_t *log = (uint8_t *)storage;
    memset(storage, 0, sizeof(storage));
    errors_seen_t seen;
    memset(&seen, 0, sizeof(seen));
    CHECK_EQ_LL(aeron_error_log_read(log, sizeof(storage), on_error, &seen, 0), 0);

    size_t next = put_error(log, 0, 2, 1000, 3000, "first error");
    put_error(log, next, 1, 2000, 2000, "second");
    CHECK_EQ_LL(aeron_error_log_read(log, sizeof(storage), on_error, &seen, 0), 2);
    CHECK_EQ_LL(seen.observations[0], 2);
    CHECK_EQ_LL(seen.first[0], 1000);
    CHECK_EQ_LL(seen.last[0], 3000);
    CHECK(strcmp(seen.text[0], "first error") == 0);
    CHECK_EQ_LL(seen.observations[1], 1);
    CHECK(strcmp(seen.text[1], "second") == 0);
    memset(&seen, 0, sizeof(seen));
    CHECK_EQ_LL(aeron_error_log_read(log, sizeof(storage), on_error, &seen, 2500), 1);
    CHECK(strcmp(seen.text[0], "first error") == 0);

    CHECK_FAILS(aeron_error_log_read(NULL, 64, on_error, &seen, 0), 0, EINVAL);
    CHECK_FAILS(aeron_error_log_read(log, sizeof(storage), NULL, &seen, 0), 0, EINVAL);
    int32_t corrupt = 5;
    memcpy(log, &corrupt, 4);
    CHECK_FAILS(aeron_error_log_read(log, sizeof(storage), on_error, &seen, 0), 0, EINVAL);
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    RUN(alloc_and_free);
    RUN(clocks_and_sleeps);
    RUN(semantic_versions);
    RUN(parsing);
    RUN(formatting);
    RUN(idle_strategies);
    RUN(agent_runner);
    RUN(mapped_files_and_directories);
    RUN(error_log_reading);
    CHECK_EQ_LL(aeron_delete_directory(g_dir), 0);
    return 0;
}
