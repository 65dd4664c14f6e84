/* The aeronrs_mapped_bus_* C API: configuration, errors, both record modes, start
 * positions, rollback of a record whose writer died, and two processes (fork) writing and
 * reading one bus at once. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aeronc.h"
#include "test_util.h"

static char g_dir[256];

static void make_temp_dir(void)
{
    strcpy(g_dir, "/tmp/aeronrs_bus_XXXXXX");
    CHECK(mkdtemp(g_dir) != NULL);
}

static void remove_temp_dir(void)
{
    DIR *dir = opendir(g_dir);
    struct dirent *entry;
    char path[512];
    CHECK(dir != NULL);
    while ((entry = readdir(dir)) != NULL)
    {
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
        {
            snprintf(path, sizeof(path), "%s/%s", g_dir, entry->d_name);
            CHECK(unlink(path) == 0);
        }
    }
    closedir(dir);
    CHECK(rmdir(g_dir) == 0);
}

static void bus_path(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", g_dir, name);
}

static aeronrs_mapped_bus_config_t fixed_config(uint64_t segment_length, uint32_t record_size)
{
    aeronrs_mapped_bus_config_t config;
    CHECK(aeronrs_mapped_bus_config_init(&config) == 0);
    config.record_mode = AERONRS_MAPPED_BUS_RECORD_MODE_FIXED_SIZE;
    config.segment_length = segment_length;
    config.record_size = record_size;
    return config;
}

/* Polls until a record arrives, for at most ~10 s. */
static void poll_one(aeronrs_mapped_bus_reader_t *reader, aeronrs_mapped_bus_record_t *record)
{
    int rc = 0;
    for (int i = 0; i < 1000000 && rc == 0; i++)
    {
        rc = aeronrs_mapped_bus_reader_poll(reader, record);
        if (rc == 0)
        {
            usleep(10);
        }
    }
    CHECK_EQ_LL(rc, 1);
}

static void config_init_sets_defaults(void)
{
    aeronrs_mapped_bus_config_t config;
    CHECK(aeronrs_mapped_bus_config_init(&config) == 0);
    CHECK_EQ_LL(config.record_mode, AERONRS_MAPPED_BUS_RECORD_MODE_VARIABLE_LENGTH);
    CHECK_EQ_LL(config.segment_length, 64 * 1024 * 1024);
    CHECK_EQ_LL(config.rollback_timeout_ns, 2000000000LL);
    CHECK(config.prefault);
    CHECK_EQ_LL(aeronrs_mapped_bus_config_init(NULL), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
}

static void bad_arguments_fail_with_errors(void)
{
    char path[512];
    aeronrs_mapped_bus_writer_t *writer = NULL;
    aeronrs_mapped_bus_reader_t *reader = NULL;
    aeronrs_mapped_bus_record_t record;
    aeronrs_mapped_bus_config_t config = fixed_config(4096, 12);
    bus_path(path, sizeof(path), "bad");

    CHECK_EQ_LL(aeronrs_mapped_bus_writer_open(NULL, path, &config), -1);
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_open(&writer, NULL, &config), -1);
    CHECK(strstr(aeron_errmsg(), "path must not be NULL") != NULL);
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_open(&writer, path, NULL), -1);
    config.record_mode = 7;
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_open(&writer, path, &config), -1);
    CHECK(strstr(aeron_errmsg(), "unknown record_mode 7") != NULL);
    config = fixed_config(4096, 13);
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_open(&writer, path, &config), -1);
    CHECK(strstr(aeron_errmsg(), "multiple of 4") != NULL);
    config = fixed_config(4096, 12);
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_open(&reader, path, &config, 9, NULL), -1);
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_open(&reader, path, &config, AERONRS_MAPPED_BUS_START_AT_POSITION, NULL), -1);
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_write(NULL, (const uint8_t *)"x", 1, NULL), -1);
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_poll(NULL, &record), -1);
    CHECK(!aeronrs_mapped_bus_reader_has_recovered(NULL));
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_close(NULL), 0);
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_close(NULL), 0);

    /* A file of the wrong length is not a bus file, and is left as it was. */
    int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, 5000) == 0);
    close(fd);
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_open(&writer, path, &config), -1);
    CHECK_EQ_LL(aeron_errcode(), EINVAL);
    CHECK(strstr(aeron_errmsg(), "expected 4096") != NULL);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK_EQ_LL(st.st_size, 5000);
}

