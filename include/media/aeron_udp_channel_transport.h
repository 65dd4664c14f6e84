/* Aeron's transport header (media/aeron_udp_channel_transport.h, installed with the
 * driver's headers): the transport and its params (defined in aeronrs.h) and the accessors
 * of the per-interceptor client data a transport keeps for interceptors. */
#ifndef AERON_UDP_CHANNEL_TRANSPORT_H
#define AERON_UDP_CHANNEL_TRANSPORT_H

#include "aeron_udp_channel_transport_bindings.h"

/* The client data interceptor `interceptor_index` (< AERON_UDP_CHANNEL_TRANSPORT_MAX_INTERCEPTORS)
 * keeps on `transport`. */
static inline void *aeron_udp_channel_transport_get_interceptor_clientd(
    aeron_udp_channel_transport_t *transport, int interceptor_index)
{
    return transport->interceptor_clientds[interceptor_index];
}

static inline void aeron_udp_channel_transport_set_interceptor_clientd(
    aeron_udp_channel_transport_t *transport, int interceptor_index, void *clientd)
{
    transport->interceptor_clientds[interceptor_index] = clientd;
}

#endif
