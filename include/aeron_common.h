/* Aeron's common definitions (aeron_common.h). The idle strategy function types and the
 * semantic version functions are declared in aeronrs.h (through aeronc.h), generated from
 * the library's exports; this header adds the path limit and the generic function
 * pointer type. */
#ifndef AERON_COMMON_H
#define AERON_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aeronc.h"

/* The longest path Aeron handles, NUL included. */
#define AERON_MAX_PATH (4096)

/* A function pointer of no particular signature, for tables of functions found by name. */
typedef void (*aeron_fptr_t)(void);

#endif
