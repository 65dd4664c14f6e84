/* The bound socket addresses of UDP channels through aeronc.h: a subscription on a
 * wildcard port (endpoint=127.0.0.1:0) reports the port its driver bound
 * (aeron_subscription_local_sockaddrs, aeron_subscription_resolved_endpoint,
 * aeron_subscription_try_resolve_channel_endpoint_port), publications sent to the resolved
 * channel reach it, and they report the address their datagrams come from (the image's
 * source identity). Also the argument checks and truncation rules, and IPC (no addresses). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "client_support.h"

#define ADDRESS_LEN AERON_CLIENT_MAX_LOCAL_ADDRESS_STR_LEN

static int port_of(const char *address)
{
    const char *colon = strrchr(address, ':');
    CHECK(colon != NULL);
    return atoi(colon + 1);
}

/* A UDP port free on 127.0.0.1 right now (bound by the kernel, then released). */
static int free_udp_port(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(fd >= 0);
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(fd, (struct sockaddr *)&address, sizeof(address)) == 0);
    socklen_t length = sizeof(address);
    CHECK(getsockname(fd, (struct sockaddr *)&address, &length) == 0);
    close(fd);
    return ntohs(address.sin_port);
}

static void on_fragment(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
{
    (void)header;
    char *received = (char *)clientd;
    CHECK(length < 64);
    memcpy(received, buffer, length);
    received[length] = '\0';
}

static void wildcard_port_resolves_to_the_bound_port(void)
{
    test_env_t env;
    setup(&env, "udp-addresses");
    const char *wildcard = "aeron:udp?endpoint=127.0.0.1:0|mtu=1408";
    aeron_subscription_t *subscription = add_subscription(env.client, wildcard, 9);
    CHECK_EQ_LL(aeron_subscription_channel_status(subscription), 1); /* ACTIVE */

    /* Every address, NUL-terminated; entries beyond the count untouched. */
    char first[ADDRESS_LEN], second[ADDRESS_LEN];
    memset(second, 'x', sizeof(second));
    aeron_iovec_t vec[2] = { { (uint8_t *)first, sizeof(first) }, { (uint8_t *)second, sizeof(second) } };
    CHECK_EQ_LL(aeron_subscription_local_sockaddrs(subscription, vec, 2), 1);
    CHECK(strncmp(first, "127.0.0.1:", 10) == 0);
    int port = port_of(first);
    CHECK(port > 0 && port < 65536);
    char expected[ADDRESS_LEN];
    snprintf(expected, sizeof(expected), "127.0.0.1:%d", port);
    CHECK(strcmp(first, expected) == 0);
    CHECK(second[0] == 'x');

    /* A short buffer gets a truncated, terminated copy; the count is still of all. */
    char shorter[5];
    aeron_iovec_t short_vec = { (uint8_t *)shorter, sizeof(shorter) };
    CHECK_EQ_LL(aeron_subscription_local_sockaddrs(subscription, &short_vec, 1), 1);
    CHECK(strcmp(shorter, "127.") == 0);
    char endpoint[ADDRESS_LEN];
    CHECK_EQ_LL(aeron_subscription_resolved_endpoint(subscription, endpoint, sizeof(endpoint)), 1);
    CHECK(strcmp(endpoint, expected) == 0);
    CHECK_EQ_LL(aeron_subscription_resolved_endpoint(subscription, shorter, sizeof(shorter)), 1);
    CHECK(strcmp(shorter, "127.") == 0);

    /* The channel with the port filled in, in the C client's parameter order. */
    char resolved[256];
    char resolved_expected[256];
    int resolved_length = snprintf(resolved_expected, sizeof(resolved_expected),
        "aeron:udp?endpoint=127.0.0.1:%d|mtu=1408", port);
    CHECK_EQ_LL(aeron_subscription_try_resolve_channel_endpoint_port(subscription, resolved, sizeof(resolved)),
        resolved_length);
    CHECK(strcmp(resolved, resolved_expected) == 0);
    /* Truncated per parameter: "aeron:udp" fits, the endpoint overflows and is counted. */
    char truncated[16];
    int through_endpoint = (int)strlen("aeron:udp?endpoint=") + (int)strlen(expected);
    CHECK_EQ_LL(aeron_subscription_try_resolve_channel_endpoint_port(subscription, truncated, sizeof(truncated)),
        through_endpoint);
    CHECK(strcmp(truncated, "aeron:udp?endpo") == 0);

    /* Publications on the resolved channel reach the subscription, from the address they
     * report. */
    aeron_publication_t *publication = add_publication(env.client, resolved, 9);
    aeron_exclusive_publication_t *exclusive = add_exclusive_publication(env.client, resolved, 9);
    char publication_address[ADDRESS_LEN], exclusive_address[ADDRESS_LEN];
    aeron_iovec_t pub_vec = { (uint8_t *)publication_address, sizeof(publication_address) };
    aeron_iovec_t excl_vec = { (uint8_t *)exclusive_address, sizeof(exclusive_address) };
    CHECK_EQ_LL(aeron_publication_local_sockaddrs(publication, &pub_vec, 1), 1);
    CHECK_EQ_LL(aeron_exclusive_publication_local_sockaddrs(exclusive, &excl_vec, 1), 1);
    CHECK(strncmp(publication_address, "127.0.0.1:", 10) == 0 && port_of(publication_address) > 0);
    CHECK(strncmp(exclusive_address, "127.0.0.1:", 10) == 0 && port_of(exclusive_address) > 0);
    WAIT_FOR(aeron_publication_is_connected(publication) && aeron_subscription_image_count(subscription) == 2,
        sleep_ms(1));
    aeron_publication_constants_t pub_constants;
    CHECK_EQ_LL(aeron_publication_constants(publication, &pub_constants), 0);
    aeron_image_t *image = aeron_subscription_image_by_session_id(subscription, pub_constants.session_id);
    CHECK(image != NULL);
    aeron_image_constants_t image_constants;
    CHECK_EQ_LL(aeron_image_constants(image, &image_constants), 0);
    CHECK(strcmp(image_constants.source_identity, publication_address) == 0);
    CHECK_EQ_LL(aeron_subscription_image_release(subscription, image), 0);

    const char *message = "through the resolved port";
    offer_message(publication, message, strlen(message));
    char received[64] = { 0 };
    WAIT_FOR(received[0] != '\0',
        {
            CHECK(aeron_subscription_poll(subscription, on_fragment, received, 10) >= 0);
            sleep_ms(1);
        });
    CHECK(strcmp(received, message) == 0);

    /* Argument checks, as Aeron's: a vector with room for one address is required. */
    CHECK_FAILS_WITH(aeron_subscription_local_sockaddrs(subscription, NULL, 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_local_sockaddrs(subscription, vec, 0), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_local_sockaddrs(NULL, vec, 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_publication_local_sockaddrs(publication, NULL, 1), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_exclusive_publication_local_sockaddrs(exclusive, &excl_vec, 0), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_resolved_endpoint(subscription, NULL, 8), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_resolved_endpoint(subscription, endpoint, 0), -1, EINVAL);
    CHECK_FAILS_WITH(aeron_subscription_try_resolve_channel_endpoint_port(subscription, resolved, 0), -1, EINVAL);

    CHECK_EQ_LL(aeron_publication_close(publication, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_exclusive_publication_close(exclusive, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);
    teardown(&env);
}

static void explicit_ports_and_ipc(void)
{
    test_env_t env;
    setup(&env, "udp-addresses-ipc");
    int port = free_udp_port();
    char channel[128];
    int length = snprintf(channel, sizeof(channel), "aeron:udp?term-length=65536|endpoint=127.0.0.1:%d", port);
    aeron_subscription_t *subscription = add_subscription(env.client, channel, 2);
    char address[ADDRESS_LEN];
    char expected[ADDRESS_LEN];
    snprintf(expected, sizeof(expected), "127.0.0.1:%d", port);
    CHECK_EQ_LL(aeron_subscription_resolved_endpoint(subscription, address, sizeof(address)), 1);
    CHECK(strcmp(address, expected) == 0);
    /* No wildcard: the channel as the C client prints it (endpoint first). */
    char uri[128];
    char uri_expected[128];
    snprintf(uri_expected, sizeof(uri_expected), "aeron:udp?endpoint=127.0.0.1:%d|term-length=65536", port);
    CHECK_EQ_LL(aeron_subscription_try_resolve_channel_endpoint_port(subscription, uri, sizeof(uri)), length);
    CHECK(strcmp(uri, uri_expected) == 0);
    CHECK_EQ_LL(aeron_subscription_close(subscription, NULL, NULL), 0);

    /* IPC: no addresses, the channel unchanged. */
    aeron_subscription_t *ipc = add_subscription(env.client, IPC, 3);
    aeron_publication_t *ipc_publication = add_publication(env.client, IPC, 3);
    aeron_iovec_t vec = { (uint8_t *)address, sizeof(address) };
    CHECK_EQ_LL(aeron_subscription_local_sockaddrs(ipc, &vec, 1), 0);
    CHECK_EQ_LL(aeron_publication_local_sockaddrs(ipc_publication, &vec, 1), 0);
    CHECK_EQ_LL(aeron_subscription_resolved_endpoint(ipc, address, sizeof(address)), 0);
    CHECK_EQ_LL(aeron_subscription_try_resolve_channel_endpoint_port(ipc, uri, sizeof(uri)), 9);
    CHECK(strcmp(uri, IPC) == 0);
    CHECK_EQ_LL(aeron_publication_close(ipc_publication, NULL, NULL), 0);
    CHECK_EQ_LL(aeron_subscription_close(ipc, NULL, NULL), 0);
    teardown(&env);
}

int main(void)
{
    RUN(wildcard_port_resolves_to_the_bound_port);
    RUN(explicit_ports_and_ipc);
    return 0;
}
