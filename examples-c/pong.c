/* Echoes every ping (see `ping`) back on the pong channel until interrupted, busy-spinning.
 * The options are those of Aeron's cpong. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "aeronc.h"
#include "sample_util.h"

static const char usage[] =
    "[-h][-v][-C uri][-c uri][-p prefix][-S stream-id][-s stream-id]\n"
    "    -h               help\n"
    "    -v               show version and exit\n"
    "    -C uri           use channel specified in uri for pong channel\n"
    "    -c uri           use channel specified in uri for ping channel\n"
    "    -p prefix        aeron.dir location specified as prefix\n"
    "    -S stream-id     stream-id to use for pong channel\n"
    "    -s stream-id     stream-id to use for ping channel\n";

static void on_ping(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    aeron_exclusive_publication_t *publication = (aeron_exclusive_publication_t *)clientd;
    (void)header;
    int64_t result;
    while ((result = aeron_exclusive_publication_offer(publication, buffer, length, NULL, NULL)) < 0 &&
        result != AERON_PUBLICATION_CLOSED && is_running())
    {
        aeron_idle_strategy_busy_spinning_idle(NULL, 0);
    }
}

int main(int argc, char **argv)
{
    const char *pong_channel = DEFAULT_PONG_CHANNEL;
    const char *ping_channel = DEFAULT_PING_CHANNEL;
    const char *aeron_dir = NULL;
    int32_t pong_stream_id = DEFAULT_PONG_STREAM_ID;
    int32_t ping_stream_id = DEFAULT_PING_STREAM_ID;
    int opt;
    while ((opt = getopt(argc, argv, "hvC:c:p:S:s:")) != -1)
    {
        switch (opt)
        {
            case 'C':
                pong_channel = optarg;
                break;
            case 'c':
                ping_channel = optarg;
                break;
            case 'p':
                aeron_dir = optarg;
                break;
            case 'S':
                pong_stream_id = (int32_t)strtoul(optarg, NULL, 0);
                break;
            case 's':
                ping_stream_id = (int32_t)strtoul(optarg, NULL, 0);
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
    printf("Subscribing Ping at channel %s on Stream ID %" PRId32 "\n", ping_channel, ping_stream_id);
    printf("Publishing Pong at channel %s on Stream ID %" PRId32 "\n", pong_channel, pong_stream_id);
    int status = EXIT_FAILURE;
    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    aeron_async_add_subscription_t *async_subscription = NULL;
    aeron_async_add_exclusive_publication_t *async_publication = NULL;
    aeron_subscription_t *subscription = NULL;
    aeron_exclusive_publication_t *publication = NULL;
    aeron_image_t *image = NULL;
    aeron_image_fragment_assembler_t *assembler = NULL;
    if (connect_client(&context, &aeron, aeron_dir) < 0)
    {
        goto cleanup;
    }
    if (aeron_async_add_subscription(&async_subscription, aeron, ping_channel, ping_stream_id,
        print_available_image, NULL, print_unavailable_image, NULL) < 0)
    {
        fprintf(stderr, "aeron_async_add_subscription: %s\n", aeron_errmsg());
        goto cleanup;
    }
    while (NULL == subscription)
    {
        if (aeron_async_add_subscription_poll(&subscription, async_subscription) < 0)
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
    if (aeron_async_add_exclusive_publication(&async_publication, aeron, pong_channel, pong_stream_id) < 0)
    {
        fprintf(stderr, "aeron_async_add_exclusive_publication: %s\n", aeron_errmsg());
        goto cleanup;
    }
    while (NULL == publication)
    {
        if (aeron_async_add_exclusive_publication_poll(&publication, async_publication) < 0)
        {
            fprintf(stderr, "aeron_async_add_exclusive_publication_poll: %s\n", aeron_errmsg());
            goto cleanup;
        }
        if (!is_running())
        {
            goto cleanup;
        }
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    printf("Publication channel status %" PRId64 "\n", aeron_exclusive_publication_channel_status(publication));
    fflush(stdout);
    while (!aeron_subscription_is_connected(subscription))
    {
        if (!is_running())
        {
            goto cleanup;
        }
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    if (NULL == (image = aeron_subscription_image_at_index(subscription, 0)))
    {
        fprintf(stderr, "could not find the ping image\n");
        goto cleanup;
    }
    if (aeron_image_fragment_assembler_create(&assembler, on_ping, publication) < 0)
    {
        fprintf(stderr, "aeron_image_fragment_assembler_create: %s\n", aeron_errmsg());
        goto cleanup;
    }
    while (is_running())
    {
        int fragments = aeron_image_poll(
            image, aeron_image_fragment_assembler_handler, assembler, DEFAULT_FRAGMENT_COUNT_LIMIT);
        if (fragments < 0)
        {
            fprintf(stderr, "aeron_image_poll: %s\n", aeron_errmsg());
            goto cleanup;
        }
        aeron_idle_strategy_busy_spinning_idle(NULL, fragments);
    }
    printf("Shutting down...\n");
    status = EXIT_SUCCESS;

cleanup:
    if (NULL != image)
    {
        aeron_subscription_image_release(subscription, image);
    }
    aeron_subscription_close(subscription, NULL, NULL);
    aeron_exclusive_publication_close(publication, NULL, NULL);
    aeron_close(aeron);
    aeron_context_close(context);
    aeron_image_fragment_assembler_delete(assembler);
    return status;
}
