/* Aeron's thread portability layer (concurrent/aeron_thread.h), which on the supported
 * platforms is POSIX threads: aeron_mutex_t, aeron_thread_t, aeron_cond_t and the
 * aeron_mutex_* / aeron_thread_* / aeron_cond_* names for the pthread functions, and
 * proc_yield (the CPU's spin-wait hint). aeron_thread_set_name, aeron_thread_set_affinity,
 * aeron_nano_sleep and aeron_micro_sleep are exported by libaeronrs (aeronrs.h), as are the
 * aeron_thread_t and aeron_mutex_t typedefs. */
#ifndef AERON_THREAD_H
#define AERON_THREAD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "util/aeron_platform.h"
#include "aeronc.h"

#define AERON_INIT_ONCE pthread_once_t
#define AERON_INIT_ONCE_VALUE PTHREAD_ONCE_INIT

typedef pthread_attr_t aeron_thread_attr_t;
typedef pthread_cond_t aeron_cond_t;

#define aeron_mutex_init pthread_mutex_init
#define aeron_mutex_lock pthread_mutex_lock
#define aeron_mutex_unlock pthread_mutex_unlock
#define aeron_mutex_destroy pthread_mutex_destroy
#define aeron_thread_once pthread_once
#define aeron_thread_attr_init pthread_attr_init
#define aeron_thread_create pthread_create
#define aeron_thread_join pthread_join
#define aeron_thread_key_create pthread_key_create
#define aeron_thread_key_delete pthread_key_delete
#define aeron_thread_get_specific pthread_getspecific
#define aeron_thread_set_specific pthread_setspecific
#define aeron_cond_init pthread_cond_init
#define aeron_cond_destroy pthread_cond_destroy
#define aeron_cond_signal pthread_cond_signal
#define aeron_cond_wait pthread_cond_wait

/* Tells the CPU the caller is spinning (x86 pause, aarch64 yield), so a sibling hardware
 * thread gets the core and the spin leaves the pipeline cheaply. */
static inline void proc_yield(void)
{
#if defined(AERON_CPU_X64)
    __asm__ volatile("pause" ::: "memory");
#else
    __asm__ volatile("yield" ::: "memory");
#endif
}

#endif
