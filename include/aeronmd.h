/* Upstream Aeron embedded media driver header name. */
#ifndef AERON_MD_H
#define AERON_MD_H
#include "aeronrs.h"
#endif
