/* Aeron's cached clock (util/aeron_clock.h): an epoch time and a nano time that one thread
 * updates once per duty cycle and others read, each on its own cache line, without calling
 * the clock. The accessors are inline here; aeron_clock_gettime_realtime is exported by
 * libaeronrs (aeronrs.h), as are aeron_nano_clock and aeron_epoch_clock (aeronc.h). */
#ifndef AERON_AERON_CLOCK_H
#define AERON_AERON_CLOCK_H

#include <time.h>

#include "util/aeron_bitutil.h"
#include "concurrent/aeron_atomic.h"
#include "aeron_alloc.h"

typedef struct aeron_clock_cache_stct
{
    uint8_t pre_pad[AERON_CACHE_LINE_LENGTH - sizeof(int64_t)];
    volatile int64_t cached_epoch_time;
    volatile int64_t cached_nano_time;
    uint8_t post_pad[AERON_CACHE_LINE_LENGTH - sizeof(int64_t)];
}
aeron_clock_cache_t;

/* Stores both times (ms since the epoch, ns), each with release. */
static inline void aeron_clock_update_cached_time(aeron_clock_cache_t *cached_clock, int64_t epoch_time, int64_t nano_time)
{
    AERON_SET_RELEASE(cached_clock->cached_epoch_time, epoch_time);
    AERON_SET_RELEASE(cached_clock->cached_nano_time, nano_time);
}

static inline void aeron_clock_update_cached_epoch_time(aeron_clock_cache_t *cached_clock, int64_t epoch_time)
{
    AERON_SET_RELEASE(cached_clock->cached_epoch_time, epoch_time);
}

static inline void aeron_clock_update_cached_nano_time(aeron_clock_cache_t *cached_clock, int64_t nano_time)
{
    AERON_SET_RELEASE(cached_clock->cached_nano_time, nano_time);
}

/* The last epoch time stored (acquire). */
static inline int64_t aeron_clock_cached_epoch_time(aeron_clock_cache_t *cached_clock)
{
    int64_t epoch_time;
    AERON_GET_ACQUIRE(epoch_time, cached_clock->cached_epoch_time);
    return epoch_time;
}

/* The last nano time stored (acquire). */
static inline int64_t aeron_clock_cached_nano_time(aeron_clock_cache_t *cached_clock)
{
    int64_t nano_time;
    AERON_GET_ACQUIRE(nano_time, cached_clock->cached_nano_time);
    return nano_time;
}

/* Allocates a zeroed cached clock into *cached_clock (free with aeron_free): 0, or -1. */
static inline int aeron_clock_cache_alloc(aeron_clock_cache_t **cached_clock)
{
    return aeron_alloc((void **)cached_clock, sizeof(aeron_clock_cache_t));
}

#endif
