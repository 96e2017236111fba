/* sgc_profile.c - the profile writer.  PLACEHOLDER until issue #3 lands. */
#include "sgc_internal.h"
void sgc__profile_gc_event(int kind, uint64_t start_ns, uint64_t duration_ns,
                           uint64_t heap_bytes, uint64_t rss_bytes) {}
void sgc__profile_init(void) {}
void sgc__profile_shutdown(void) {}
