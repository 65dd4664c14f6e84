/* Prints the counters of a media driver's CnC (values and labels), refreshing every update
 * period until interrupted, or once with -w false. The options are those of Aeron's
 * aeron_stat. Needs no client: it reads cnc.dat through aeron_cnc_*. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aeronc.h"
#include "sample_util.h"

static const char usage[] =
    "    -h               Displays help information.\n"
    "    -d basePath      Base Path to shared memory. Default: /dev/shm/aeron-[user]\n"
    "    -u update period Update period in milliseconds. Default: 1000\n"
    "    -t timeout       Number of milliseconds to wait to see if the driver metadata is available. Default: 1000\n"
    "    -w watch         Set to 'false' to print stats and exit immediately. Default: true\n";

static void print_error_and_usage(const char *message)
{
    fprintf(stderr, "%s\n%s", message, usage);
}

static void print_counter(int64_t value, int32_t id, int32_t type_id, const uint8_t *key, size_t key_length,
    const char *label, size_t label_length, void *clientd)
{
    char value_text[AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN];
    (void)type_id;
    (void)key;
    (void)key_length;
    (void)clientd;
    printf("%3" PRId32 " : %20s - %.*s\n", id, aeron_format_number_to_locale(value, value_text, sizeof(value_text)),
        (int)label_length, label);
}

static void print_stats(aeron_cnc_t *cnc, const aeron_cnc_constants_t *constants, const char *version)
{
    char now[AERON_FORMAT_DATE_MAX_LENGTH];
    int64_t now_ms = aeron_epoch_clock();
    aeron_format_date(now, sizeof(now), now_ms);
    printf("%s - Aeron Stat (CnC v%s), pid %" PRId64 ", heartbeat age %" PRId64 "ms\n", now, version, constants->pid,
        now_ms - aeron_cnc_to_driver_heartbeat(cnc));
    printf("===========================\n");
    aeron_counters_reader_foreach_counter(aeron_cnc_counters_reader(cnc), print_counter, NULL);
    fflush(stdout);
}

static bool parse_ms(const char *text, int64_t *value)
{
    char *end = NULL;
    errno = 0;
    *value = strtoll(text, &end, 10);
    return 0 == errno && '\0' == end[0] && *value >= 0;
}

int main(int argc, char **argv)
{
    char default_directory[4096];
    if (aeron_default_path(default_directory, sizeof(default_directory)) < 0)
    {
        fprintf(stderr, "aeron_default_path: %s\n", aeron_errmsg());
        return EXIT_FAILURE;
    }
    const char *base_path = default_directory;
    int64_t update_interval_ms = 1000, timeout_ms = 1000;
    bool watch = true;
    int opt;
    while ((opt = getopt(argc, argv, "d:u:t:w:h")) != -1)
    {
        switch (opt)
        {
            case 'd':
                base_path = optarg;
                break;
            case 't':
                if (!parse_ms(optarg, &timeout_ms))
                {
                    print_error_and_usage("Invalid timeout");
                    return EXIT_FAILURE;
                }
                break;
            case 'u':
                if (!parse_ms(optarg, &update_interval_ms))
                {
                    print_error_and_usage("Invalid update interval");
                    return EXIT_FAILURE;
                }
                break;
            case 'w':
                watch = 0 != strcmp(optarg, "false");
                break;
            case 'h':
                print_error_and_usage(argv[0]);
                return EXIT_SUCCESS;
            default:
                print_error_and_usage("Unknown option");
                return EXIT_FAILURE;
        }
    }

    aeron_cnc_t *cnc = NULL;
    if (aeron_cnc_init(&cnc, base_path, timeout_ms) < 0)
    {
        print_error_and_usage(aeron_errmsg());
        return EXIT_FAILURE;
    }
    install_signal_handlers();
    aeron_cnc_constants_t constants;
    aeron_cnc_constants(cnc, &constants);
    char version[16];
    snprintf(version, sizeof(version), "%u.%u.%u", (unsigned)aeron_semantic_version_major(constants.cnc_version),
        (unsigned)aeron_semantic_version_minor(constants.cnc_version),
        (unsigned)aeron_semantic_version_patch(constants.cnc_version));
    if (watch)
    {
        while (is_running())
        {
            printf("\033[2J\033[H");
            print_stats(cnc, &constants, version);
            aeron_micro_sleep((unsigned int)(update_interval_ms * 1000));
        }
    }
    else
    {
        print_stats(cnc, &constants, version);
    }
    aeron_cnc_close(cnc);
    return EXIT_SUCCESS;
}
