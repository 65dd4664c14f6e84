/* aeron_cnc_* and aeron_counters_reader_* over real Aeron 1.48 cnc.dat files (the golden
 * vectors, decompressed into a temp dir), checking the facts vectors/README.md lists:
 * constants, heartbeat, the 40 system counters and their labels, client counters and
 * their ids, the error log, the loss report; and every error path. Skips (exit 77) when
 * the vectors are absent unless AERONRS_REQUIRE_VECTORS=1. */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aeronc.h"
#include "test_util.h"

#define CHECK_FAILS(call, failure, code)                                                    \
    do                                                                                      \
    {                                                                                       \
        CHECK_EQ_LL((call), (failure));                                                     \
        CHECK_EQ_LL(aeron_errcode(), (code));                                               \
    }                                                                                       \
    while (0)

_Static_assert(sizeof(aeron_cnc_constants_t) == 48, "cnc constants size");
_Static_assert(_Alignof(aeron_cnc_constants_t) == 4, "cnc constants packed(4)");
_Static_assert(offsetof(aeron_cnc_constants_t, error_log_buffer_length) == 20, "error log length offset");
_Static_assert(offsetof(aeron_cnc_constants_t, client_liveness_timeout) == 24, "liveness offset");
_Static_assert(offsetof(aeron_cnc_constants_t, start_timestamp) == 32, "start offset");
_Static_assert(offsetof(aeron_cnc_constants_t, pid) == 40, "pid offset");
_Static_assert(sizeof(aeron_counter_value_descriptor_t) == 128, "value record");
_Static_assert(sizeof(aeron_counter_metadata_descriptor_t) == 512, "metadata record");
_Static_assert(AERON_COUNTER_REGISTRATION_ID_OFFSET == 8, "registration id offset");
_Static_assert(offsetof(aeron_counter_value_descriptor_t, owner_id) == 16, "owner id offset");
_Static_assert(offsetof(aeron_counter_value_descriptor_t, reference_id) == 24, "reference id offset");
_Static_assert(AERON_COUNTER_TYPE_ID_OFFSET == 4, "type id offset");
_Static_assert(AERON_COUNTER_FREE_FOR_REUSE_DEADLINE_OFFSET == 8, "deadline offset");
_Static_assert(AERON_COUNTER_KEY_OFFSET == 16, "key offset");
/* Upstream defines this as the offset of the label bytes (after the int32 length). */
_Static_assert(AERON_COUNTER_LABEL_LENGTH_OFFSET == 132, "label offset");
_Static_assert(offsetof(aeron_counter_metadata_descriptor_t, label_length) == 128, "label length offset");
_Static_assert(AERON_COUNTER_MAX_KEY_LENGTH == 112, "key length");
_Static_assert(AERON_COUNTER_MAX_LABEL_LENGTH == 380, "label length");
_Static_assert(sizeof(aeron_counters_reader_buffers_t) == 32, "buffers struct");

static char g_root[] = "/tmp/aeronrs-cnc-XXXXXX";
static char g_vectors[1024];

/* Decompresses vector `name` into `<g_root>/<dir>/<file>`, creating the directory. */
static void install_vector(const char *name, const char *dir, const char *file)
{
    char path[2048], command[4096];
    snprintf(path, sizeof(path), "%s/%s", g_root, dir);
    mkdir(path, 0700);
    snprintf(command, sizeof(command), "gzip -dc '%s/%s' > '%s/%s'", g_vectors, name, path, file);
    CHECK(system(command) == 0);
}

static void dir_path(char *out, size_t len, const char *dir)
{
    snprintf(out, len, "%s/%s", g_root, dir);
}

typedef struct
{
    int count;
    int32_t ids[64];
    int32_t type_ids[64];
    int64_t values[64];
    int32_t key_ints[64];
    size_t key_lengths[64];
    char labels[64][128];
} counters_seen_t;

static void on_counter(
    int64_t value,
    int32_t id,
    int32_t type_id,
    const uint8_t *key,
    size_t key_length,
    const char *label,
    size_t label_length,
    void *clientd)
{
    counters_seen_t *seen = (counters_seen_t *)clientd;
    CHECK(seen->count < 64);
    int i = seen->count++;
    seen->ids[i] = id;
    seen->type_ids[i] = type_id;
    seen->values[i] = value;
    memcpy(&seen->key_ints[i], key, sizeof(int32_t));
    seen->key_lengths[i] = key_length;
    size_t n = label_length < 127 ? label_length : 127;
    memcpy(seen->labels[i], label, n);
    seen->labels[i][n] = '\0';
}

