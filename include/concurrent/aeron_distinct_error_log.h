/* Aeron's distinct error log (concurrent/aeron_distinct_error_log.h): each distinct error
 * (code and text) is one record in a shared buffer, such as cnc.dat's, counting how often
 * and when it was seen. The writer (aeron_distinct_error_log_t and its
 * init/record/num_observations/close functions), aeron_error_log_exists and
 * aeron_error_log_read are exported by libaeronrs (aeronrs.h); the record header is here. */
#ifndef AERON_DISTINCT_ERROR_LOG_H
#define AERON_DISTINCT_ERROR_LOG_H

#include "aeron_alloc.h"
#include "aeronc.h"
#include "util/aeron_clock.h"
#include "util/aeron_bitutil.h"
#include "concurrent/aeron_thread.h"
#include "concurrent/aeron_atomic.h"

/* The header of each record, followed by the error's text; length (record bytes, header
 * included) is stored last, with release, and is 0 where the log ends. */
#pragma pack(push)
#pragma pack(4)
typedef struct aeron_error_log_entry_stct
{
    volatile int32_t length;
    volatile int32_t observation_count;
    volatile int64_t last_observation_timestamp;
    int64_t first_observation_timestamp;
}
aeron_error_log_entry_t;
#pragma pack(pop)

#define AERON_ERROR_LOG_HEADER_LENGTH (sizeof(aeron_error_log_entry_t))
/* Records start at multiples of 8 bytes. */
#define AERON_ERROR_LOG_RECORD_ALIGNMENT (sizeof(int64_t))

#endif
