/* Prints every message arriving on a channel and stream until interrupted. The options are
 * those of Aeron's basic_subscriber. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "aeronc.h"
#include "sample_util.h"

static const char usage[] =
    "[-h][-v][-c uri][-p prefix][-s stream-id]\n"
    "    -h               help\n"
    "    -v               show version and exit\n"
    "    -c uri           use channel specified in uri\n"
    "    -p prefix        aeron.dir location specified as prefix\n"
    "    -s stream-id     stream-id to use\n";

static void print_message(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    aeron_header_values_t values;
    (void)clientd;
    if (aeron_header_values(header, &values) < 0)
    {
        fprintf(stderr, "aeron_header_values: %s\n", aeron_errmsg());
        return;
    }
    printf("Message to stream %" PRId32 " from session %" PRId32 " (%zu bytes) <<%.*s>>\n",
        values.frame.stream_id, values.frame.session_id, length, (int)length, (const char *)buffer);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *channel = DEFAULT_CHANNEL;
    const char *aeron_dir = NULL;
    int32_t stream_id = DEFAULT_STREAM_ID;
    int opt;
    while ((opt = getopt(argc, argv, "hvc:p:s:")) != -1)
    {
        switch (opt)
        {
            case 'c':
                channel = optarg;
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
    aeron_subscription_t *subscription = NULL;
    aeron_async_add_subscription_t *async = NULL;
    aeron_fragment_assembler_t *assembler = NULL;
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
        if (NULL == subscription)
        {
            aeron_micro_sleep(1000);
        }
    }
    printf("Subscription channel status %" PRId64 "\n", aeron_subscription_channel_status(subscription));
    fflush(stdout);
    if (aeron_fragment_assembler_create(&assembler, print_message, NULL) < 0)
    {
        fprintf(stderr, "aeron_fragment_assembler_create: %s\n", aeron_errmsg());
        goto cleanup;
    }
    while (is_running())
    {
        int fragments = aeron_subscription_poll(
            subscription, aeron_fragment_assembler_handler, assembler, DEFAULT_FRAGMENT_COUNT_LIMIT);
        if (fragments < 0)
        {
            fprintf(stderr, "aeron_subscription_poll: %s\n", aeron_errmsg());
            goto cleanup;
        }
        if (0 == fragments)
        {
            aeron_micro_sleep(1000);
        }
    }
    printf("Shutting down...\n");
    status = EXIT_SUCCESS;

cleanup:
    aeron_subscription_close(subscription, NULL, NULL);
    aeron_close(aeron);
    aeron_context_close(context);
    aeron_fragment_assembler_delete(assembler);
    return status;
}
