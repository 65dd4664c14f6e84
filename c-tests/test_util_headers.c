/* Aeron's installed utility headers, each included by its upstream path with only
 * include/ on the include path: every macro and inline function is used, every struct's
 * tag and layout checked against Aeron's (LP64), and the functions the headers declare
 * called on their main and error paths. Compiled as C11 and, through
 * test_util_headers.cpp, as C++17. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aeronc.h"
#include "aeronmd.h"
#include "aeron_agent.h"
#include "aeron_alloc.h"
#include "aeron_common.h"
#include "aeron_cnc_file_descriptor.h"
#include "concurrent/aeron_atomic.h"
#include "concurrent/aeron_distinct_error_log.h"
#include "concurrent/aeron_thread.h"
#include "util/aeron_bitutil.h"
#include "util/aeron_clock.h"
#include "util/aeron_error.h"
#include "util/aeron_fileutil.h"
#include "util/aeron_parse_util.h"
#include "util/aeron_platform.h"
#include "util/aeron_strutil.h"
#include "test_util.h"

#if defined(__cplusplus)
#define STATIC_ASSERT(cond, what) static_assert(cond, what)
#define ALIGN_OF(type) alignof(type)
#else
#define STATIC_ASSERT(cond, what) _Static_assert(cond, what)
#define ALIGN_OF(type) _Alignof(type)
#endif

/* Aeron's layouts on LP64 (the same asserts are in the Rust structs). */
STATIC_ASSERT(offsetof(aeron_agent_runner_t, role_name) == 0, "runner role_name");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, agent_state) == 8, "runner agent_state");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, idle_strategy_state) == 16, "runner idle_strategy_state");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, on_start_state) == 24, "runner on_start_state");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, on_start) == 32, "runner on_start");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, do_work) == 40, "runner do_work");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, on_close) == 48, "runner on_close");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, idle_strategy) == 56, "runner idle_strategy");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, thread) == 64, "runner thread");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, running) == 72, "runner running");
STATIC_ASSERT(offsetof(aeron_agent_runner_t, state) == 73, "runner state");
STATIC_ASSERT(sizeof(aeron_agent_runner_t) == 80, "runner size");
STATIC_ASSERT(offsetof(aeron_idle_strategy_t, idle) == 0, "idle strategy idle");
STATIC_ASSERT(offsetof(aeron_idle_strategy_t, init) == 8, "idle strategy init");
STATIC_ASSERT(sizeof(aeron_idle_strategy_t) == 16, "idle strategy size");
STATIC_ASSERT(sizeof(aeron_mapped_file_t) == 16 && offsetof(aeron_mapped_file_t, length) == 8, "mapped file");
STATIC_ASSERT(sizeof(aeron_mapped_buffer_t) == 16 && offsetof(aeron_mapped_buffer_t, length) == 8, "mapped buffer");
STATIC_ASSERT(offsetof(aeron_mapped_raw_log_t, log_meta_data) == 48, "raw log metadata");
STATIC_ASSERT(offsetof(aeron_mapped_raw_log_t, mapped_file) == 64, "raw log mapped file");
STATIC_ASSERT(offsetof(aeron_mapped_raw_log_t, term_length) == 80, "raw log term length");
STATIC_ASSERT(sizeof(aeron_mapped_raw_log_t) == 88, "raw log size");
STATIC_ASSERT(offsetof(aeron_parsed_address_t, port) == 384, "address port");
STATIC_ASSERT(offsetof(aeron_parsed_address_t, ip_version_hint) == 392, "address hint");
STATIC_ASSERT(sizeof(aeron_parsed_address_t) == 396, "address size");
STATIC_ASSERT(offsetof(aeron_parsed_interface_t, prefix) == 392, "interface prefix");
STATIC_ASSERT(offsetof(aeron_parsed_interface_t, ip_version_hint) == 400, "interface hint");
STATIC_ASSERT(sizeof(aeron_parsed_interface_t) == 404, "interface size");
STATIC_ASSERT(offsetof(aeron_distinct_observation_t, error_code) == 8, "observation code");
STATIC_ASSERT(offsetof(aeron_distinct_observation_t, offset) == 16, "observation offset");
STATIC_ASSERT(sizeof(aeron_distinct_observation_t) == 32, "observation size");
STATIC_ASSERT(sizeof(aeron_distinct_error_log_observation_list_t) == 16, "observation list size");
STATIC_ASSERT(offsetof(aeron_distinct_error_log_t, observation_list) == 8, "log list");
STATIC_ASSERT(offsetof(aeron_distinct_error_log_t, next_offset) == 24, "log next offset");
STATIC_ASSERT(offsetof(aeron_distinct_error_log_t, clock) == 32, "log clock");
STATIC_ASSERT(offsetof(aeron_distinct_error_log_t, mutex) == 40, "log mutex");
STATIC_ASSERT(sizeof(aeron_distinct_error_log_t) == 40 + sizeof(aeron_mutex_t), "log size");
STATIC_ASSERT(sizeof(aeron_error_log_entry_t) == 24 && ALIGN_OF(aeron_error_log_entry_t) == 4, "entry packed");
STATIC_ASSERT(offsetof(aeron_error_log_entry_t, last_observation_timestamp) == 8, "entry last");
STATIC_ASSERT(offsetof(aeron_error_log_entry_t, first_observation_timestamp) == 16, "entry first");
STATIC_ASSERT(sizeof(aeron_cnc_metadata_t) == 48 && ALIGN_OF(aeron_cnc_metadata_t) == 4, "cnc metadata packed");
STATIC_ASSERT(offsetof(aeron_cnc_metadata_t, client_liveness_timeout) == 24, "cnc liveness");
STATIC_ASSERT(offsetof(aeron_cnc_metadata_t, pid) == 40, "cnc pid");
STATIC_ASSERT(sizeof(aeron_clock_cache_t) == 128, "clock cache size");
STATIC_ASSERT(offsetof(aeron_clock_cache_t, cached_epoch_time) == 56, "clock cache epoch");
STATIC_ASSERT(offsetof(aeron_clock_cache_t, cached_nano_time) == 64, "clock cache nano");
STATIC_ASSERT(offsetof(aeron_per_thread_error_t, errmsg) == 16, "per thread error");
STATIC_ASSERT(sizeof(aeron_per_thread_error_t) == 16 + AERON_ERROR_MAX_TOTAL_LENGTH, "per thread error size");
STATIC_ASSERT(AERON_CNC_VERSION_AND_META_DATA_LENGTH == 128, "cnc header length");
STATIC_ASSERT(AERON_ERROR_LOG_HEADER_LENGTH == 24 && AERON_ERROR_LOG_RECORD_ALIGNMENT == 8, "error log");
STATIC_ASSERT(AERON_LOGBUFFER_PARTITION_COUNT == 3, "partitions");
STATIC_ASSERT(AERON_MAX_PATH == 4096, "max path");
STATIC_ASSERT(AERON_MAX_HOST_LENGTH == 384 && AERON_MAX_PORT_LENGTH == 8 && AERON_MAX_PREFIX_LENGTH == 8, "parse");
STATIC_ASSERT(AERON_FORMAT_DATE_MAX_LENGTH == 100 && AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN == 32, "format");
STATIC_ASSERT(AERON_CACHE_LINE_LENGTH == 64, "cache line");
#if !defined(AERON_COMPILER_GCC) || !(defined(AERON_CPU_X64) || defined(AERON_CPU_ARM))
#error "platform macros missing"
#endif

