/* sgc_profile.c - the profile writer.  PLACEHOLDER until issue #3 lands. */
#include "sgc_internal.h"
void sgc__profile_gc_event(int kind, uint64_t start_ns, uint64_t duration_ns,
                           uint64_t heap_bytes, uint64_t rss_bytes) {}
void sgc__profile_init(void) {}
void sgc__profile_shutdown(void) {}
#include "sgc_profile.h"
uint32_t sgc__profile_stack_current(void) { return 0; }
uint32_t sgc__profile_stack_of(sgc_func *const *leaf_first, uint32_t depth) { return 0; }
void sgc__profile_sampling_config(uint64_t ts_ns, uint64_t period, int mode) {}
void sgc__profile_alloc_sample(const sgc_alloc_sample *sample) {}
void sgc__profile_time_sample(uint64_t ts_ns, uint32_t stack, int phase) {}
void sgc__profile_time_config(uint64_t ts_ns, unsigned hz, int clock) {}
void sgc__profile_time_dropped(uint64_t ts_ns, uint64_t count) {}
