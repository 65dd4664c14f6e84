/* Aeron's atomic helpers (concurrent/aeron_atomic.h): AERON_GET_ACQUIRE, AERON_SET_RELEASE,
 * AERON_GET_AND_ADD_INT64/INT32, aeron_cas_int64/uint64/int32, aeron_acquire,
 * aeron_release and AERON_DECL_ALIGNED. One implementation serves both supported CPUs. */
#ifndef AERON_ATOMIC_H
#define AERON_ATOMIC_H

#include "util/aeron_platform.h"
#include "concurrent/aeron_atomic64_gcc.h"

#endif
