/* sgc_timer.c - the time sampler.  PLACEHOLDER until issue #4 lands. */
#include "sgc_internal.h"
void sgc__timer_init(void) {}
void sgc__timer_shutdown(void) {}
void sgc__timer_drain(void) {}
int sgc_time_sampling_start(unsigned hz, sgc_clock clock) { return -1; }
void sgc_time_sampling_stop(void) {}