typedef struct
{
    int count;
    int32_t observations[8];
    int64_t first[8];
    int64_t last[8];
    size_t lengths[8];
    char starts[8][64];
} errors_seen_t;

static void on_error(
    int32_t observation_count, int64_t first, int64_t last, const char *error, size_t error_length, void *clientd)
{
    errors_seen_t *seen = (errors_seen_t *)clientd;
    CHECK(seen->count < 8);
    int i = seen->count++;
    seen->observations[i] = observation_count;
    seen->first[i] = first;
    seen->last[i] = last;
    seen->lengths[i] = error_length;
    memcpy(seen->starts[i], error, error_length < 63 ? error_length : 63);
}

typedef struct
{
    int count;
    int64_t observation_count, total_bytes_lost, first, last;
    int32_t session_id, stream_id;
    char channel[128], source[64];
} loss_seen_t;

static void on_loss(
    void *clientd,
    int64_t observation_count,
    int64_t total_bytes_lost,
    int64_t first,
    int64_t last,
    int32_t session_id,
    int32_t stream_id,
    const char *channel,
    int32_t channel_length,
    const char *source,
    int32_t source_length)
{
    loss_seen_t *seen = (loss_seen_t *)clientd;
    seen->count++;
    seen->observation_count = observation_count;
    seen->total_bytes_lost = total_bytes_lost;
    seen->first = first;
    seen->last = last;
    seen->session_id = session_id;
    seen->stream_id = stream_id;
    memcpy(seen->channel, channel, (size_t)channel_length);
    seen->channel[channel_length] = '\0';
    memcpy(seen->source, source, (size_t)source_length);
    seen->source[source_length] = '\0';
}

static int g_log_lines = 0;
static int g_log_saw_cnc = 0;
static void log_line(const char *line)
{
    g_log_lines++;
    if (strstr(line, "CnC file") != NULL)
    {
        g_log_saw_cnc = 1;
    }
}

