/* Publishes "Hello World! <n>" messages (or MTU-filling ones with -f) once a second,
 * saying what happened to each offer. The options are those of Aeron's basic_publisher. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aeronc.h"
#include "sample_util.h"

static const char usage[] =
    "[-h][-v][-f][-c uri][-l linger][-m messages][-p prefix][-s stream-id]\n"
    "    -h               help\n"
    "    -v               show version and exit\n"
    "    -f               use a message that fills the whole MTU\n"
    "    -c uri           use channel specified in uri\n"
    "    -l linger        linger at end of publishing for linger seconds\n"
    "    -m messages      number of messages to send\n"
    "    -p prefix        aeron.dir location specified as prefix\n"
    "    -s stream-id     stream-id to use\n";

/* Lines of text up to `length` bytes. */
static size_t fill_message(char *buffer, size_t length)
{
    size_t used = 0;
    for (int line = 0; used + 1 < length; line++)
    {
        int written = snprintf(buffer + used, length - used,
            "[%3d] a line of text to fill a message as long as the MTU allows ...\n", line);
        if (written < 0)
        {
            break;
        }
        used += (size_t)written < length - used ? (size_t)written : length - used - 1;
    }
    return used;
}

static const char *describe(int64_t result)
{
    switch (result)
    {
        case AERON_PUBLICATION_BACK_PRESSURED:
            return "Offer failed due to back pressure";
        case AERON_PUBLICATION_NOT_CONNECTED:
            return "Offer failed because publisher is not connected to a subscriber";
        case AERON_PUBLICATION_ADMIN_ACTION:
            return "Offer failed because of an administration action in the system";
        case AERON_PUBLICATION_CLOSED:
            return "Offer failed because publication is closed";
        case AERON_PUBLICATION_MAX_POSITION_EXCEEDED:
            return "Offer failed due to publication reaching max position";
        default:
            return "Offer failed due to an error";
    }
}

int main(int argc, char **argv)
{
    const char *channel = DEFAULT_CHANNEL;
    const char *aeron_dir = NULL;
    uint64_t linger_ns = DEFAULT_LINGER_TIMEOUT_MS * UINT64_C(1000000);
    uint64_t messages = DEFAULT_NUMBER_OF_MESSAGES;
    int32_t stream_id = DEFAULT_STREAM_ID;
    bool fill_mtu = false;
    int opt;
    while ((opt = getopt(argc, argv, "hvfc:l:m:p:s:")) != -1)
    {
        switch (opt)
        {
            case 'c':
                channel = optarg;
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
            case 'f':
                fill_mtu = true;
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
    printf("Publishing to channel %s on Stream ID %" PRId32 "\n", channel, stream_id);
    int status = EXIT_FAILURE;
    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    aeron_publication_t *publication = NULL;
    aeron_async_add_publication_t *async = NULL;
    char message[8192];
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
        if (NULL == publication)
        {
            aeron_micro_sleep(1000);
        }
    }
    printf("Publication channel status %" PRId64 "\n", aeron_publication_channel_status(publication));

    size_t fill_length = 0;
    if (fill_mtu)
    {
        aeron_publication_constants_t constants;
        aeron_publication_constants(publication, &constants);
        size_t max = constants.max_payload_length < sizeof(message) ? constants.max_payload_length : sizeof(message);
        fill_length = fill_message(message, max);
        printf("Using message of %zu bytes\n", fill_length);
    }

    for (uint64_t i = 0; i < messages && is_running(); i++)
    {
        size_t length = fill_length;
        if (!fill_mtu)
        {
            length = (size_t)snprintf(message, sizeof(message), "Hello World! %" PRIu64, i);
        }
        printf("offering %" PRIu64 "/%" PRIu64 " - ", i, messages);
        int64_t result = aeron_publication_offer(publication, (const uint8_t *)message, length, NULL, NULL);
        if (result > 0)
        {
            printf("yay!\n");
        }
        else
        {
            printf("%s (%" PRId64 ")\n", describe(result), result);
        }
        if (!aeron_publication_is_connected(publication))
        {
            printf("No active subscribers detected\n");
        }
        fflush(stdout);
        if (i + 1 < messages)
        {
            aeron_micro_sleep(1000000);
        }
    }
    printf("Done sending.\n");
    if (linger_ns > 0)
    {
        printf("Lingering for %" PRIu64 " nanoseconds\n", linger_ns);
        aeron_nano_sleep(linger_ns);
    }
    status = EXIT_SUCCESS;

cleanup:
    aeron_publication_close(publication, NULL, NULL);
    aeron_close(aeron);
    aeron_context_close(context);
    return status;
}
