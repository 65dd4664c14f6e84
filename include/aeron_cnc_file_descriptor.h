/* The layout of a driver's cnc.dat (aeron_cnc_file_descriptor.h): the header
 * (aeron_cnc_metadata_t, in aeronrs.h) and, after it, the to-driver ring buffer, the
 * to-clients broadcast buffer, the counters' metadata and values and the error log. The
 * section accessors are inline here; aeron_cnc_version_volatile,
 * aeron_cnc_map_file_and_load_metadata (with aeron_cnc_load_result_t) and
 * aeron_cnc_resolve_filename are exported by libaeronrs (aeronrs.h). */
#ifndef AERON_C_CNC_FILE_DESCRIPTOR_H
#define AERON_C_CNC_FILE_DESCRIPTOR_H

#include "aeronc.h"
#include "util/aeron_bitutil.h"
#include "concurrent/aeron_atomic.h"
#include "util/aeron_fileutil.h"

#define AERON_CNC_FILE "cnc.dat"

/* The header padded to two cache lines: where the first section starts. */
#define AERON_CNC_VERSION_AND_META_DATA_LENGTH (AERON_ALIGN(sizeof(aeron_cnc_metadata_t), AERON_CACHE_LINE_LENGTH * 2u))

/* The CnC layout version this library reads and writes (0.2.0). */
#define AERON_CNC_VERSION (aeron_semantic_version_compose(0, 2, 0))

static inline uint8_t *aeron_cnc_to_driver_buffer(aeron_cnc_metadata_t *metadata)
{
    return (uint8_t *)metadata + AERON_CNC_VERSION_AND_META_DATA_LENGTH;
}

static inline uint8_t *aeron_cnc_to_clients_buffer(aeron_cnc_metadata_t *metadata)
{
    return aeron_cnc_to_driver_buffer(metadata) + metadata->to_driver_buffer_length;
}

static inline uint8_t *aeron_cnc_counters_metadata_buffer(aeron_cnc_metadata_t *metadata)
{
    return aeron_cnc_to_clients_buffer(metadata) + metadata->to_clients_buffer_length;
}

static inline uint8_t *aeron_cnc_counters_values_buffer(aeron_cnc_metadata_t *metadata)
{
    return aeron_cnc_counters_metadata_buffer(metadata) + metadata->counter_metadata_buffer_length;
}

static inline uint8_t *aeron_cnc_error_log_buffer(aeron_cnc_metadata_t *metadata)
{
    return aeron_cnc_counters_values_buffer(metadata) + metadata->counter_values_buffer_length;
}

/* The file length for sections totalling total_length_of_buffers, rounded up to alignment
 * (the page size). */
static inline size_t aeron_cnc_computed_length(size_t total_length_of_buffers, size_t alignment)
{
    return AERON_ALIGN(AERON_CNC_VERSION_AND_META_DATA_LENGTH + total_length_of_buffers, alignment);
}

/* Whether the mapping holds the header and every section a client uses (all but the error
 * log) as the header declares them. */
static inline bool aeron_cnc_is_file_length_sufficient(aeron_mapped_file_t *cnc_mmap)
{
    if (cnc_mmap->length < AERON_CNC_VERSION_AND_META_DATA_LENGTH)
    {
        return false;
    }

    aeron_cnc_metadata_t *metadata = (aeron_cnc_metadata_t *)cnc_mmap->addr;
    size_t required = AERON_CNC_VERSION_AND_META_DATA_LENGTH +
        (size_t)metadata->to_driver_buffer_length +
        (size_t)metadata->to_clients_buffer_length +
        (size_t)metadata->counter_metadata_buffer_length +
        (size_t)metadata->counter_values_buffer_length;

    return cnc_mmap->length >= required;
}

#endif
