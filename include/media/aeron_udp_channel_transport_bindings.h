/* Aeron's transport bindings header (media/aeron_udp_channel_transport_bindings.h,
 * installed with the driver's headers): the bindings, interceptor bindings, interceptor
 * stages and data paths, defined in aeronrs.h (include/aeronrs_media.h.in), for transport
 * bindings and interceptors written against Aeron's driver. The default bindings are
 * aeron_driver_context_get_udp_channel_transport_bindings(NULL). */
#ifndef AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_H
#define AERON_UDP_CHANNEL_TRANSPORT_BINDINGS_H

#include "../aeronmd.h"

#endif
