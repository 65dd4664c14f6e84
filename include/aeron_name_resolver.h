/* Aeron's name resolver header (aeron_name_resolver.h, installed with the driver's
 * headers): struct aeron_name_resolver_stct and the lookup, resolve, do_work and close
 * function types, defined in aeronrs.h, for resolvers written against Aeron's driver.
 * The default supplier is aeron_driver_context_get_name_resolver_supplier(NULL). */
#ifndef AERON_NAME_RESOLVER_H
#define AERON_NAME_RESOLVER_H

#include "aeronmd.h"

#endif
