/* Aeron's parsing helpers (util/aeron_parse_util.h): aeron_parse_size64,
 * aeron_parse_duration_ns, aeron_parse_bool, aeron_address_split, aeron_interface_split,
 * aeron_parse_get_line, aeron_config_prop_warning and the aeron_config_parse_* family,
 * with aeron_parsed_address_t, aeron_parsed_interface_t and AERON_MAX_HOST_LENGTH /
 * AERON_MAX_PORT_LENGTH / AERON_MAX_PREFIX_LENGTH: all exported by libaeronrs and declared
 * in aeronrs.h. */
#ifndef AERON_PARSE_UTIL_H
#define AERON_PARSE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aeronc.h"

#endif
