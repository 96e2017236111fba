/* sgc_sample.c - the allocation sampler.  PLACEHOLDER until issue #3 lands:
 * the hooks exist so the collector links; sampling is refused. */
#include "sgc_internal.h"
void sgc__sample_init(void) {}
void sgc__sample_minor_end(void) {}
void sgc__sample_shutdown(void) {}
int sgc_sampling_start(uint64_t period, sgc_sample_mode mode, uint64_t seed) { return -1; }
void sgc_sampling_stop(void) {}
void sgc__sample_sync(void) {}