/* The struct tags are Aeron's: these pointers convert without casts. */
static struct aeron_agent_runner_stct *g_runner_tag;
static struct aeron_idle_strategy_stct *g_idle_tag;
static struct aeron_mapped_file_stct *g_mapped_file_tag;
static struct aeron_distinct_error_log_stct *g_log_tag;
static struct aeron_cnc_metadata_stct *g_cnc_tag;
static struct aeron_error_log_entry_stct *g_entry_tag;
static struct aeron_clock_cache_stct *g_clock_tag;
static struct aeron_parsed_address_stct *g_address_tag;

static void struct_tags(void)
{
    aeron_agent_runner_t *runner = g_runner_tag;
    aeron_idle_strategy_t *idle = g_idle_tag;
    aeron_mapped_file_t *mapped = g_mapped_file_tag;
    aeron_distinct_error_log_t *log = g_log_tag;
    aeron_cnc_metadata_t *cnc = g_cnc_tag;
    aeron_error_log_entry_t *entry = g_entry_tag;
    aeron_clock_cache_t *clock_cache = g_clock_tag;
    aeron_parsed_address_t *address = g_address_tag;
    CHECK(NULL == runner && NULL == idle && NULL == mapped && NULL == log && NULL == cnc && NULL == entry &&
        NULL == clock_cache && NULL == address);
    aeron_fptr_t any = (aeron_fptr_t)aeron_nano_clock;
    CHECK(NULL != any);
}

static char g_dir[] = "/tmp/aeronrs-util-headers-XXXXXX";

static AERON_DECL_ALIGNED(int64_t g_aligned_word, 64);
static volatile int64_t g_shared_count;

static void *add_many(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100000; i++)
    {
        int64_t before;
        AERON_GET_AND_ADD_INT64(before, g_shared_count, 1);
        (void)before;
    }
    return NULL;
}

