/* What one offer and one poll cost through the C API, on one thread with no other core
 * involved: a publication and a subscription of the same IPC stream in one client; 256
 * messages offered (timed), then polled back through a fragment assembler (timed), over
 * and over. No cross-core traffic, so the figures are steady enough to compare the C
 * layer with its Rust twin (examples/offer_poll_cost.rs) to a fraction of a nanosecond;
 * scripts/c-api-cost.sh runs both. Not an Aeron sample. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aeronc.h"
#include "sample_util.h"

#define BATCH 256
#define ROUNDS 3

static const char usage[] = "[-h][-c uri][-L length][-m messages][-p prefix][-s stream-id]\n";

typedef struct
{
    uint64_t messages;
    uint64_t bytes;
}
totals_t;

static void on_message(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    totals_t *totals = (totals_t *)clientd;
    (void)buffer;
    (void)header;
    totals->messages++;
    totals->bytes += length;
}

int main(int argc, char **argv)
{
    const char *channel = "aeron:ipc?term-length=64m";
    const char *aeron_dir = NULL;
    uint64_t messages = 20000000;
    uint64_t length = 32;
    int32_t stream_id = 1010;
    int opt;
    while ((opt = getopt(argc, argv, "hc:L:m:p:s:")) != -1)
    {
        switch (opt)
        {
            case 'c': channel = optarg; break;
            case 'L': length = strtoull(optarg, NULL, 0); break;
            case 'm': messages = strtoull(optarg, NULL, 0); break;
            case 'p': aeron_dir = optarg; break;
            case 's': stream_id = (int32_t)strtol(optarg, NULL, 0); break;
            default:
                fprintf(stderr, "Usage: %s %s", argv[0], usage);
                return EXIT_FAILURE;
        }
    }
    if (length < 8 || length > 4096)
    {
        fprintf(stderr, "length must be 8..4096 bytes\n");
        return EXIT_FAILURE;
    }
    messages -= messages % BATCH;

    int status = EXIT_FAILURE;
    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    aeron_async_add_subscription_t *async_subscription = NULL;
    aeron_subscription_t *subscription = NULL;
    aeron_async_add_publication_t *async_publication = NULL;
    aeron_publication_t *publication = NULL;
    aeron_fragment_assembler_t *assembler = NULL;
    totals_t totals = { 0, 0 };
    uint8_t message[4096] = { 0 };
    if (connect_client(&context, &aeron, aeron_dir) < 0 ||
        aeron_async_add_subscription(&async_subscription, aeron, channel, stream_id, NULL, NULL, NULL, NULL) < 0 ||
        aeron_async_add_publication(&async_publication, aeron, channel, stream_id) < 0)
    {
        fprintf(stderr, "setting up: %s\n", aeron_errmsg());
        goto cleanup;
    }
    while (NULL == subscription || NULL == publication)
    {
        if ((NULL == subscription && aeron_async_add_subscription_poll(&subscription, async_subscription) < 0) ||
            (NULL == publication && aeron_async_add_publication_poll(&publication, async_publication) < 0))
        {
            fprintf(stderr, "adding: %s\n", aeron_errmsg());
            goto cleanup;
        }
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    while (!aeron_subscription_is_connected(subscription))
    {
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    if (aeron_fragment_assembler_create(&assembler, on_message, &totals) < 0)
    {
        fprintf(stderr, "aeron_fragment_assembler_create: %s\n", aeron_errmsg());
        goto cleanup;
    }

    /* The first round faults the log's pages in; the last is the steady figure. */
    for (int round = 1; round <= ROUNDS; round++)
    {
        int64_t offer_ns = 0, poll_ns = 0;
        uint64_t expected = totals.messages;
        for (uint64_t i = 0; i < messages; i += BATCH)
        {
            int64_t start_ns = aeron_nano_clock();
            for (int k = 0; k < BATCH; k++)
            {
                memcpy(message, &i, sizeof(i));
                int64_t result;
                while ((result = aeron_publication_offer(publication, message, length, NULL, NULL)) < 0)
                {
                    if (AERON_PUBLICATION_BACK_PRESSURED != result && AERON_PUBLICATION_ADMIN_ACTION != result)
                    {
                        fprintf(stderr, "offer failed: %" PRId64 " %s\n", result, aeron_errmsg());
                        goto cleanup;
                    }
                }
            }
            int64_t offered_ns = aeron_nano_clock();
            expected += BATCH;
            while (totals.messages < expected)
            {
                aeron_subscription_poll(subscription, aeron_fragment_assembler_handler, assembler, 1024);
            }
            offer_ns += offered_ns - start_ns;
            poll_ns += aeron_nano_clock() - offered_ns;
        }
        printf("round %d: %" PRIu64 " messages of %" PRIu64 " bytes: offer %.2f ns/msg, poll %.2f ns/msg\n", round,
            messages, length, (double)offer_ns / (double)messages, (double)poll_ns / (double)messages);
    }
    status = totals.bytes == totals.messages * length ? EXIT_SUCCESS : EXIT_FAILURE;

cleanup:
    aeron_fragment_assembler_delete(assembler);
    aeron_publication_close(publication, NULL, NULL);
    aeron_subscription_close(subscription, NULL, NULL);
    aeron_close(aeron);
    aeron_context_close(context);
    return status;
}
