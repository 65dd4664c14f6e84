/* Aeron's allocation functions (aeron_alloc.h): aeron_alloc, aeron_alloc_no_err,
 * aeron_alloc_aligned, aeron_reallocf and aeron_free, all exported by libaeronrs and
 * declared in aeronrs.h. Memory comes from the C allocator, zeroed (reallocf's growth
 * excepted), so either side may free what the other allocated. */
#ifndef AERON_ALLOC_H
#define AERON_ALLOC_H

#include <stddef.h>

#include "aeronc.h"

#endif
