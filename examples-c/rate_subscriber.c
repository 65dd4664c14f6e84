/* Receives messages as fast as they come (busy-spinning), reassembling fragmented ones,
 * and prints the rate each second until interrupted. The options are those of Aeron's
 * rate_subscriber. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "aeronc.h"
#include "sample_util.h"

static const char usage[] =
    "[-h][-v][-c uri][-f fragments][-p prefix][-s stream-id]\n"
    "    -h               help\n"
    "    -v               show version and exit\n"
    "    -c uri           use channel specified in uri\n"
    "    -f limit         limit to fragments per poll\n"
    "    -p prefix        aeron.dir location specified as prefix\n"
    "    -s stream-id     stream-id to use\n";

int main(int argc, char **argv)
{
    const char *channel = DEFAULT_CHANNEL;
    const char *aeron_dir = NULL;
    uint64_t fragment_limit = DEFAULT_FRAGMENT_COUNT_LIMIT;
    int32_t stream_id = DEFAULT_STREAM_ID;
    int opt;
    while ((opt = getopt(argc, argv, "hvc:f:p:s:")) != -1)
    {
        switch (opt)
        {
            case 'c':
                channel = optarg;
                break;
            case 'f':
                if (aeron_parse_size64(optarg, &fragment_limit) < 0 || 0 == fragment_limit)
                {
                    fprintf(stderr, "malformed fragment limit %s: %s\n", optarg, aeron_errmsg());
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

    install_signal_handlers();
    printf("Subscribing to channel %s on Stream ID %" PRId32 "\n", channel, stream_id);
    int status = EXIT_FAILURE;
    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    aeron_async_add_subscription_t *async = NULL;
    aeron_subscription_t *subscription = NULL;
    aeron_fragment_assembler_t *assembler = NULL;
    rate_reporter_t *reporter = NULL;
    bool reporting = false;
    if (aeron_alloc((void **)&reporter, sizeof(*reporter)) < 0)
    {
        fprintf(stderr, "allocating: %s\n", aeron_errmsg());
        goto cleanup;
    }
    if (connect_client(&context, &aeron, aeron_dir) < 0)
    {
        goto cleanup;
    }
    if (aeron_async_add_subscription(
        &async, aeron, channel, stream_id, print_available_image, NULL, print_unavailable_image, NULL) < 0)
    {
        fprintf(stderr, "aeron_async_add_subscription: %s\n", aeron_errmsg());
        goto cleanup;
    }
    while (NULL == subscription)
    {
        if (aeron_async_add_subscription_poll(&subscription, async) < 0)
        {
            fprintf(stderr, "aeron_async_add_subscription_poll: %s\n", aeron_errmsg());
            goto cleanup;
        }
        if (!is_running())
        {
            goto cleanup;
        }
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    printf("Subscription channel status %" PRId64 "\n", aeron_subscription_channel_status(subscription));
    fflush(stdout);
    if (aeron_fragment_assembler_create(&assembler, rate_reporter_poll_handler, reporter) < 0)
    {
        fprintf(stderr, "aeron_fragment_assembler_create: %s\n", aeron_errmsg());
        goto cleanup;
    }
    if (rate_reporter_start(reporter) < 0)
    {
        fprintf(stderr, "rate_reporter_start: %s\n", aeron_errmsg());
        goto cleanup;
    }
    reporting = true;
    while (is_running())
    {
        int fragments = aeron_subscription_poll(
            subscription, aeron_fragment_assembler_handler, assembler, (size_t)fragment_limit);
        if (fragments < 0)
        {
            fprintf(stderr, "aeron_subscription_poll: %s\n", aeron_errmsg());
            goto cleanup;
        }
        aeron_idle_strategy_busy_spinning_idle(NULL, fragments);
    }
    printf("Shutting down...\n");
    status = EXIT_SUCCESS;

cleanup:
    if (reporting)
    {
        rate_reporter_halt(reporter);
    }
    aeron_subscription_close(subscription, NULL, NULL);
    aeron_close(aeron);
    aeron_context_close(context);
    aeron_fragment_assembler_delete(assembler);
    aeron_free(reporter);
    return status;
}
