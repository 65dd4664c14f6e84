/* Round-trip latency: sends timestamped pings on an exclusive publication, waits for each
 * pong (echoed by `pong`) on the image of its subscription, and prints the percentiles of
 * the round trips after a warm-up. The options are those of Aeron's cping; both sides
 * busy-spin. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aeronc.h"
#include "sample_util.h"

static const char usage[] =
    "[-h][-v][-C uri][-c uri][-L length][-m messages][-p prefix][-S stream-id][-s stream-id][-w messages]\n"
    "    -h               help\n"
    "    -v               show version and exit\n"
    "    -C uri           use channel specified in uri for pong channel\n"
    "    -c uri           use channel specified in uri for ping channel\n"
    "    -L length        use message length of length bytes\n"
    "    -m messages      number of messages to send\n"
    "    -p prefix        aeron.dir location specified as prefix\n"
    "    -S stream-id     stream-id to use for pong channel\n"
    "    -s stream-id     stream-id to use for ping channel\n"
    "    -w messages      number of warm up messages to send\n";

typedef struct
{
    uint64_t received;
    latency_histogram_t histogram;
}
pong_state_t;

static void on_pong(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    pong_state_t *state = (pong_state_t *)clientd;
    int64_t sent_ns;
    (void)header;
    if (length < sizeof(sent_ns))
    {
        return;
    }
    memcpy(&sent_ns, buffer, sizeof(sent_ns));
    latency_histogram_record(&state->histogram, (uint64_t)(aeron_nano_clock() - sent_ns));
    state->received++;
}

/* Sends `count` pings, each only after the previous pong arrived. */
static void ping_pong(aeron_exclusive_publication_t *publication, aeron_image_t *image,
    aeron_image_fragment_assembler_t *assembler, pong_state_t *state, uint64_t count, uint8_t *message,
    size_t length)
{
    state->received = 0;
    for (uint64_t i = 0; i < count && is_running(); i++)
    {
        int64_t result;
        do
        {
            int64_t now_ns = aeron_nano_clock();
            memcpy(message, &now_ns, sizeof(now_ns));
            result = aeron_exclusive_publication_offer(publication, message, length, NULL, NULL);
        }
        while (result < 0 && result != AERON_PUBLICATION_CLOSED && is_running());
        while (state->received < i + 1 && is_running())
        {
            int fragments = aeron_image_poll(
                image, aeron_image_fragment_assembler_handler, assembler, DEFAULT_FRAGMENT_COUNT_LIMIT);
            aeron_idle_strategy_busy_spinning_idle(NULL, fragments);
        }
    }
}

int main(int argc, char **argv)
{
    const char *pong_channel = DEFAULT_PONG_CHANNEL;
    const char *ping_channel = DEFAULT_PING_CHANNEL;
    const char *aeron_dir = NULL;
    uint64_t messages = DEFAULT_NUMBER_OF_MESSAGES;
    uint64_t message_length = DEFAULT_MESSAGE_LENGTH;
    uint64_t warm_up_messages = DEFAULT_NUMBER_OF_WARM_UP_MESSAGES;
    int32_t pong_stream_id = DEFAULT_PONG_STREAM_ID;
    int32_t ping_stream_id = DEFAULT_PING_STREAM_ID;
    int opt;
    while ((opt = getopt(argc, argv, "hvC:c:L:m:p:S:s:w:")) != -1)
    {
        switch (opt)
        {
            case 'C':
                pong_channel = optarg;
                break;
            case 'c':
                ping_channel = optarg;
                break;
            case 'L':
                if (aeron_parse_size64(optarg, &message_length) < 0)
                {
                    fprintf(stderr, "malformed message length %s: %s\n", optarg, aeron_errmsg());
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
            case 'S':
                pong_stream_id = (int32_t)strtoul(optarg, NULL, 0);
                break;
            case 's':
                ping_stream_id = (int32_t)strtoul(optarg, NULL, 0);
                break;
            case 'w':
                if (aeron_parse_size64(optarg, &warm_up_messages) < 0)
                {
                    fprintf(stderr, "malformed number of warm up messages %s: %s\n", optarg, aeron_errmsg());
                    return EXIT_FAILURE;
                }
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
    if (message_length < sizeof(int64_t))
    {
        fprintf(stderr, "message length must be at least %zu bytes (the timestamp)\n", sizeof(int64_t));
        return EXIT_FAILURE;
    }

    install_signal_handlers();
    printf("Publishing Ping at channel %s on Stream ID %" PRId32 "\n", ping_channel, ping_stream_id);
    printf("Subscribing Pong at channel %s on Stream ID %" PRId32 "\n", pong_channel, pong_stream_id);
    int status = EXIT_FAILURE;
    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    aeron_async_add_subscription_t *async_subscription = NULL;
    aeron_async_add_exclusive_publication_t *async_publication = NULL;
    aeron_subscription_t *subscription = NULL;
    aeron_exclusive_publication_t *publication = NULL;
    aeron_image_t *image = NULL;
    aeron_image_fragment_assembler_t *assembler = NULL;
    uint8_t *message = NULL;
    pong_state_t *state = NULL;
    if (connect_client(&context, &aeron, aeron_dir) < 0)
    {
        goto cleanup;
    }
    if (aeron_async_add_subscription(&async_subscription, aeron, pong_channel, pong_stream_id,
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
    if (aeron_async_add_exclusive_publication(&async_publication, aeron, ping_channel, ping_stream_id) < 0)
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
        fprintf(stderr, "could not find the pong image\n");
        goto cleanup;
    }
    if (aeron_alloc((void **)&message, message_length) < 0 || aeron_alloc((void **)&state, sizeof(*state)) < 0)
    {
        fprintf(stderr, "could not allocate: %s\n", aeron_errmsg());
        goto cleanup;
    }
    memset(message, 0, message_length);
    latency_histogram_reset(&state->histogram);
    if (aeron_image_fragment_assembler_create(&assembler, on_pong, state) < 0)
    {
        fprintf(stderr, "aeron_image_fragment_assembler_create: %s\n", aeron_errmsg());
        goto cleanup;
    }

    printf("Warming up the media driver with %" PRIu64 " messages of length %" PRIu64 " bytes\n", warm_up_messages,
        message_length);
    int64_t start_ns = aeron_nano_clock();
    ping_pong(publication, image, assembler, state, warm_up_messages, message, message_length);
    printf("Warm up complete in %" PRId64 "ns\n", aeron_nano_clock() - start_ns);
    printf("Pinging %" PRIu64 " messages of length %" PRIu64 " bytes\n", messages, message_length);
    fflush(stdout);
    latency_histogram_reset(&state->histogram);
    start_ns = aeron_nano_clock();
    ping_pong(publication, image, assembler, state, messages, message, message_length);
    double elapsed_s = (double)(aeron_nano_clock() - start_ns) / 1e9;
    latency_histogram_print(&state->histogram, "round trips", elapsed_s);
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
    aeron_free(message);
    aeron_free(state);
    return status;
}
