/* The calls Aeron's cping and cpong make per message, on one thread so their cost can be
 * counted without another core in the way: an exclusive publication offers 32 B and
 * aeron_image_poll takes it back through an image fragment assembler (limit 10, one
 * message per poll); then the same with a concurrent publication and
 * aeron_subscription_poll through a fragment assembler (what streaming_publisher and
 * rate_subscriber call); and empty polls of each kind. Each phase runs in a function of
 * its own, so `valgrind --tool=callgrind` reports its calls apart (instructions per call =
 * inclusive cost / calls). Built on Aeron's headers by scripts/compare-libaeron.sh and
 * linked to each library. Not an Aeron sample.
 *
 *   call_cost <aeron dir> <stream id> <messages> */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aeronc.h"
#include "aeron_agent.h"

#define CHANNEL "aeron:ipc?term-length=64m"
#define FRAGMENT_LIMIT 10

static uint64_t received;

static void on_message(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    (void)clientd;
    (void)buffer;
    (void)length;
    (void)header;
    received++;
}

__attribute__((noinline)) static int image_empty_polls(aeron_image_t *image, aeron_image_fragment_assembler_t *assembler, int n)
{
    int fragments = 0;
    for (int i = 0; i < n; i++)
    {
        fragments += aeron_image_poll(image, aeron_image_fragment_assembler_handler, assembler, FRAGMENT_LIMIT);
    }
    return fragments;
}

__attribute__((noinline)) static void exclusive_offer_image_poll(
    aeron_exclusive_publication_t *publication, aeron_image_t *image, aeron_image_fragment_assembler_t *assembler, int n)
{
    uint8_t message[32] = { 0 };
    for (int i = 0; i < n; i++)
    {
        memcpy(message, &i, sizeof(i));
        while (aeron_exclusive_publication_offer(publication, message, sizeof(message), NULL, NULL) < 0)
        {
        }
        while (aeron_image_poll(image, aeron_image_fragment_assembler_handler, assembler, FRAGMENT_LIMIT) <= 0)
        {
        }
    }
}

__attribute__((noinline)) static int subscription_empty_polls(
    aeron_subscription_t *subscription, aeron_fragment_assembler_t *assembler, int n)
{
    int fragments = 0;
    for (int i = 0; i < n; i++)
    {
        fragments += aeron_subscription_poll(subscription, aeron_fragment_assembler_handler, assembler, FRAGMENT_LIMIT);
    }
    return fragments;
}

__attribute__((noinline)) static void offer_subscription_poll(
    aeron_publication_t *publication, aeron_subscription_t *subscription, aeron_fragment_assembler_t *assembler, int n)
{
    uint8_t message[32] = { 0 };
    for (int i = 0; i < n; i++)
    {
        memcpy(message, &i, sizeof(i));
        while (aeron_publication_offer(publication, message, sizeof(message), NULL, NULL) < 0)
        {
        }
        while (aeron_subscription_poll(subscription, aeron_fragment_assembler_handler, assembler, FRAGMENT_LIMIT) <= 0)
        {
        }
    }
}

