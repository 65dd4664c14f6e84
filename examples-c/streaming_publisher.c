/* Streams messages as fast as the subscribers take them, printing the rate each second
 * and totals at the end. The options are those of Aeron's streaming_publisher. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aeronc.h"
#include "sample_util.h"

static const char usage[] =
    "[-h][-v][-c uri][-L length][-l linger][-m messages][-p prefix][-s stream-id]\n"
    "    -h               help\n"
    "    -v               show version and exit\n"
    "    -c uri           use channel specified in uri\n"
    "    -L length        use message length of length bytes\n"
    "    -l linger        linger at end of publishing for linger seconds\n"
    "    -m messages      number of messages to send\n"
    "    -p prefix        aeron.dir location specified as prefix\n"
    "    -s stream-id     stream-id to use\n";

int main(int argc, char **argv)
{
    const char *channel = DEFAULT_CHANNEL;
    const char *aeron_dir = NULL;
    uint64_t linger_ns = DEFAULT_LINGER_TIMEOUT_MS * UINT64_C(1000000);
    uint64_t messages = DEFAULT_NUMBER_OF_MESSAGES;
    uint64_t message_length = DEFAULT_MESSAGE_LENGTH;
    int32_t stream_id = DEFAULT_STREAM_ID;
    int opt;
    while ((opt = getopt(argc, argv, "hvc:L:l:m:p:s:")) != -1)
    {
        switch (opt)
        {
            case 'c':
                channel = optarg;
                break;
            case 'L':
                if (aeron_parse_size64(optarg, &message_length) < 0)
                {
                    fprintf(stderr, "malformed message length %s: %s\n", optarg, aeron_errmsg());
                    return EXIT_FAILURE;
                }
                break;
            case 'l':
                if (aeron_parse_duration_ns(optarg, &linger_ns) < 0)
                {
                    fprintf(stderr, "malformed linger %s: %s\n", optarg, aeron_errmsg());
                    return EXIT_FAILURE;
                }
                break;
            case 'm':
                if (aeron_parse_size64(optarg, &messages) < 0)
                {
                    fprintf(stderr, "malformed number of messages %s: %s\n", optarg, aeron_errmsg());
                    return EXIT_FAILURE;
                }
                break;
            case 'p':
                aeron_dir = optarg;
                break;
            case 's':
                stream_id = (int32_t)strtoul(optarg, NULL, 0);
                break;
            case 'v':
                print_version(argv[0]);
                return EXIT_SUCCESS;
            case 'h':
            default:
                fprintf(stderr, "Usage: %s %s", argv[0], usage);
                return EXIT_FAILURE;
        }
    }
    if (message_length < sizeof(uint64_t))
    {
        fprintf(stderr, "message length must be at least %zu bytes (the sequence number)\n", sizeof(uint64_t));
        return EXIT_FAILURE;
    }

    install_signal_handlers();
    int status = EXIT_FAILURE;
    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    aeron_async_add_publication_t *async = NULL;
    aeron_publication_t *publication = NULL;
    uint8_t *message = NULL;
    rate_reporter_t *reporter = NULL;
    bool reporting = false;
    if (aeron_alloc((void **)&message, message_length) < 0 || aeron_alloc((void **)&reporter, sizeof(*reporter)) < 0)
    {
        fprintf(stderr, "allocating: %s\n", aeron_errmsg());
        goto cleanup;
    }
    memset(message, 0, message_length);
    printf("Streaming %" PRIu64 " messages of payload length %" PRIu64 " bytes to %s on stream id %" PRId32 "\n",
        messages, message_length, channel, stream_id);
    if (connect_client(&context, &aeron, aeron_dir) < 0)
    {
        goto cleanup;
    }
    if (aeron_async_add_publication(&async, aeron, channel, stream_id) < 0)
    {
        fprintf(stderr, "aeron_async_add_publication: %s\n", aeron_errmsg());
        goto cleanup;
    }
    while (NULL == publication)
    {
        if (aeron_async_add_publication_poll(&publication, async) < 0)
        {
            fprintf(stderr, "aeron_async_add_publication_poll: %s\n", aeron_errmsg());
            goto cleanup;
        }
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    printf("Publication channel status %" PRId64 "\n", aeron_publication_channel_status(publication));
    fflush(stdout);
    if (rate_reporter_start(reporter) < 0)
    {
        fprintf(stderr, "rate_reporter_start: %s\n", aeron_errmsg());
        goto cleanup;
    }
    reporting = true;

    uint64_t back_pressured = 0, sent = 0;
    int64_t start_ns = aeron_nano_clock();
    for (uint64_t i = 0; i < messages && is_running(); i++)
    {
        memcpy(message, &i, sizeof(i));
        int64_t result;
        while ((result = aeron_publication_offer(publication, message, message_length, NULL, NULL)) < 0)
        {
            if (AERON_PUBLICATION_CLOSED == result || AERON_PUBLICATION_ERROR == result ||
                AERON_PUBLICATION_MAX_POSITION_EXCEEDED == result)
            {
                fprintf(stderr, "offer failed: %" PRId64 " %s\n", result, aeron_errmsg());
                goto cleanup;
            }
            ++back_pressured;
            if (!is_running())
            {
                break;
            }
            aeron_idle_strategy_busy_spinning_idle(NULL, 0);
        }
        if (result > 0)
        {
            ++sent;
            rate_reporter_on_message(reporter, message_length);
        }
    }
    int64_t duration_ns = aeron_nano_clock() - start_ns;
    printf("Done sending.\n");
    rate_reporter_halt(reporter);
    reporting = false;
    if (duration_ns <= 0)
    {
        duration_ns = 1;
    }
    printf("Publisher back pressure ratio %g\n", sent > 0 ? (double)back_pressured / (double)sent : 0.0);
    printf("Total: %" PRId64 "ms, %.04g msgs/sec, %.04g bytes/sec, totals %" PRIu64 " messages %" PRIu64
        " MB payloads\n",
        duration_ns / 1000000, (double)sent * 1e9 / (double)duration_ns,
        (double)(sent * message_length) * 1e9 / (double)duration_ns, sent,
        sent * message_length / (UINT64_C(1024) * UINT64_C(1024)));
    if (linger_ns > 0)
    {
        printf("Lingering for %" PRIu64 " nanoseconds\n", linger_ns);
        fflush(stdout);
        aeron_nano_sleep(linger_ns);
    }
    status = EXIT_SUCCESS;

cleanup:
    if (reporting)
    {
        rate_reporter_halt(reporter);
    }
    aeron_publication_close(publication, NULL, NULL);
    aeron_close(aeron);
    aeron_context_close(context);
    aeron_free(message);
    aeron_free(reporter);
    return status;
}