static void fixed_size_round_trip(void)
{
    char path[512];
    aeronrs_mapped_bus_writer_t *writer = NULL;
    aeronrs_mapped_bus_reader_t *reader = NULL;
    aeronrs_mapped_bus_record_t record;
    aeronrs_mapped_bus_position_t position;
    aeronrs_mapped_bus_config_t config = fixed_config(1000, 12);
    const int32_t price_update[3] = { 1, 2, 3 };
    bus_path(path, sizeof(path), "fixed");

    CHECK(aeronrs_mapped_bus_writer_open(&writer, path, &config) == 0);
    CHECK(aeronrs_mapped_bus_reader_open(&reader, path, &config, AERONRS_MAPPED_BUS_START_REPLAY, NULL) == 0);
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_poll(reader, &record), 0);
    CHECK(aeronrs_mapped_bus_writer_write_typed(
        writer, 5, (const uint8_t *)price_update, sizeof(price_update), &position) == 0);
    CHECK_EQ_LL(position.segment, 0);
    CHECK_EQ_LL(position.offset, 8);
    CHECK(aeronrs_mapped_bus_writer_write(writer, (const uint8_t *)"hello", 5, &position) == 0);
    CHECK_EQ_LL(position.offset, 28);
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_write(writer, (const uint8_t *)"0123456789abc", 13, NULL), -1);
    CHECK(strstr(aeron_errmsg(), "exceeds") != NULL);
    CHECK(aeronrs_mapped_bus_writer_flush(writer) == 0);

    CHECK_EQ_LL(aeronrs_mapped_bus_reader_poll(reader, &record), 1);
    CHECK_EQ_LL(record.metadata, 5);
    CHECK_EQ_LL(record.body_length, 12);
    CHECK(memcmp(record.body, price_update, 12) == 0);
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_poll(reader, &record), 1);
    CHECK_EQ_LL(record.position.offset, 28);
    CHECK_EQ_LL(record.metadata, 5);
    CHECK(memcmp(record.body, "hello", 5) == 0);
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_poll(reader, &record), 0);
    CHECK(aeronrs_mapped_bus_reader_has_recovered(reader));
    CHECK(aeronrs_mapped_bus_reader_position(reader, &position) == 0);
    CHECK_EQ_LL(position.offset, 48);
    CHECK(aeronrs_mapped_bus_reader_close(reader) == 0);

    /* The Mappedbus bytes: limit 48, then status 1 | type 5 | 1,2,3. */
    unsigned char bytes[48];
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ_LL(pread(fd, bytes, sizeof(bytes), 0), 48);
    close(fd);
    const unsigned char expected[28] = { 48, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0 };
    CHECK(memcmp(bytes, expected, sizeof(expected)) == 0);

    /* Starting at a saved position reads from that record on. */
    position.segment = 0;
    position.offset = 28;
    CHECK(aeronrs_mapped_bus_reader_open(&reader, path, &config, AERONRS_MAPPED_BUS_START_AT_POSITION, &position) == 0);
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_poll(reader, &record), 1);
    CHECK(memcmp(record.body, "hello", 5) == 0);
    CHECK(aeronrs_mapped_bus_reader_close(reader) == 0);
    position.offset = 30;
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_open(&reader, path, &config, AERONRS_MAPPED_BUS_START_AT_POSITION, &position), -1);
    CHECK(aeronrs_mapped_bus_writer_close(writer) == 0);
}

static void variable_length_and_dead_writer_rollback(void)
{
    char path[512];
    aeronrs_mapped_bus_writer_t *writer = NULL;
    aeronrs_mapped_bus_reader_t *reader = NULL;
    aeronrs_mapped_bus_record_t record;
    aeronrs_mapped_bus_position_t position;
    aeronrs_mapped_bus_config_t config;
    CHECK(aeronrs_mapped_bus_config_init(&config) == 0);
    config.segment_length = 4096;
    config.rollback_timeout_ns = 1000000;
    bus_path(path, sizeof(path), "variable");

    CHECK(aeronrs_mapped_bus_writer_open(&writer, path, &config) == 0);
    CHECK(aeronrs_mapped_bus_writer_write(writer, (const uint8_t *)"first", 5, &position) == 0);
    CHECK_EQ_LL(position.offset, 8);
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_write_typed(writer, 1, NULL, 0, NULL), -1);

    /* A writer allocated 24 bytes at 24 and died: bump limit by hand, leave it zero. */
    int fd = open(path, O_RDWR);
    int64_t limit = 0;
    CHECK(fd >= 0);
    CHECK_EQ_LL(pread(fd, &limit, sizeof(limit), 0), 8);
    CHECK_EQ_LL(limit, 24);
    limit += 24;
    CHECK_EQ_LL(pwrite(fd, &limit, sizeof(limit), 0), 8);
    CHECK(aeronrs_mapped_bus_writer_write(writer, NULL, 0, &position) == 0);
    CHECK_EQ_LL(position.offset, 48);

    CHECK(aeronrs_mapped_bus_reader_open(&reader, path, &config, AERONRS_MAPPED_BUS_START_REPLAY, NULL) == 0);
    poll_one(reader, &record);
    CHECK_EQ_LL(record.body_length, 5);
    CHECK(memcmp(record.body, "first", 5) == 0);
    poll_one(reader, &record);
    CHECK_EQ_LL(record.position.offset, 48);
    CHECK_EQ_LL(record.body_length, 0);
    int32_t status = 0;
    CHECK_EQ_LL(pread(fd, &status, sizeof(status), 24), 4);
    CHECK_EQ_LL(status, 2);
    close(fd);

    char big[4081] = { 0 };
    CHECK_EQ_LL(aeronrs_mapped_bus_writer_write(writer, (const uint8_t *)big, sizeof(big), NULL), -1);
    CHECK(aeronrs_mapped_bus_reader_close(reader) == 0);
    CHECK(aeronrs_mapped_bus_writer_close(writer) == 0);
}

