/* Aeron's per-thread error (util/aeron_error.h): set with AERON_SET_ERR (code and message),
 * extended with AERON_APPEND_ERR (one more "[function, file:line] message" frame), read
 * with aeron_errcode() / aeron_errmsg(), cleared with aeron_err_clear(). A code > 0 is an
 * errno, < 0 an Aeron code (-AERON_ERROR_CODE_*). The error is libaeronrs's: the same one
 * the library's own calls set.
 *
 * aeron_err_set and aeron_err_append are inline here because they are variadic: they
 * format the message (at most AERON_ERROR_MAX_TOTAL_LENGTH bytes) and pass it to the
 * library's aeronrs_err_set / aeronrs_err_append. */
#ifndef AERON_ERROR_H
#define AERON_ERROR_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "aeron_common.h"
#include "util/aeron_platform.h"

#define AERON_ERROR_MAX_TOTAL_LENGTH (8192)

/* The shape of Aeron's per-thread error state, for programs that size buffers by it. */
typedef struct aeron_per_thread_error_stct
{
    int errcode;
    size_t offset;
    char errmsg[AERON_ERROR_MAX_TOTAL_LENGTH];
}
aeron_per_thread_error_t;

/* Sets errno (only errno: aeron_errcode() is unchanged). */
static inline void aeron_set_errno(int errcode)
{
    errno = errcode;
}

/* Replaces this thread's error with errcode and the printf-style message, as the frame
 * "[function, filename:line_number] message" under a first line naming the code. */
static inline void aeron_err_set(
    int errcode, const char *function, const char *filename, int line_number, const char *format, ...)
{
    char message[AERON_ERROR_MAX_TOTAL_LENGTH];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof(message), format, args);
    va_end(args);
    aeronrs_err_set(errcode, function, filename, line_number, message);
}

/* Adds the frame "[function, filename:line_number] message" to this thread's error. */
static inline void aeron_err_append(const char *function, const char *filename, int line_number, const char *format, ...)
{
    char message[AERON_ERROR_MAX_TOTAL_LENGTH];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof(message), format, args);
    va_end(args);
    aeronrs_err_append(function, filename, line_number, message);
}

/* The source file's name without its directories. */
#define __FILENAME__ (strrchr(__FILE__, '/') ? strrchr(__FILE__, '/') + 1 : __FILE__)

/* AERON_SET_ERR(EINVAL, "bad length: %d", length): the calling function, file and line are
 * recorded with the message. At least one argument follows the format, as in Aeron. */
#define AERON_SET_ERR(errcode, fmt, ...) aeron_err_set(errcode, __func__, __FILENAME__, __LINE__, fmt, __VA_ARGS__)
#define AERON_APPEND_ERR(fmt, ...) aeron_err_append(__func__, __FILENAME__, __LINE__, fmt, __VA_ARGS__)

/* "NULL" or "OK", for messages about pointer arguments. */
#define AERON_NULL_STR(v) NULL == v ? "NULL" : "OK"

#endif
