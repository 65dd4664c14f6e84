/* Aeron's agent runner and idle strategies (aeron_agent.h).
 *
 * aeron_agent_runner_t (struct aeron_agent_runner_stct) and aeron_idle_strategy_t
 * (struct aeron_idle_strategy_stct) have Aeron's layout, so programs may embed them by
 * value; their definitions, the AERON_AGENT_STATE_* and AERON_IDLE_STRATEGY_BACKOFF_*
 * constants and every function (aeron_agent_init/start/do_work/is_running/idle/stop/close,
 * aeron_idle_strategy_*, aeron_agent_on_start_load) are in aeronrs.h, generated from the
 * library. aeron_agent_do_work, aeron_agent_is_running and aeron_agent_idle, inline in
 * Aeron, are exported functions here: same behaviour, NULL-checked. */
#ifndef AERON_AGENT_H
#define AERON_AGENT_H

#include "concurrent/aeron_thread.h"
#include "concurrent/aeron_atomic.h"
#include "aeron_common.h"
#include "aeronc.h"

#endif
