/* Upstream Aeron C client header name: code written for libaeron's aeronc.h compiles
 * unchanged against aeronrs. */
#ifndef AERON_C_H
#define AERON_C_H
#include "aeronrs.h"
#endif
