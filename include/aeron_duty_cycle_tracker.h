/* Aeron's duty-cycle tracker header (aeron_duty_cycle_tracker.h, installed with the
 * driver's headers): struct aeron_duty_cycle_tracker_stct and its function types, defined
 * in aeronrs.h, for trackers written against Aeron's driver. */
#ifndef AERON_DUTY_CYCLE_TRACKER_H
#define AERON_DUTY_CYCLE_TRACKER_H

#include "aeronmd.h"

#endif