#define TWO_PROCESS_RECORDS 100000

/* Writes TWO_PROCESS_RECORDS records {writer id, seq}, then reads the whole bus back and
 * checks each writer's records arrive once each, in order. Returns 0 when all is well. */
static int write_then_read_all(const char *path, const aeronrs_mapped_bus_config_t *config, uint32_t id)
{
    aeronrs_mapped_bus_writer_t *writer = NULL;
    aeronrs_mapped_bus_reader_t *reader = NULL;
    aeronrs_mapped_bus_record_t record;
    uint64_t next[2] = { 0, 0 };
    uint64_t total = 0;
    unsigned char payload[12];

    CHECK(aeronrs_mapped_bus_reader_open(&reader, path, config, AERONRS_MAPPED_BUS_START_REPLAY, NULL) == 0);
    CHECK(aeronrs_mapped_bus_writer_open(&writer, path, config) == 0);
    for (uint64_t seq = 0; seq < TWO_PROCESS_RECORDS; seq++)
    {
        memcpy(payload, &id, 4);
        memcpy(payload + 4, &seq, 8);
        int rc;
        while ((rc = aeronrs_mapped_bus_writer_write(writer, payload, sizeof(payload), NULL)) ==
            AERONRS_MAPPED_BUS_ROLLED_BACK)
        {
        }
        CHECK_EQ_LL(rc, 0);
    }
    time_t deadline = time(NULL) + 60;
    while (total < 2 * TWO_PROCESS_RECORDS)
    {
        int rc = aeronrs_mapped_bus_reader_poll(reader, &record);
        CHECK(rc >= 0);
        if (rc == 0)
        {
            CHECK(time(NULL) < deadline);
            usleep(50);
            continue;
        }
        uint32_t from;
        uint64_t seq;
        CHECK_EQ_LL(record.body_length, 12);
        memcpy(&from, record.body, 4);
        memcpy(&seq, record.body + 4, 8);
        CHECK(from < 2);
        CHECK_EQ_LL(seq, next[from]);
        next[from]++;
        total++;
    }
    CHECK_EQ_LL(aeronrs_mapped_bus_reader_poll(reader, &record), 0);
    CHECK(aeronrs_mapped_bus_reader_close(reader) == 0);
    CHECK(aeronrs_mapped_bus_writer_close(writer) == 0);
    return 0;
}

static void two_processes_write_and_read_one_bus(void)
{
    char path[512];
    aeronrs_mapped_bus_config_t config;
    CHECK(aeronrs_mapped_bus_config_init(&config) == 0);
    config.segment_length = 256 * 1024; /* 200000 records of 24 bytes: roll-over too */
    bus_path(path, sizeof(path), "shared");

    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0)
    {
        _exit(write_then_read_all(path, &config, 1));
    }
    CHECK_EQ_LL(write_then_read_all(path, &config, 0), 0);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK_EQ_LL(WEXITSTATUS(status), 0);
    char second_segment[600];
    snprintf(second_segment, sizeof(second_segment), "%s.1", path);
    CHECK(access(second_segment, F_OK) == 0);
}

int main(void)
{
    make_temp_dir();
    RUN(config_init_sets_defaults);
    RUN(bad_arguments_fail_with_errors);
    RUN(fixed_size_round_trip);
    RUN(variable_length_and_dead_writer_rollback);
    RUN(two_processes_write_and_read_one_bus);
    remove_temp_dir();
    return 0;
}