static aeron_subscription_t *add_subscription(aeron_t *aeron, int32_t stream_id)
{
    aeron_async_add_subscription_t *async = NULL;
    aeron_subscription_t *subscription = NULL;
    if (aeron_async_add_subscription(&async, aeron, CHANNEL, stream_id, NULL, NULL, NULL, NULL) < 0)
    {
        return NULL;
    }
    int result;
    while (0 == (result = aeron_async_add_subscription_poll(&subscription, async)))
    {
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    return result < 0 ? NULL : subscription;
}

static aeron_exclusive_publication_t *add_exclusive_publication(aeron_t *aeron, int32_t stream_id)
{
    aeron_async_add_exclusive_publication_t *async = NULL;
    aeron_exclusive_publication_t *publication = NULL;
    if (aeron_async_add_exclusive_publication(&async, aeron, CHANNEL, stream_id) < 0)
    {
        return NULL;
    }
    int result;
    while (0 == (result = aeron_async_add_exclusive_publication_poll(&publication, async)))
    {
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    return result < 0 ? NULL : publication;
}

static aeron_publication_t *add_publication(aeron_t *aeron, int32_t stream_id)
{
    aeron_async_add_publication_t *async = NULL;
    aeron_publication_t *publication = NULL;
    if (aeron_async_add_publication(&async, aeron, CHANNEL, stream_id) < 0)
    {
        return NULL;
    }
    int result;
    while (0 == (result = aeron_async_add_publication_poll(&publication, async)))
    {
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }
    return result < 0 ? NULL : publication;
}

int main(int argc, char **argv)
{
    if (argc != 4)
    {
        fprintf(stderr, "Usage: %s <aeron dir> <stream id> <messages>\n", argv[0]);
        return EXIT_FAILURE;
    }
    const int32_t stream_id = (int32_t)strtol(argv[2], NULL, 0);
    const int n = (int)strtol(argv[3], NULL, 0);
    int status = EXIT_FAILURE;
    aeron_context_t *context = NULL;
    aeron_t *aeron = NULL;
    aeron_subscription_t *image_subscription = NULL;
    aeron_subscription_t *subscription = NULL;
    aeron_exclusive_publication_t *exclusive = NULL;
    aeron_publication_t *publication = NULL;
    aeron_image_t *image = NULL;
    aeron_image_fragment_assembler_t *image_assembler = NULL;
    aeron_fragment_assembler_t *assembler = NULL;

    if (aeron_context_init(&context) < 0 || aeron_context_set_dir(context, argv[1]) < 0 ||
        aeron_init(&aeron, context) < 0 || aeron_start(aeron) < 0 ||
        NULL == (image_subscription = add_subscription(aeron, stream_id)) ||
        NULL == (exclusive = add_exclusive_publication(aeron, stream_id)) ||
        NULL == (subscription = add_subscription(aeron, stream_id + 1)) ||
        NULL == (publication = add_publication(aeron, stream_id + 1)) ||
        aeron_image_fragment_assembler_create(&image_assembler, on_message, NULL) < 0 ||
        aeron_fragment_assembler_create(&assembler, on_message, NULL) < 0)
    {
        fprintf(stderr, "setting up: %s\n", aeron_errmsg());
        goto cleanup;
    }
    while (NULL == (image = aeron_subscription_image_at_index(image_subscription, 0)) ||
        !aeron_subscription_is_connected(subscription))
    {
        if (NULL != image)
        {
            aeron_subscription_image_release(image_subscription, image);
        }
        aeron_idle_strategy_yielding_idle(NULL, 0);
    }

    /* A few to fault the first pages in, then the counted phases. */
    exclusive_offer_image_poll(exclusive, image, image_assembler, 1000);
    offer_subscription_poll(publication, subscription, assembler, 1000);
    int stray = image_empty_polls(image, image_assembler, n);
    exclusive_offer_image_poll(exclusive, image, image_assembler, n);
    stray += subscription_empty_polls(subscription, assembler, n);
    offer_subscription_poll(publication, subscription, assembler, n);
    printf("%" PRIu64 " messages received, %d by empty polls\n", received, stray);
    status = 0 == stray && received == (uint64_t)(2 * (n + 1000)) ? EXIT_SUCCESS : EXIT_FAILURE;

cleanup:
    if (NULL != image)
    {
        aeron_subscription_image_release(image_subscription, image);
    }
    aeron_image_fragment_assembler_delete(image_assembler);
    aeron_fragment_assembler_delete(assembler);
    aeron_exclusive_publication_close(exclusive, NULL, NULL);
    aeron_publication_close(publication, NULL, NULL);
    aeron_subscription_close(image_subscription, NULL, NULL);
    aeron_subscription_close(subscription, NULL, NULL);
    aeron_close(aeron);
    aeron_context_close(context);
    return status;
}
