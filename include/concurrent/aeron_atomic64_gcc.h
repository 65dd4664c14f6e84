/* The atomics of concurrent/aeron_atomic.h for gcc and clang on x86-64 and aarch64, on the
 * compilers' __atomic builtins. Where Aeron pairs plain (volatile) accesses with barriers,
 * these are real atomic accesses with the same ordering: a load-acquire, a store-release,
 * sequentially consistent read-modify-writes. They compile to the same instructions as
 * Aeron's on x86-64 (plain moves, lock xadd, lock cmpxchg) and to ldar/stlr/ldaxr on
 * aarch64, and are well defined in C11 and C++ alike (and visible to ThreadSanitizer).
 *
 * The operands of the macros must be lvalues of integer, bool or pointer type of 1, 2, 4
 * or 8 bytes (what Aeron uses them on); their value operands are converted to that type.
 * Include concurrent/aeron_atomic.h rather than this file. */
#ifndef AERON_ATOMIC64_GCC_H
#define AERON_ATOMIC64_GCC_H

#include <stdbool.h>
#include <stdint.h>

/* dst = src, where the read of src is an acquire: what was written before the release
 * that stored the value read is visible after it. */
#define AERON_GET_ACQUIRE(dst, src)                                  \
    do                                                               \
    {                                                                \
        (dst) = __atomic_load_n(&(src), __ATOMIC_ACQUIRE);           \
    }                                                                \
    while (0)

/* dst = src as a release store: everything written before it is visible to a thread that
 * reads the value with AERON_GET_ACQUIRE. */
#define AERON_SET_RELEASE(dst, src)                                  \
    do                                                               \
    {                                                                \
        __atomic_store_n(&(dst), (src), __ATOMIC_RELEASE);           \
    }                                                                \
    while (0)

/* Atomically adds value to the 64-bit dst; original receives dst's value before the add. */
#define AERON_GET_AND_ADD_INT64(original, dst, value)                \
    do                                                               \
    {                                                                \
        (original) = __atomic_fetch_add(&(dst), (int64_t)(value), __ATOMIC_SEQ_CST); \
    }                                                                \
    while (0)

/* As AERON_GET_AND_ADD_INT64 for a 32-bit dst. */
#define AERON_GET_AND_ADD_INT32(original, dst, value)                \
    do                                                               \
    {                                                                \
        (original) = __atomic_fetch_add(&(dst), (int32_t)(value), __ATOMIC_SEQ_CST); \
    }                                                                \
    while (0)

/* Sets *dst to desired if it holds expected; true if it did. A full barrier either way. */
static inline bool aeron_cas_int64(volatile int64_t *dst, int64_t expected, int64_t desired)
{
    return __atomic_compare_exchange_n(dst, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline bool aeron_cas_uint64(volatile uint64_t *dst, uint64_t expected, uint64_t desired)
{
    return __atomic_compare_exchange_n(dst, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline bool aeron_cas_int32(volatile int32_t *dst, int32_t expected, int32_t desired)
{
    return __atomic_compare_exchange_n(dst, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* An acquire fence: no load or store after it moves before the loads before it. */
static inline void aeron_acquire(void)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/* A release fence: no load or store before it moves after the stores after it. */
static inline void aeron_release(void)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* Declares with the given alignment, e.g. AERON_DECL_ALIGNED(int64_t counter, 64). Like
 * Aeron's, not for function locals on every compiler. */
#define AERON_DECL_ALIGNED(declaration, amt) declaration __attribute__((aligned(amt)))

#endif
