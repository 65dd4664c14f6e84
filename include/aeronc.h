/* Upstream Aeron C client header name: code written for libaeron's aeronc.h compiles
 * unchanged against aeronrs. Like Aeron's aeronc.h it brings <stdlib.h> along, which
 * Aeron's own tools (AeronStat, ErrorStat, DriverTool) rely on. */
#ifndef AERON_C_H
#define AERON_C_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "aeronrs.h"
#endif