static void atomics(void)
{
    CHECK_EQ_LL((uintptr_t)&g_aligned_word % 64, 0);
    volatile int64_t word = 5;
    int64_t seen = 0;
    AERON_GET_ACQUIRE(seen, word);
    CHECK_EQ_LL(seen, 5);
    AERON_SET_RELEASE(word, seen + 2);
    CHECK_EQ_LL(word, 7);
    volatile bool flag = true;
    AERON_SET_RELEASE(flag, false);
    bool flag_now = true;
    AERON_GET_ACQUIRE(flag_now, flag);
    CHECK(!flag_now);

    int64_t original = 0;
    AERON_GET_AND_ADD_INT64(original, word, 10);
    CHECK_EQ_LL(original, 7);
    CHECK_EQ_LL(word, 17);
    volatile int32_t small = 3;
    int32_t original32 = 0;
    AERON_GET_AND_ADD_INT32(original32, small, -1);
    CHECK_EQ_LL(original32, 3);
    CHECK_EQ_LL(small, 2);

    CHECK(aeron_cas_int64(&word, 17, 18));
    CHECK(!aeron_cas_int64(&word, 17, 19));
    CHECK_EQ_LL(word, 18);
    volatile uint64_t unsigned_word = UINT64_MAX;
    CHECK(aeron_cas_uint64(&unsigned_word, UINT64_MAX, 1));
    CHECK(!aeron_cas_uint64(&unsigned_word, UINT64_MAX, 2));
    CHECK(aeron_cas_int32(&small, 2, -5));
    CHECK(!aeron_cas_int32(&small, 2, 0));
    CHECK_EQ_LL(small, -5);
    aeron_acquire();
    aeron_release();

    /* Two threads adding at once lose nothing. */
    aeron_thread_t threads[2];
    for (int i = 0; i < 2; i++)
    {
        CHECK_EQ_LL(aeron_thread_create(&threads[i], NULL, add_many, NULL), 0);
    }
    for (int i = 0; i < 2; i++)
    {
        CHECK_EQ_LL(aeron_thread_join(threads[i], NULL), 0);
    }
    CHECK_EQ_LL(g_shared_count, 200000);
}

static void bits(void)
{
    CHECK_EQ_LL(AERON_ALIGN(13u, 8u), 16);
    CHECK_EQ_LL(AERON_ALIGN(16u, 8u), 16);
    CHECK_EQ_LL(AERON_PADDED_SIZEOF(char[5]), 8);
    CHECK(AERON_IS_POWER_OF_TWO(64u));
    CHECK(!AERON_IS_POWER_OF_TWO(96u));
    CHECK(!AERON_IS_POWER_OF_TWO(0u));
    CHECK_EQ_LL(AERON_MIN(3, -2), -2);
    CHECK(AERON_C_COND_EXPECT(1 + 1 == 2, 1));
    uint8_t storage[256];
    uint8_t *aligned = aeron_cache_line_align_buffer(storage + 1);
    CHECK_EQ_LL((uintptr_t)aligned % AERON_CACHE_LINE_LENGTH, 0);
    CHECK(aligned > storage && aligned - storage <= 64);
    CHECK(aeron_cache_line_align_buffer(aligned) == aligned);
    CHECK_EQ_LL(aeron_number_of_trailing_zeroes(0), 32);
    CHECK_EQ_LL(aeron_number_of_trailing_zeroes(40), 3);
    CHECK_EQ_LL(aeron_number_of_trailing_zeroes(INT32_MIN), 31);
    CHECK_EQ_LL(aeron_number_of_trailing_zeroes_u64(0), 64);
    CHECK_EQ_LL(aeron_number_of_trailing_zeroes_u64(UINT64_C(1) << 40), 40);
    CHECK_EQ_LL(aeron_number_of_leading_zeroes(0), 32);
    CHECK_EQ_LL(aeron_number_of_leading_zeroes(1), 31);
    CHECK_EQ_LL(aeron_number_of_leading_zeroes(-1), 0);
    CHECK_EQ_LL(aeron_find_next_power_of_two(1), 1);
    CHECK_EQ_LL(aeron_find_next_power_of_two(5), 8);
    CHECK_EQ_LL(aeron_find_next_power_of_two(4096), 4096);
    CHECK_EQ_LL(aeron_find_next_power_of_two(0), 0);
    int distinct = 0;
    int32_t first = aeron_randomised_int32();
    for (int i = 0; i < 8; i++)
    {
        distinct += aeron_randomised_int32() != first;
    }
    CHECK(distinct > 0);
}

static void strings(void)
{
    uint8_t data[] = { 0x00, 0x1f, 0xab, 0xff };
    char hex[AERON_FORMAT_HEX_LENGTH(4)];
    CHECK_EQ_LL(sizeof(hex), 9);
    aeron_format_to_hex(hex, sizeof(hex), data, sizeof(data));
    CHECK(strcmp(hex, "001fabff") == 0);
    char short_hex[4];
    aeron_format_to_hex(short_hex, sizeof(short_hex), data, sizeof(data));
    CHECK(strcmp(short_hex, "00") == 0);

    /* FNV-1a test vectors. */
    uint8_t letter_a[] = { 'a' };
    uint8_t foobar[] = { 'f', 'o', 'o', 'b', 'a', 'r' };
    CHECK(aeron_fnv_64a_buf(letter_a, 0) == UINT64_C(0xcbf29ce484222325));
    CHECK(aeron_fnv_64a_buf(letter_a, 1) == UINT64_C(0xaf63dc4c8601ec8c));
    CHECK(aeron_fnv_64a_buf(foobar, 6) == UINT64_C(0x85944171f73967e8));

    size_t length = 99;
    CHECK(aeron_str_length("abc", 4, &length));
    CHECK_EQ_LL(length, 3);
    length = 99;
    CHECK(!aeron_str_length("abc", 3, &length));
    CHECK_EQ_LL(length, 99);
    CHECK(aeron_str_length(NULL, 0, &length));
    CHECK(aeron_str_length("", 1, NULL));
    uint8_t text[] = { 'x', 'y', 'z' };
    aeron_str_null_terminate(text, 1);
    CHECK_EQ_LL(text[1], 0);

    char input[] = "a,bc,,d";
    char *tokens[4];
    CHECK_EQ_LL(aeron_tokenise(input, ',', 4, tokens), 3);
    CHECK(strcmp(tokens[0], "d") == 0 && strcmp(tokens[1], "bc") == 0 && strcmp(tokens[2], "a") == 0);
    char too_many[] = "1 2 3";
    CHECK_EQ_LL(aeron_tokenise(too_many, ' ', 2, tokens), -ERANGE);
    CHECK_EQ_LL(aeron_tokenise(NULL, ' ', 2, tokens), -EINVAL);

    char *copy = aeron_strndup("abcdef", 3);
    CHECK(strcmp(copy, "abc") == 0);
    free(copy);
    char date[AERON_FORMAT_DATE_MAX_LENGTH];
    aeron_format_date(date, sizeof(date), 0);
    CHECK(strlen(date) >= 23);
    char number[AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN];
    CHECK(aeron_format_number_to_locale(1234567, number, sizeof(number)) == number);
    CHECK(strlen(number) == 9);
}

