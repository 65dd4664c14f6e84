/* Aeron's bit and alignment helpers (util/aeron_bitutil.h): macros and inline functions,
 * and aeron_randomised_int32, exported by libaeronrs (aeronrs.h). */
#ifndef AERON_BITUTIL_H
#define AERON_BITUTIL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "util/aeron_platform.h"
#include "aeronc.h"

#define AERON_CACHE_LINE_LENGTH (64u)

/* value rounded up to a multiple of alignment, a power of two. */
#define AERON_ALIGN(value, alignment) (((value) + ((alignment) - 1u)) & ~((alignment) - 1u))

/* sizeof(_struct) rounded up to a multiple of 4. */
#define AERON_PADDED_SIZEOF(_struct) AERON_ALIGN(sizeof(_struct), sizeof(int32_t))

/* Whether value is a positive power of two (its lowest set bit is its only one). */
#define AERON_IS_POWER_OF_TWO(value) ((value) > 0 && (((value) & (~(value) + 1u)) == (value)))

#define AERON_MIN(a, b) ((a) < (b) ? (a) : (b))

/* exp, telling the compiler it is usually c (a branch prediction hint). */
#define AERON_C_COND_EXPECT(exp, c) (__builtin_expect((exp), c))

/* The first cache-line boundary at or after buffer. */
static inline uint8_t *aeron_cache_line_align_buffer(uint8_t *buffer)
{
    size_t past = (size_t)((uintptr_t)buffer % AERON_CACHE_LINE_LENGTH);
    return 0 == past ? buffer : buffer + (AERON_CACHE_LINE_LENGTH - past);
}

/* Zero bits below the lowest set bit; 32 for 0. */
static inline int aeron_number_of_trailing_zeroes(int32_t value)
{
    return 0 == value ? 32 : __builtin_ctz((unsigned int)value);
}

/* Zero bits below the lowest set bit; 64 for 0. */
static inline int aeron_number_of_trailing_zeroes_u64(uint64_t value)
{
    return 0 == value ? 64 : __builtin_ctzll((unsigned long long)value);
}

/* Zero bits above the highest set bit; 32 for 0. */
static inline int aeron_number_of_leading_zeroes(int32_t value)
{
    return 0 == value ? 32 : __builtin_clz((unsigned int)value);
}

/* The smallest power of two >= value, for 1 <= value <= 2^30 (0 for value <= 0, INT32_MIN
 * beyond 2^30, as Aeron's two's-complement arithmetic gives). */
static inline int32_t aeron_find_next_power_of_two(int32_t value)
{
    uint32_t bits = (uint32_t)value - 1u;
    for (unsigned int shift = 1; shift < 32; shift *= 2)
    {
        bits |= bits >> shift;
    }

    return (int32_t)(bits + 1u);
}

#endif
