/* Minimal assertion helpers shared by the C tests: a failed check prints where and why,
 * including aeron_errmsg(), and exits non-zero so CTest reports it. */
#ifndef AERONRS_TEST_UTIL_H
#define AERONRS_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aeronc.h"

#define CHECK(cond)                                                                         \
    do                                                                                      \
    {                                                                                       \
        if (!(cond))                                                                        \
        {                                                                                   \
            fprintf(stderr, "%s:%d: CHECK(%s) failed; errcode=%d errmsg=%s\n", __FILE__,     \
                __LINE__, #cond, aeron_errcode(), aeron_errmsg());                          \
            exit(1);                                                                        \
        }                                                                                   \
    }                                                                                       \
    while (0)

#define CHECK_EQ_LL(a, b)                                                                   \
    do                                                                                      \
    {                                                                                       \
        long long va_ = (long long)(a), vb_ = (long long)(b);                               \
        if (va_ != vb_)                                                                     \
        {                                                                                   \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld; errmsg=%s\n", __FILE__, \
                __LINE__, #a, va_, #b, vb_, aeron_errmsg());                                \
            exit(1);                                                                        \
        }                                                                                   \
    }                                                                                       \
    while (0)

#define RUN(test_fn)                                                                        \
    do                                                                                      \
    {                                                                                       \
        printf("[ RUN  ] %s\n", #test_fn);                                                  \
        test_fn();                                                                          \
        printf("[  OK  ] %s\n", #test_fn);                                                  \
    }                                                                                       \
    while (0)

#endif