static void parsing(void)
{
    aeron_parsed_address_t address;
    CHECK_EQ_LL(aeron_address_split("[fe80::1%eth0]:40123", &address), 0);
    CHECK(strcmp(address.host, "fe80::1") == 0 && strcmp(address.port, "40123") == 0);
    CHECK_EQ_LL(address.ip_version_hint, 6);
    CHECK_EQ_LL(aeron_address_split("localhost", &address), 0);
    CHECK(strcmp(address.host, "localhost") == 0 && strcmp(address.port, "") == 0);
    CHECK_EQ_LL(address.ip_version_hint, 4);
    CHECK_EQ_LL(aeron_address_split("host:", &address), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_EQ_LL(aeron_address_split("", &address), -1);

    aeron_parsed_interface_t interface_parts;
    CHECK_EQ_LL(aeron_interface_split("10.0.0.1:8080/24", &interface_parts), 0);
    CHECK(strcmp(interface_parts.host, "10.0.0.1") == 0 && strcmp(interface_parts.port, "8080") == 0);
    CHECK(strcmp(interface_parts.prefix, "24") == 0);
    CHECK_EQ_LL(aeron_interface_split("1.2.3.4/1234567", &interface_parts), -1);

    CHECK(aeron_parse_bool("true", false));
    CHECK(aeron_parse_bool("on", false));
    CHECK(!aeron_parse_bool("0", true));
    CHECK(aeron_parse_bool("maybe", true));
    CHECK(!aeron_parse_bool(NULL, false));

    char line[16];
    const char *lines = "first\nsecond";
    CHECK_EQ_LL(aeron_parse_get_line(line, sizeof(line), lines), 6);
    CHECK(strcmp(line, "first\n") == 0);
    CHECK_EQ_LL(aeron_parse_get_line(line, sizeof(line), lines + 6), 0);
    CHECK(strcmp(line, "second") == 0);
    CHECK_EQ_LL(aeron_parse_get_line(line, 4, lines), -1);

    CHECK_EQ_LL(aeron_config_parse_uint64("X", "0x10", 1, 0, 100), 16);
    CHECK_EQ_LL(aeron_config_parse_uint64("X", "500", 1, 0, 100), 100);
    CHECK_EQ_LL(aeron_config_parse_uint64("X", NULL, 7, 10, 100), 7);
    CHECK_EQ_LL(aeron_config_parse_int32("X", "-3", 1, -10, 10), -3);
    CHECK_EQ_LL(aeron_config_parse_int32("X", "3x", 1, -10, 10), 1);
    CHECK_EQ_LL(aeron_config_parse_int64("X", "-9000000000", 1, INT64_MIN, 0), INT64_C(-9000000000));
    CHECK_EQ_LL(aeron_config_parse_uint32("X", "70000", 1, 0, UINT32_MAX), 70000);
    CHECK_EQ_LL(aeron_config_parse_size64("X", "64k", 1, 0, UINT64_MAX), 65536);
    CHECK_EQ_LL(aeron_config_parse_size64("X", "lots", 1, 0, UINT64_MAX), 1);
    CHECK_EQ_LL(aeron_config_parse_duration_ns("X", "5ms", 1, 0, UINT64_MAX), 5000000);
    CHECK_EQ_LL(aeron_config_parse_duration_ns("X", "2s", 1, 0, 1000), 1000);
    aeron_config_prop_warning("AERON_EXAMPLE", "bad-value");
    uint64_t value = 0;
    CHECK_EQ_LL(aeron_parse_size64("1m", &value), 0);
    CHECK_EQ_LL(value, 1024 * 1024);
    CHECK_EQ_LL(aeron_parse_duration_ns("3us", &value), 0);
    CHECK_EQ_LL(value, 3000);
}

static int fail_with_context(int length)
{
    AERON_SET_ERR(EINVAL, "length %d is too short", length);
    return -1;
}

static void errors(void)
{
    CHECK_EQ_LL(fail_with_context(3), -1);
    AERON_APPEND_ERR("while opening %s", "the log");
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_EQ_LL(errno, EINVAL);
    const char *message = aeron_errmsg();
    CHECK(strstr(message, "(22) ") == message);
    CHECK(strstr(message, "[fail_with_context, test_util_headers.c:") != NULL);
    CHECK(strstr(message, "] length 3 is too short\n") != NULL);
    CHECK(strstr(message, "[errors, test_util_headers.c:") != NULL);
    CHECK(strstr(message, "] while opening the log\n") != NULL);
    CHECK(strcmp(__FILENAME__, "test_util_headers.c") == 0);

    AERON_SET_ERR(-1, "%s", "bad uri"); /* -AERON_ERROR_CODE_INVALID_CHANNEL */
    CHECK_EQ_LL(aeron_errcode(), -1);
    CHECK(strstr(aeron_errmsg(), "(-1) invalid channel\n") == aeron_errmsg());
    CHECK(strcmp(aeron_error_code_str(1), "invalid channel") == 0);
    CHECK(strcmp(aeron_error_code_str(11), "generic error, see message") == 0);
    CHECK(strcmp(aeron_error_code_str(1000), "unknown error code") == 0);

    aeron_set_errno(ENOENT);
    CHECK_EQ_LL(errno, ENOENT);
    CHECK_EQ_LL(aeron_errcode(), -1);
    aeron_err_clear();
    CHECK_EQ_LL(aeron_errcode(), 0);
    CHECK_EQ_LL(errno, 0);
    int anything = 0;
    void *something = &anything;
    void *nothing = NULL;
    CHECK(strcmp(AERON_NULL_STR(something), "OK") == 0);
    CHECK(strcmp(AERON_NULL_STR(nothing), "NULL") == 0);
}

static AERON_INIT_ONCE g_once = AERON_INIT_ONCE_VALUE;
static int g_once_calls;

static void count_once(void)
{
    g_once_calls++;
}

static void threads(void)
{
    proc_yield();
    aeron_thread_set_name("util-headers-test");
    FILE *comm = fopen("/proc/thread-self/comm", "r");
    CHECK(comm != NULL);
    char name[32] = { 0 };
    CHECK(fgets(name, sizeof(name), comm) != NULL);
    fclose(comm);
    CHECK(strncmp(name, "util-headers-te", 15) == 0);
    CHECK_EQ_LL(aeron_thread_set_affinity("test", 255), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);

    aeron_thread_once(&g_once, count_once);
    aeron_thread_once(&g_once, count_once);
    CHECK_EQ_LL(g_once_calls, 1);

    aeron_mutex_t mutex;
    CHECK_EQ_LL(aeron_mutex_init(&mutex, NULL), 0);
    CHECK_EQ_LL(aeron_mutex_lock(&mutex), 0);
    CHECK_EQ_LL(aeron_mutex_unlock(&mutex), 0);
    CHECK_EQ_LL(aeron_mutex_destroy(&mutex), 0);
    aeron_cond_t cond;
    CHECK_EQ_LL(aeron_cond_init(&cond, NULL), 0);
    CHECK_EQ_LL(aeron_cond_signal(&cond), 0);
    CHECK_EQ_LL(aeron_cond_destroy(&cond), 0);
    aeron_thread_attr_t attr;
    CHECK_EQ_LL(aeron_thread_attr_init(&attr), 0);
    pthread_attr_destroy(&attr);
    pthread_key_t key;
    CHECK_EQ_LL(aeron_thread_key_create(&key, NULL), 0);
    CHECK_EQ_LL(aeron_thread_set_specific(key, &g_once_calls), 0);
    CHECK(aeron_thread_get_specific(key) == &g_once_calls);
    CHECK_EQ_LL(aeron_thread_key_delete(key), 0);
    (void)aeron_cond_wait;
    int64_t before = aeron_nano_clock();
    aeron_nano_sleep(100000);
    aeron_micro_sleep(100);
    CHECK(aeron_nano_clock() - before >= 200000);
}

static void clocks(void)
{
    aeron_clock_cache_t *cache = NULL;
    CHECK_EQ_LL(aeron_clock_cache_alloc(&cache), 0);
    CHECK_EQ_LL(aeron_clock_cached_epoch_time(cache), 0);
    aeron_clock_update_cached_time(cache, 1700000000000, 42);
    CHECK_EQ_LL(aeron_clock_cached_epoch_time(cache), 1700000000000);
    CHECK_EQ_LL(aeron_clock_cached_nano_time(cache), 42);
    aeron_clock_update_cached_epoch_time(cache, 1700000000001);
    aeron_clock_update_cached_nano_time(cache, 43);
    CHECK_EQ_LL(aeron_clock_cached_epoch_time(cache), 1700000000001);
    CHECK_EQ_LL(aeron_clock_cached_nano_time(cache), 43);
    aeron_free(cache);

    struct timespec now;
    CHECK_EQ_LL(aeron_clock_gettime_realtime(&now), 0);
    CHECK(llabs((long long)(now.tv_sec - time(NULL))) <= 2);
    CHECK(now.tv_nsec >= 0 && now.tv_nsec < 1000000000);
    CHECK_EQ_LL(aeron_clock_gettime_realtime(NULL), -1);
}

static void allocation(void)
{
    void *p = NULL;
    CHECK_EQ_LL(aeron_alloc_no_err(&p, 32), 0);
    CHECK(p != NULL && ((uint8_t *)p)[31] == 0);
    CHECK_EQ_LL(aeron_reallocf(&p, 4096), 0);
    CHECK(p != NULL);
    ((uint8_t *)p)[4095] = 7;
    aeron_free(p);
    CHECK_EQ_LL(aeron_alloc_no_err(NULL, 8), -1);

    size_t offset = 99;
    CHECK_EQ_LL(aeron_alloc_aligned(&p, &offset, 100, 4096), 0);
    CHECK_EQ_LL(offset, 0);
    CHECK_EQ_LL((uintptr_t)p % 4096, 0);
    CHECK_EQ_LL(((uint8_t *)p)[99], 0);
    aeron_free(p);
    CHECK_EQ_LL(aeron_alloc_aligned(&p, &offset, 100, 48), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
}

static void files(void)
{
    char path[AERON_MAX_PATH];
    CHECK(aeron_file_resolve(g_dir, "a/b/c", path, sizeof(path)) > 0);
    CHECK_EQ_LL(aeron_mkdir_recursive(path, S_IRWXU), 0);
    CHECK_EQ_LL(aeron_is_directory(path), 1);
    CHECK_EQ_LL(aeron_mkdir_recursive(path, S_IRWXU), -1);
    CHECK_EQ_LL(aeron_errcode(), EEXIST);
    char small[8];
    CHECK_EQ_LL(aeron_file_resolve(g_dir, "x", small, sizeof(small)), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_EQ_LL(strlen(small), 7);

    char file[AERON_MAX_PATH];
    snprintf(file, sizeof(file), "%s/new.dat", g_dir);
    aeron_mapped_file_t mapped;
    mapped.addr = NULL;
    mapped.length = 8192;
    CHECK_EQ_LL(aeron_map_new_file(&mapped, file, true), 0);
    CHECK(mapped.addr != NULL && mapped.length == 8192);
    ((uint8_t *)mapped.addr)[100] = 42;
    CHECK_EQ_LL(aeron_msync(mapped.addr, mapped.length), 0);
    CHECK_EQ_LL(aeron_unmap(&mapped), 0);
    CHECK_EQ_LL(aeron_file_length(file), 8192);
    CHECK_EQ_LL(aeron_map_new_file(&mapped, file, false), -1);
    CHECK_EQ_LL(aeron_errcode(), EEXIST);
    CHECK_EQ_LL(aeron_map_existing_file(&mapped, file), 0);
    CHECK_EQ_LL(((uint8_t *)mapped.addr)[100], 42);
    CHECK_EQ_LL(aeron_unmap(&mapped), 0);
    CHECK_EQ_LL(aeron_delete_file(file), 0);
    CHECK_EQ_LL(aeron_file_length(file), -1);
    CHECK_EQ_LL(aeron_delete_file(file), -1);
    CHECK_EQ_LL(aeron_errcode(), ENOENT);
    CHECK(aeron_usable_fs_space(g_dir) > 0);
    CHECK(aeron_usable_fs_space_disabled(g_dir) == UINT64_MAX);
    aeron_usable_fs_space_func_t space = aeron_usable_fs_space;
    CHECK(space(g_dir) > 0);

    char location[AERON_MAX_PATH];
    CHECK_EQ_LL(aeron_ipc_publication_location(location, sizeof(location), "/dev/shm/aeron", 7), 39);
    CHECK(strcmp(location, "/dev/shm/aeron/" AERON_PUBLICATIONS_DIR "/7.logbuffer") == 0);
    CHECK(aeron_network_publication_location(location, sizeof(location), "/d", 8) > 0);
    CHECK(strcmp(location, "/d/publications/8.logbuffer") == 0);
    CHECK(aeron_publication_image_location(location, sizeof(location), "/d", 9) > 0);
    CHECK(strcmp(location, "/d/" AERON_IMAGES_DIR "/9.logbuffer") == 0);
    char cut[6];
    CHECK_EQ_LL(aeron_ipc_publication_location(cut, sizeof(cut), "/d", 8), 27);
    CHECK(strcmp(cut, "/d/pu") == 0);
    char temp[AERON_MAX_PATH];
    CHECK(aeron_temp_filename(temp, sizeof(temp)) > strlen("/tmp/aeron-c."));
    CHECK(strncmp(temp, "/tmp/aeron-c.", 13) == 0 && aeron_file_length(temp) == -1);
    CHECK_EQ_LL(AERON_FILEUTIL_ERROR_ENOSPC, ENOSPC);
    char made[AERON_MAX_PATH];
    snprintf(made, sizeof(made), "%s/made", g_dir);
    CHECK_EQ_LL(aeron_mkdir(made, S_IRWXU), 0);
    CHECK_EQ_LL(aeron_is_directory(made), 1);
    CHECK_EQ_LL(aeron_delete_file(made), 0);
}

static void raw_logs(void)
{
    char file[AERON_MAX_PATH];
    snprintf(file, sizeof(file), "%s/1.logbuffer", g_dir);
    aeron_mapped_raw_log_t log;
    aeron_raw_log_map_func_t map = aeron_raw_log_map;
    CHECK_EQ_LL(map(&log, file, true, 65536, 4096), 0);
    CHECK_EQ_LL(log.term_length, 65536);
    CHECK_EQ_LL(log.mapped_file.length, 3 * 65536 + 4096);
    for (int i = 0; i < AERON_LOGBUFFER_PARTITION_COUNT; i++)
    {
        CHECK(log.term_buffers[i].addr == (uint8_t *)log.mapped_file.addr + i * 65536);
        CHECK_EQ_LL(log.term_buffers[i].length, 65536);
    }
    CHECK(log.log_meta_data.addr == (uint8_t *)log.mapped_file.addr + 3 * 65536);
    CHECK_EQ_LL(log.log_meta_data.length, 4096);
    log.term_buffers[1].addr[8] = 9;

    aeron_mapped_raw_log_t again;
    CHECK_EQ_LL(aeron_raw_log_map_existing(&again, file, true), 0);
    CHECK_EQ_LL(again.term_length, 65536);
    CHECK_EQ_LL(again.term_buffers[1].addr[8], 9);
    aeron_raw_log_free_func_t free_log = aeron_raw_log_free;
    CHECK(free_log(&again, NULL));
    CHECK(again.mapped_file.addr == NULL);
    CHECK_EQ_LL(aeron_raw_log_map(&again, file, false, 65536, 4096), -1);
    CHECK_EQ_LL(aeron_errcode(), EEXIST);
    CHECK_EQ_LL(aeron_raw_log_map(&again, file, false, 1000, 4096), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);

    aeron_raw_log_close_func_t close_log = aeron_raw_log_close;
    CHECK_EQ_LL(close_log(&log, file), 0);
    CHECK_EQ_LL(log.mapped_file.length, 0);
    CHECK_EQ_LL(aeron_file_length(file), -1);
    CHECK_EQ_LL(aeron_raw_log_close(&log, file), 0);
}

static int64_t g_log_time = 1000;

static int64_t log_clock(void)
{
    return g_log_time++;
}

typedef struct
{
    int count;
    int32_t observations[4];
    char text[4][64];
}
seen_errors_t;

static void on_error(
    int32_t observation_count,
    int64_t first_observation_timestamp,
    int64_t last_observation_timestamp,
    const char *error,
    size_t error_length,
    void *clientd)
{
    seen_errors_t *seen = (seen_errors_t *)clientd;
    (void)first_observation_timestamp;
    (void)last_observation_timestamp;
    if (seen->count < 4)
    {
        seen->observations[seen->count] = observation_count;
        memcpy(seen->text[seen->count], error, error_length < 63 ? error_length : 63);
        seen->count++;
    }
}

static AERON_DECL_ALIGNED(uint8_t g_error_buffer[1024], 8);

static void distinct_error_log(void)
{
    aeron_distinct_error_log_t log;
    CHECK(!aeron_error_log_exists(g_error_buffer, sizeof(g_error_buffer)));
    CHECK_EQ_LL(aeron_distinct_error_log_init(&log, g_error_buffer, sizeof(g_error_buffer), log_clock), 0);
    CHECK_EQ_LL(aeron_distinct_error_log_init(&log, g_error_buffer, sizeof(g_error_buffer), NULL), -1);
    CHECK_EQ_LL(aeron_distinct_error_log_record(&log, 11, "port invalid: xx"), 0);
    CHECK_EQ_LL(aeron_distinct_error_log_record(&log, 11, "term too short"), 0);
    CHECK_EQ_LL(aeron_distinct_error_log_record(&log, 11, "port invalid: xx"), 0);
    CHECK_EQ_LL(aeron_distinct_error_log_num_observations(&log), 2);
    CHECK_EQ_LL(log.observation_list->num_observations, 2);
    CHECK(strcmp(log.observation_list->observations[0].description, "term too short") == 0);
    CHECK_EQ_LL(log.next_offset, 80);
    CHECK(aeron_error_log_exists(g_error_buffer, sizeof(g_error_buffer)));

    aeron_error_log_entry_t *entry = (aeron_error_log_entry_t *)g_error_buffer;
    CHECK_EQ_LL(entry->length, AERON_ERROR_LOG_HEADER_LENGTH + strlen("port invalid: xx"));
    CHECK_EQ_LL(entry->observation_count, 2);
    CHECK_EQ_LL(entry->first_observation_timestamp, 1000);
    CHECK_EQ_LL(entry->last_observation_timestamp, 1002);
    CHECK(memcmp(g_error_buffer + AERON_ERROR_LOG_HEADER_LENGTH, "port invalid: xx", 16) == 0);

    seen_errors_t seen;
    memset(&seen, 0, sizeof(seen));
    CHECK_EQ_LL(aeron_error_log_read(g_error_buffer, sizeof(g_error_buffer), on_error, &seen, 0), 2);
    CHECK_EQ_LL(seen.observations[0], 2);
    CHECK(strcmp(seen.text[1], "term too short") == 0);

    char huge[1100];
    memset(huge, 'e', sizeof(huge) - 1);
    huge[sizeof(huge) - 1] = '\0';
    CHECK_EQ_LL(aeron_distinct_error_log_record(&log, 11, huge), -1);
    CHECK_EQ_LL(aeron_errcode(), ENOMEM);
    aeron_distinct_error_log_close(&log);
}

/* A cnc.dat as a driver lays it out: the 128-byte header, then the sections. */
static void write_cnc(const char *dir, int32_t version)
{
    char path[AERON_MAX_PATH];
    CHECK(aeron_cnc_resolve_filename(dir, path, sizeof(path)) > 0);
    size_t length = aeron_cnc_computed_length(1792 + 1152 + 4096 + 1024 + 1024, 4096);
    CHECK_EQ_LL(length, 12288);
    uint8_t *bytes = (uint8_t *)calloc(1, length);
    CHECK(bytes != NULL);
    aeron_cnc_metadata_t *metadata = (aeron_cnc_metadata_t *)bytes;
    metadata->cnc_version = version;
    metadata->to_driver_buffer_length = 1792;
    metadata->to_clients_buffer_length = 1152;
    metadata->counter_metadata_buffer_length = 4096;
    metadata->counter_values_buffer_length = 1024;
    metadata->error_log_buffer_length = 1024;
    metadata->client_liveness_timeout = 5000000000;
    metadata->start_timestamp = 1700000000000;
    metadata->pid = 1234;
    FILE *out = fopen(path, "wb");
    CHECK(out != NULL);
    CHECK_EQ_LL(fwrite(bytes, 1, length, out), length);
    fclose(out);
    free(bytes);
}

static void cnc_file(void)
{
    char dir[AERON_MAX_PATH];
    snprintf(dir, sizeof(dir), "%s/cnc", g_dir);
    aeron_mapped_file_t mapped;
    aeron_cnc_metadata_t *metadata = NULL;
    CHECK_EQ_LL(aeron_cnc_map_file_and_load_metadata(dir, &mapped, &metadata), AERON_CNC_LOAD_AWAIT_FILE);
    CHECK_EQ_LL(aeron_mkdir_recursive(dir, S_IRWXU), 0);
    write_cnc(dir, 0);
    CHECK_EQ_LL(aeron_cnc_map_file_and_load_metadata(dir, &mapped, &metadata), AERON_CNC_LOAD_AWAIT_VERSION);
    write_cnc(dir, aeron_semantic_version_compose(1, 0, 0));
    CHECK_EQ_LL(aeron_cnc_map_file_and_load_metadata(dir, &mapped, &metadata), AERON_CNC_LOAD_FAILED);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    write_cnc(dir, AERON_CNC_VERSION);
    CHECK_EQ_LL(aeron_cnc_map_file_and_load_metadata(dir, &mapped, &metadata), AERON_CNC_LOAD_SUCCESS);
    CHECK((void *)metadata == mapped.addr);
    CHECK_EQ_LL(mapped.length, 12288);
    CHECK_EQ_LL(aeron_cnc_version_volatile(metadata), AERON_CNC_VERSION);
    CHECK_EQ_LL(AERON_CNC_VERSION, 512);
    uint8_t *base = (uint8_t *)mapped.addr;
    CHECK(aeron_cnc_to_driver_buffer(metadata) == base + 128);
    CHECK(aeron_cnc_to_clients_buffer(metadata) == base + 128 + 1792);
    CHECK(aeron_cnc_counters_metadata_buffer(metadata) == base + 128 + 1792 + 1152);
    CHECK(aeron_cnc_counters_values_buffer(metadata) == base + 128 + 1792 + 1152 + 4096);
    CHECK(aeron_cnc_error_log_buffer(metadata) == base + 128 + 1792 + 1152 + 4096 + 1024);
    CHECK(aeron_cnc_is_file_length_sufficient(&mapped));
    CHECK_EQ_LL(metadata->pid, 1234);
    char name[AERON_MAX_PATH];
    CHECK(aeron_cnc_resolve_filename(dir, name, sizeof(name)) > 0);
    CHECK(strcmp(name + strlen(dir) + 1, AERON_CNC_FILE) == 0);
    CHECK_EQ_LL(aeron_unmap(&mapped), 0);
    aeron_mapped_file_t too_short;
    too_short.addr = mapped.addr;
    too_short.length = 64;
    CHECK(!aeron_cnc_is_file_length_sufficient(&too_short));
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    RUN(struct_tags);
    RUN(atomics);
    RUN(bits);
    RUN(strings);
    RUN(parsing);
    RUN(errors);
    RUN(threads);
    RUN(clocks);
    RUN(allocation);
    RUN(files);
    RUN(raw_logs);
    RUN(distinct_error_log);
    RUN(cnc_file);
    CHECK_EQ_LL(aeron_delete_directory(g_dir), 0);
    return 0;
}
