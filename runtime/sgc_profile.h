/* sgc_profile.h - the profile writer: what the samplers hand it.
 *
 * Invariants:
 *  - Stacks are nodes of one calling-context tree (CCT) per process: node 0
 *    is the empty stack; every other node is (parent node, function).  A
 *    node id, once handed out, means the same stack for the whole profile.
 *  - One record per sample: an allocation sample carries its stack, type,
 *    size, sample points and survival together; it is handed over once its
 *    survival is known, never in pieces.
 *  - Samples are formatted even when no SGC_PROFILE is set (then discarded),
 *    so the cost measured is the cost a user pays.
 *  - None of these functions may be called from a signal handler; the time
 *    sampler snapshots into its own buffer and hands records over later.
 */
#ifndef SGC_PROFILE_H
#define SGC_PROFILE_H

#include <stdint.h>
#include "sgc.h"

enum sgc_survival { SGC_DIED = 0, SGC_SURVIVED = 1, SGC_SURVIVAL_UNKNOWN = 2 };

typedef struct sgc_alloc_sample {
    uint64_t ts_ns;     /* CLOCK_MONOTONIC when the sample was taken */
    uint64_t size;      /* footprint bytes of the sampled object */
    uint32_t stack;     /* CCT node of the allocating stack */
    uint32_t tid;       /* type id of the object */
    uint32_t points;    /* sample points the allocation hit (>= 1) */
    uint8_t survival;   /* enum sgc_survival, at the next minor collection */
    uint8_t large;      /* 1 if allocated as a large object */
} sgc_alloc_sample;

/* CCT node of the current shadow stack (sgc_top).  Costs O(frames pushed
 * since the previous call), using and filling sgc_frame.cct. */
uint32_t sgc__profile_stack_current(void);
/* CCT node of a snapshot of function pointers, leaf first. */
uint32_t sgc__profile_stack_of(sgc_func *const *leaf_first, uint32_t depth);

/* Allocation sampling (re)started with this period and mode, or stopped
 * (period 0): readers need the period to turn samples into bytes. */
void sgc__profile_sampling_config(uint64_t ts_ns, uint64_t period, int mode);
void sgc__profile_alloc_sample(const sgc_alloc_sample *sample);
/* phase: enum sgc_phase, what the interrupted thread was doing. */
void sgc__profile_time_sample(uint64_t ts_ns, uint32_t stack, int phase);
/* Time sampling (re)started at hz with clock, or stopped (hz 0). */
void sgc__profile_time_config(uint64_t ts_ns, unsigned hz, int clock);
/* count time samples were lost to a full buffer since the last call. */
void sgc__profile_time_dropped(uint64_t ts_ns, uint64_t count);

#endif /* SGC_PROFILE_H */
