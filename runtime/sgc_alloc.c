/* sgc_alloc.c - the one allocation slow path, and the nursery limit. */
#include "sgc_internal.h"

/* Stress mode: allocations left until the next forced minor collection. */
static uint64_t stress_countdown;

void sgc__alloc_reset_limit(void) {
    if (sgc__settings.stress_every)
        sgc_nursery.limit = sgc_nursery.free; /* every allocation comes here */
    else
        sgc_nursery.limit = sgc_nursery.end;
}

sgc_obj sgc_alloc_slow(uint32_t tid, size_t payload) {
    if (!sgc__initialized)
        sgc_init();
    size_t size = SGC_FOOTPRINT(payload);
    if (size >= SGC_LARGE_MIN || size > (size_t)(sgc_nursery.end - sgc_nursery.start))
        return sgc__large_alloc(tid, payload, size);
    if (sgc__settings.stress_every && ++stress_countdown >= sgc__settings.stress_every) {
        stress_countdown = 0;
        sgc__minor_collect();
    }
    if ((size_t)(sgc_nursery.end - sgc_nursery.free) < size)
        sgc__minor_collect();
    char *p = sgc_nursery.free;
    sgc_nursery.free = p + size;
    *(uint64_t *)p = SGC_HDR_MAKE(tid, size);
    sgc__alloc_reset_limit();
    return p + SGC_HEADER_BYTES;
}
