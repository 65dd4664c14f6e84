/* Image rejection through aeronc.h over UDP loopback: two embedded drivers, a client on
 * each. The subscriber rejects the publisher's image with aeron_image_reject; the
 * publishing client's error frame handler (aeron_context_set_publication_error_frame_handler)
 * gets the frame (registration id, session, stream, IMAGE_REJECTED, the reason, the
 * receiver's address), a copy of it outlives the call; the image then goes unavailable.
 * Also the argument checks and the driver refusing an over-long reason. */
#include "client_support.h"

#define IMAGE_REJECTED 13

typedef struct
{
    volatile int count;
    aeron_publication_error_values_t *copy;
}
error_frames_t;

static void on_error_frame(void *clientd, aeron_publication_error_values_t *error_frame)
{
    error_frames_t *frames = (error_frames_t *)clientd;
    if (NULL == frames->copy)
    {
        CHECK_EQ_LL(aeron_publication_error_values_copy(&frames->copy, error_frame), 0);
    }
    frames->count++;
}

typedef struct
{
    volatile int available;
    volatile int unavailable;
}
images_t;

static void on_available(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image)
{
    (void)subscription;
    (void)image;
    ((images_t *)clientd)->available++;
}

static void on_unavailable(void *clientd, aeron_subscription_t *subscription, aeron_image_t *image)
{
    (void)subscription;
    (void)image;
    ((images_t *)clientd)->unavailable++;
}

static void rejected_image_reaches_the_publisher(void)
{
    test_env_t pub_env, sub_env;
    memset(&pub_env, 0, sizeof(pub_env));
    memset(&sub_env, 0, sizeof(sub_env));
    prepare_driver(&pub_env, "reject-pub");
    launch_driver(&pub_env);
    prepare_driver(&sub_env, "reject-sub");
    /* A rejected image is dropped once it times out: keep that short. */
    CHECK_EQ_LL(aeron_driver_context_set_image_liveness_timeout_ns(sub_env.driver_context, 1000000000LL), 0);
    launch_driver(&sub_env);

    error_frames_t frames = { 0, NULL };
    pub_env.context = client_context(&pub_env);
    CHECK_EQ_LL(aeron_context_set_publication_error_frame_handler(pub_env.context, on_error_frame, &frames), 0);
    CHECK(aeron_context_get_publication_error_frame_handler(pub_env.context) == on_error_frame);
    CHECK_EQ_LL(aeron_init(&pub_env.client, pub_env.context), 0);
    CHECK_EQ_LL(aeron_start(pub_env.client), 0);
    connect_client(&sub_env);

    images_t images = { 0, 0 };
    aeron_subscription_t *subscription = add_subscription_with_handlers(
        sub_env.client, "aeron:udp?endpoint=127.0.0.1:0", 7, on_available, on_unavailable, &images);
    char endpoint[AERON_CLIENT_MAX_LOCAL_ADDRESS_STR_LEN];
    CHECK_EQ_LL(aeron_subscription_resolved_endpoint(subscription, endpoint, sizeof(endpoint)), 1);
    char channel[256];
    CHECK(aeron_subscription_try_resolve_channel_endpoint_port(subscription, channel, sizeof(channel)) > 0);
    aeron_publication_t *publication = add_publication(pub_env.client, channel, 7);
    WAIT_FOR(aeron_publication_is_connected(publication) && aeron_subscription_image_count(subscription) == 1,
        sleep_ms(1));
    aeron_publication_constants_t constants;
    CHECK_EQ_LL(aeron_publication_constants(publication, &constants), 0);
    aeron_image_t *image = aeron_subscription_image_at_index(subscription, 0);
    CHECK(image != NULL);

    /* Argument checks, then the driver refusing a reason over 1023 bytes. */
    CHECK_FAILS_WITH(aeron_image_reject(NULL, "x"), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_image_reject(image, NULL), -1, EINVAL);
    char long_reason[1025];
    memset(long_reason, 'x', 1024);
    long_reason[1024] = '\0';
    CHECK_EQ_LL(aeron_image_reject(image, long_reason), -1);
    CHECK(strstr(aeron_errmsg(), "1023") != NULL);

    CHECK_EQ_LL(aeron_image_reject(image, "not for me"), 0);
    WAIT_FOR(frames.count > 0, sleep_ms(1));
    aeron_publication_error_values_t *frame = frames.copy;
    CHECK(frame != NULL);
    CHECK_EQ_LL(frame->registration_id, constants.original_registration_id);
    CHECK_EQ_LL(frame->destination_registration_id, -1);
    CHECK_EQ_LL(frame->session_id, constants.session_id);
    CHECK_EQ_LL(frame->stream_id, 7);
    CHECK_EQ_LL(frame->group_tag, -1);
    CHECK_EQ_LL(frame->error_code, IMAGE_REJECTED);
    CHECK_EQ_LL(frame->error_message_length, 10);
    CHECK(memcmp(frame->error_message, "not for me", 10) == 0);
    CHECK_EQ_LL(frame->address_type, 1); /* IPv4 */
    char source[64];
    snprintf(source, sizeof(source), "%u.%u.%u.%u:%u", frame->source_address[0], frame->source_address[1],
        frame->source_address[2], frame->source_address[3], frame->source_port);
    CHECK(strcmp(source, endpoint) == 0);
    aeron_publication_error_values_delete(frames.copy);
    CHECK_EQ_LL(aeron_subscription_image_release(subscription, image), 0);

    /* No more data is taken: the image times out and goes unavailable. */
    WAIT_FOR(images.unavailable == 1, sleep_ms(2));
    CHECK_EQ_LL(images.available, 1);

    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&pub_env);
    teardown(&sub_env);
}

int main(void)
{
    RUN(rejected_image_reaches_the_publisher);
    return 0;
}