static void fresh_driver(void)
{
    install_vector("cnc-fresh.dat.gz", "fresh", "cnc.dat");
    char dir[1024];
    dir_path(dir, sizeof(dir), "fresh");
    aeron_cnc_t *cnc = NULL;
    CHECK_EQ_LL(aeron_cnc_init(&cnc, dir, 1000), 0);

    aeron_cnc_constants_t c;
    CHECK_EQ_LL(aeron_cnc_constants(cnc, &c), 0);
    CHECK_EQ_LL(c.cnc_version, 512);
    CHECK_EQ_LL(c.to_driver_buffer_length, 1049344);
    CHECK_EQ_LL(c.to_clients_buffer_length, 1048704);
    CHECK_EQ_LL(c.counter_metadata_buffer_length, 4194304);
    CHECK_EQ_LL(c.counter_values_buffer_length, 1048576);
    CHECK_EQ_LL(c.error_log_buffer_length, 1048576);
    CHECK_EQ_LL(c.client_liveness_timeout, INT64_C(10000000000));
    CHECK_EQ_LL(c.start_timestamp, INT64_C(1795962602375));
    CHECK_EQ_LL(c.pid, 24528);

    char expected[1100];
    snprintf(expected, sizeof(expected), "%s/cnc.dat", dir);
    CHECK(strcmp(aeron_cnc_filename(cnc), expected) == 0);
    CHECK_EQ_LL(aeron_cnc_to_driver_heartbeat(cnc), INT64_C(1795962602375));

    aeron_counters_reader_t *reader = aeron_cnc_counters_reader(cnc);
    CHECK(reader != NULL);
    CHECK(aeron_cnc_counters_reader(cnc) == reader);
    CHECK_EQ_LL(aeron_counters_reader_max_counter_id(reader), 1048576 / 128 - 1);
    aeron_counters_reader_buffers_t buffers;
    CHECK_EQ_LL(aeron_counters_reader_get_buffers(reader, &buffers), 0);
    CHECK_EQ_LL(buffers.values_length, 1048576);
    CHECK_EQ_LL(buffers.metadata_length, 4194304);
    CHECK(buffers.metadata + 4194304 == buffers.values);

    static counters_seen_t seen;
    memset(&seen, 0, sizeof(seen));
    aeron_counters_reader_foreach_counter(reader, on_counter, &seen);
    CHECK_EQ_LL(seen.count, 40);
    for (int i = 0; i < 40; i++)
    {
        CHECK_EQ_LL(seen.ids[i], i);
        CHECK_EQ_LL(seen.type_ids[i], 0);
        CHECK_EQ_LL(seen.key_ints[i], i);
        CHECK_EQ_LL(seen.key_lengths[i], AERON_COUNTER_MAX_KEY_LENGTH);
    }
    CHECK(strcmp(seen.labels[0], "Bytes sent") == 0);
    CHECK(strcmp(seen.labels[15], "Errors: version=1.48.0-SNAPSHOT commit=+guilty") == 0);
    CHECK(strcmp(seen.labels[25], "Resolution changes: driverName=") == 0);
    CHECK(strcmp(seen.labels[34], "Aeron software: version=1.48.0-SNAPSHOT commit=+guilty") == 0);
    CHECK(strcmp(seen.labels[35], "Bytes currently mapped") == 0);
    CHECK_EQ_LL(seen.values[34], 77824);
    CHECK_EQ_LL(seen.values[35], 9441280);
    CHECK_EQ_LL(seen.values[0], 0);

    int64_t *addr = aeron_counters_reader_addr(reader, 34);
    CHECK(addr != NULL && *addr == 77824);
    CHECK(aeron_counters_reader_addr(reader, 8191) != NULL);
    CHECK(aeron_counters_reader_addr(reader, 8192) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(aeron_counters_reader_addr(reader, -1) == NULL);

    int32_t state = 99, type_id = 99;
    int64_t id64 = 99;
    CHECK_EQ_LL(aeron_counters_reader_counter_state(reader, 0, &state), 0);
    CHECK_EQ_LL(state, AERON_COUNTER_RECORD_ALLOCATED);
    CHECK_EQ_LL(aeron_counters_reader_counter_state(reader, 40, &state), 0);
    CHECK_EQ_LL(state, AERON_COUNTER_RECORD_UNUSED);
    CHECK_EQ_LL(aeron_counters_reader_counter_type_id(reader, 39, &type_id), 0);
    CHECK_EQ_LL(type_id, 0);
    CHECK_EQ_LL(aeron_counters_reader_counter_registration_id(reader, 34, &id64), 0);
    CHECK_EQ_LL(id64, AERON_COUNTER_REGISTRATION_ID_DEFAULT);
    CHECK_EQ_LL(aeron_counters_reader_counter_owner_id(reader, 34, &id64), 0);
    CHECK_EQ_LL(id64, 0);
    CHECK_EQ_LL(aeron_counters_reader_counter_reference_id(reader, 34, &id64), 0);
    CHECK_EQ_LL(id64, 0);
    CHECK_EQ_LL(aeron_counters_reader_free_for_reuse_deadline_ms(reader, 34, &id64), 0);
    CHECK_EQ_LL(id64, AERON_COUNTER_NOT_FREE_TO_REUSE);
    uint8_t *key = NULL;
    CHECK_EQ_LL(aeron_counters_reader_metadata_key(reader, 5, &key), 0);
    int32_t key_int;
    memcpy(&key_int, key, sizeof(key_int));
    CHECK_EQ_LL(key_int, 5);
    CHECK(key == buffers.metadata + AERON_COUNTER_METADATA_OFFSET(5) + AERON_COUNTER_KEY_OFFSET);

    char label[AERON_COUNTER_MAX_LABEL_LENGTH];
    CHECK_EQ_LL(aeron_counters_reader_counter_label(reader, 0, label, sizeof(label)), 10);
    CHECK(memcmp(label, "Bytes sent", 10) == 0);
    memset(label, 'x', sizeof(label));
    CHECK_EQ_LL(aeron_counters_reader_counter_label(reader, 0, label, 5), 5);
    CHECK(memcmp(label, "Bytesx", 6) == 0);
    CHECK_EQ_LL(aeron_counters_reader_counter_label(reader, 40, label, sizeof(label)), 0);
    CHECK_EQ_LL(aeron_counters_reader_counter_label(reader, 0, NULL, 0), 0);

    CHECK_EQ_LL(aeron_counters_reader_find_by_type_id_and_registration_id(reader, 0, 0), 0);
    CHECK_EQ_LL(aeron_counters_reader_find_by_type_id_and_registration_id(reader, 11, 1), AERON_NULL_COUNTER_ID);

    /* Error paths of the reader functions. */
    CHECK_FAILS(aeron_counters_reader_counter_state(reader, -1, &state), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_state(reader, 8192, &state), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_state(reader, 0, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_state(NULL, 0, &state), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_type_id(reader, 8192, &type_id), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_type_id(reader, 0, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_registration_id(reader, -5, &id64), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_registration_id(NULL, 0, &id64), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_owner_id(reader, 0, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_owner_id(reader, 9000, &id64), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_reference_id(reader, 0, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_reference_id(reader, 9000, &id64), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_free_for_reuse_deadline_ms(reader, 9000, &id64), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_free_for_reuse_deadline_ms(reader, 0, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_metadata_key(reader, 9000, &key), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_metadata_key(reader, 0, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_label(reader, 9000, label, 8), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_label(reader, 0, NULL, 8), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_counter_label(NULL, 0, label, 8), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_max_counter_id(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_find_by_type_id_and_registration_id(NULL, 0, 0), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_get_buffers(reader, NULL), -1, EINVAL);
    CHECK_FAILS(aeron_counters_reader_get_buffers(NULL, &buffers), -1, EINVAL);
    aeron_counters_reader_foreach_counter(reader, NULL, NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    aeron_counters_reader_foreach_counter(NULL, on_counter, &seen);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);

    errors_seen_t errors;
    memset(&errors, 0, sizeof(errors));
    CHECK_EQ_LL(aeron_cnc_error_log_read(cnc, on_error, &errors, 0), 0);
    CHECK_EQ_LL(errors.count, 0);

    /* No loss-report.dat next to this cnc.dat. */
    loss_seen_t loss;
    memset(&loss, 0, sizeof(loss));
    CHECK_FAILS(aeron_cnc_loss_reporter_read(cnc, on_loss, &loss), -1, ENOENT);

    /* The heartbeat is years old: not active, but the directory and file are reported. */
    CHECK(!aeron_is_driver_active(dir, 100, log_line));
    CHECK(g_log_saw_cnc);
    CHECK(g_log_lines >= 3);
    CHECK(!aeron_is_driver_active(dir, 100, NULL));

    aeron_cnc_close(cnc);
}

static void driver_with_clients(void)
{
    install_vector("cnc-with-clients.dat.gz", "clients", "cnc.dat");
    install_vector("udp-loss.loss-report.dat.gz", "clients", "loss-report.dat");
    char dir[1024];
    dir_path(dir, sizeof(dir), "clients");
    aeron_cnc_t *cnc = NULL;
    CHECK_EQ_LL(aeron_cnc_init(&cnc, dir, 0), 0);
    CHECK_EQ_LL(aeron_cnc_to_driver_heartbeat(cnc), INT64_C(1795962607399));
    aeron_counters_reader_t *reader = aeron_cnc_counters_reader(cnc);

    static counters_seen_t seen;
    memset(&seen, 0, sizeof(seen));
    aeron_counters_reader_foreach_counter(reader, on_counter, &seen);
    CHECK_EQ_LL(seen.count, 59);
    CHECK_EQ_LL(seen.ids[40], 40);
    CHECK_EQ_LL(seen.type_ids[40], 11);
    CHECK(strcmp(seen.labels[40], "client-heartbeat: id=1 name= version=1.48.0-SNAPSHOT commit=+guilty") == 0);
    CHECK(strcmp(seen.labels[45], "pub-pos (sampled): 6 1698638129 1001 aeron:ipc ") == 0);
    CHECK(strcmp(seen.labels[47], "sub-pos: 2 1698638129 1001 aeron:ipc @0") == 0);
    CHECK_EQ_LL(seen.values[46], 32768);
    CHECK_EQ_LL(seen.values[52], 33024);

    int64_t id64 = 0;
    CHECK_EQ_LL(aeron_counters_reader_counter_registration_id(reader, 40, &id64), 0);
    CHECK_EQ_LL(id64, 1);
    CHECK_EQ_LL(aeron_counters_reader_counter_owner_id(reader, 40, &id64), 0);
    CHECK_EQ_LL(id64, 1);
    CHECK_EQ_LL(aeron_counters_reader_counter_owner_id(reader, 46, &id64), 0);
    CHECK_EQ_LL(id64, 5);
    CHECK_EQ_LL(aeron_counters_reader_counter_reference_id(reader, 47, &id64), 0);
    CHECK_EQ_LL(id64, 6);
    CHECK_EQ_LL(aeron_counters_reader_counter_reference_id(reader, 58, &id64), 0);
    CHECK_EQ_LL(id64, 9);
    int32_t state = 9;
    CHECK_EQ_LL(aeron_counters_reader_counter_state(reader, 59, &state), 0);
    CHECK_EQ_LL(state, AERON_COUNTER_RECORD_UNUSED);

    /* sub-pos (type 4) of subscription 4 is counter 58; heartbeat of client 7 is 48. */
    CHECK_EQ_LL(aeron_counters_reader_find_by_type_id_and_registration_id(reader, 4, 4), 58);
    CHECK_EQ_LL(aeron_counters_reader_find_by_type_id_and_registration_id(reader, 11, 7), 48);
    CHECK_EQ_LL(aeron_counters_reader_find_by_type_id_and_registration_id(reader, 4, 99), AERON_NULL_COUNTER_ID);

    /* The key of counter 58 starts with its registration id, 4. */
    uint8_t *key = NULL;
    CHECK_EQ_LL(aeron_counters_reader_metadata_key(reader, 58, &key), 0);
    int64_t key_registration_id;
    memcpy(&key_registration_id, key, sizeof(key_registration_id));
    CHECK_EQ_LL(key_registration_id, 4);

    loss_seen_t loss;
    memset(&loss, 0, sizeof(loss));
    CHECK_EQ_LL(aeron_cnc_loss_reporter_read(cnc, on_loss, &loss), 1);
    CHECK_EQ_LL(loss.count, 1);
    CHECK_EQ_LL(loss.observation_count, 13);
    CHECK_EQ_LL(loss.total_bytes_lost, 16896);
    CHECK_EQ_LL(loss.first, INT64_C(1795962617371));
    CHECK_EQ_LL(loss.last, INT64_C(1795962617415));
    CHECK_EQ_LL(loss.session_id, 1606141585);
    CHECK_EQ_LL(loss.stream_id, 1002);
    CHECK(strcmp(loss.channel, "aeron:udp?endpoint=127.0.0.1:20121") == 0);
    CHECK(strcmp(loss.source, "127.0.0.1:20122") == 0);
    CHECK_FAILS(aeron_cnc_loss_reporter_read(cnc, NULL, NULL), -1, EINVAL);

    aeron_cnc_close(cnc);
}

static void driver_with_errors(void)
{
    install_vector("cnc-with-errors.dat.gz", "errors", "cnc.dat");
    char dir[1024];
    dir_path(dir, sizeof(dir), "errors");
    aeron_cnc_t *cnc = NULL;
    CHECK_EQ_LL(aeron_cnc_init(&cnc, dir, 0), 0);

    errors_seen_t errors;
    memset(&errors, 0, sizeof(errors));
    CHECK_EQ_LL(aeron_cnc_error_log_read(cnc, on_error, &errors, 0), 3);
    CHECK_EQ_LL(errors.count, 3);
    CHECK_EQ_LL(errors.observations[0], 2);
    CHECK_EQ_LL(errors.first[0], INT64_C(1795962627767));
    CHECK_EQ_LL(errors.last[0], INT64_C(1795962628443));
    CHECK_EQ_LL(errors.lengths[0], 476 - 24);
    CHECK_EQ_LL(errors.observations[1], 1);
    CHECK_EQ_LL(errors.lengths[1], 286 - 24);
    CHECK_EQ_LL(errors.observations[2], 1);
    CHECK_EQ_LL(errors.lengths[2], 332 - 24);
    for (int i = 0; i < 3; i++)
    {
        CHECK(strncmp(errors.starts[i], "(22) Invalid argument\n", 22) == 0);
    }

    /* Only records last seen at or after the timestamp. */
    memset(&errors, 0, sizeof(errors));
    CHECK_EQ_LL(aeron_cnc_error_log_read(cnc, on_error, &errors, INT64_C(1795962628443)), 2);
    CHECK_EQ_LL(errors.last[0], INT64_C(1795962628443));
    CHECK_EQ_LL(errors.last[1], INT64_C(1795962628779));
    CHECK_EQ_LL(aeron_cnc_error_log_read(cnc, on_error, &errors, INT64_C(1795962628780)), 0);
    CHECK_FAILS(aeron_cnc_error_log_read(cnc, NULL, NULL, 0), 0, EINVAL);

    /* System counter 15 (Errors) = 4; no client counters. */
    aeron_counters_reader_t *reader = aeron_cnc_counters_reader(cnc);
    int64_t *errors_counter = aeron_counters_reader_addr(reader, 15);
    CHECK(errors_counter != NULL && *errors_counter == 4);
    int32_t state = 9;
    CHECK_EQ_LL(aeron_counters_reader_counter_state(reader, 40, &state), 0);
    CHECK_EQ_LL(state, AERON_COUNTER_RECORD_UNUSED);
    aeron_cnc_close(cnc);
}

static void init_errors(void)
{
    char dir[1024];
    dir_path(dir, sizeof(dir), "empty");
    mkdir(dir, 0700);
    aeron_cnc_t *cnc = NULL;
    /* No cnc.dat appears: times out with the client's driver timeout code. */
    CHECK_FAILS(aeron_cnc_init(&cnc, dir, 50), -1, -1000);
    CHECK(cnc == NULL);

    /* An incompatible major version fails at once. */
    install_vector("cnc-fresh.dat.gz", "future", "cnc.dat");
    char path[1100];
    dir_path(dir, sizeof(dir), "future");
    snprintf(path, sizeof(path), "%s/cnc.dat", dir);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    int32_t version = aeron_semantic_version_compose(1, 0, 0);
    CHECK_EQ_LL(fwrite(&version, sizeof(version), 1, f), 1);
    fclose(f);
    int64_t start = aeron_epoch_clock();
    CHECK_FAILS(aeron_cnc_init(&cnc, dir, 10000), -1, EINVAL);
    CHECK(aeron_epoch_clock() - start < 5000);

    CHECK_FAILS(aeron_cnc_init(NULL, dir, 0), -1, EINVAL);
    CHECK_FAILS(aeron_cnc_init(&cnc, NULL, 0), -1, EINVAL);
    aeron_cnc_constants_t c;
    CHECK_FAILS(aeron_cnc_constants(NULL, &c), -1, EINVAL);
    CHECK(aeron_cnc_filename(NULL) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_FAILS(aeron_cnc_to_driver_heartbeat(NULL), -1, EINVAL);
    CHECK_FAILS(aeron_cnc_error_log_read(NULL, on_error, NULL, 0), 0, EINVAL);
    CHECK(aeron_cnc_counters_reader(NULL) == NULL);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK_FAILS(aeron_cnc_loss_reporter_read(NULL, on_loss, NULL), -1, EINVAL);
    aeron_cnc_close(NULL);

    dir_path(dir, sizeof(dir), "fresh");
    CHECK_EQ_LL(aeron_cnc_init(&cnc, dir, 0), 0);
    CHECK_FAILS(aeron_cnc_constants(cnc, NULL), -1, EINVAL);
    aeron_cnc_close(cnc);

    CHECK(!aeron_is_driver_active(NULL, 0, NULL));
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(!aeron_is_driver_active("/nonexistent/aeronrs", 0, log_line));
}

int main(void)
{
    const char *vectors = getenv("AERONRS_VECTORS_DIR");
    snprintf(g_vectors, sizeof(g_vectors), "%s", NULL != vectors ? vectors : AERONRS_DEFAULT_VECTORS_DIR);
    char readme[1100];
    snprintf(readme, sizeof(readme), "%s/README.md", g_vectors);
    if (access(readme, R_OK) != 0)
    {
        const char *require = getenv("AERONRS_REQUIRE_VECTORS");
        if (NULL != require && 0 == strcmp(require, "1"))
        {
            fprintf(stderr, "golden vectors not found at %s and AERONRS_REQUIRE_VECTORS=1\n", g_vectors);
            return 1;
        }
        printf("SKIP: golden vectors not found at %s (set AERONRS_VECTORS_DIR)\n", g_vectors);
        return 77;
    }

    CHECK(mkdtemp(g_root) != NULL);
    RUN(fresh_driver);
    RUN(driver_with_clients);
    RUN(driver_with_errors);
    RUN(init_errors);
    CHECK_EQ_LL(aeron_delete_directory(g_root), 0);
    return 0;
}
