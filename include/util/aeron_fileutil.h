/* Aeron's file helpers (util/aeron_fileutil.h): mapping files and raw logs, directories,
 * file lengths and free space, and where Aeron keeps its log buffers. Every function and
 * aeron_mapped_file_t, aeron_mapped_buffer_t, aeron_mapped_raw_log_t and the function
 * types are exported by libaeronrs and declared in aeronrs.h; the macros are here.
 * Mappings from aeron_map_*_file and aeron_raw_log_map* are released with aeron_unmap /
 * aeron_raw_log_close / aeron_raw_log_free of this library. */
#ifndef AERON_FILEUTIL_H
#define AERON_FILEUTIL_H

#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

#include "util/aeron_platform.h"
#include "aeronc.h"

/* A log buffer's terms (concurrent/aeron_logbuffer_descriptor.h defines it the same). */
#ifndef AERON_LOGBUFFER_PARTITION_COUNT
#define AERON_LOGBUFFER_PARTITION_COUNT (3)
#endif

/* The errno of a full file system (<errno.h>). */
#define AERON_FILEUTIL_ERROR_ENOSPC ENOSPC

/* POSIX mkdir (<sys/stat.h>). */
#define aeron_mkdir mkdir

/* The folders of an Aeron directory that hold publication and image log buffers. */
#define AERON_PUBLICATIONS_DIR "publications"
#define AERON_IMAGES_DIR "images"

#endif
