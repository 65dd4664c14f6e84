/* Aeron's string helpers (util/aeron_strutil.h). aeron_format_date,
 * aeron_format_number_to_locale, aeron_format_to_hex and aeron_tokenise are exported by
 * libaeronrs (aeronrs.h, with AERON_FORMAT_DATE_MAX_LENGTH and
 * AERON_FORMAT_NUMBER_TO_LOCALE_STR_LEN); the FNV-1a hash and the bounded length check are
 * inline here. */
#ifndef AERON_STRUTIL_H
#define AERON_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/aeron_platform.h"
#include "aeronc.h"

/* Buffer length aeron_format_to_hex needs for b bytes: two digits a byte and the NUL. */
#define AERON_FORMAT_HEX_LENGTH(b) ((2 * (b)) + 1)

/* POSIX strndup (declared by <string.h> when POSIX 2008 is asked for). */
#define aeron_strndup strndup

/* The 64-bit FNV-1a hash of len bytes at buf. */
static inline uint64_t aeron_fnv_64a_buf(uint8_t *buf, size_t len)
{
    uint64_t hash = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++)
    {
        hash ^= (uint64_t)buf[i];
        hash *= UINT64_C(0x100000001b3);
    }

    return hash;
}

/* Whether str has a NUL within its first length_bound bytes (NULL counts as yes); if so and
 * length is not NULL, *length receives the string's length. *length is untouched
 * otherwise. */
static inline bool aeron_str_length(const char *str, size_t length_bound, size_t *length)
{
    if (NULL == str)
    {
        return true;
    }

    for (size_t i = 0; i < length_bound; i++)
    {
        if ('\0' == str[i])
        {
            if (NULL != length)
            {
                *length = i;
            }
            return true;
        }
    }

    return false;
}

/* Puts a NUL at text[index]. */
static inline void aeron_str_null_terminate(uint8_t *text, int index)
{
    text[index] = '\0';
}

#endif
