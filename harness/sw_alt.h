/* sw_alt.h - the in-process design's part of a run: what the runtime is told
 * to alternate, and the segment series it wrote (docs/FORMATS.md "The
 * segment series"), parsed for results.db's segments table.
 *
 * Invariants:
 *  - A cell's runs alternate what the cell turns on: a baseline cell runs
 *    the A/A mode (none), an alloc cell alloc, a time cell time, an
 *    alloc+time cell both.  The cell's own settings (period, rate) are
 *    passed as in the other designs, so its stats record still matches it.
 *  - A series is accepted only whole: first line "sgc-segments 1", a
 *    columns line naming every field stored, seg lines with exactly the
 *    named fields, and a last "segments N" line with N the number of seg
 *    lines.  Anything else is a failed run with the reason in words.
 */
#ifndef SW_ALT_H
#define SW_ALT_H

#include <stdint.h>
#include "sw_plan.h"

/* The numeric fields of a segment, in this order (the segments table's
 * columns after run_id, idx, block, pos, kind, on_, end_). */
/* clang-format off */
#define SW_ALT_NUM \
    X(cpu_ns) \
    X(wall_ns) \
    X(bytes) \
    X(iterations) \
    X(alloc_samples) \
    X(alloc_points) \
    X(sampled_bytes) \
    X(time_samples) \
    X(minor) \
    X(major) \
    X(gc_ns) \
    X(major_cpu_ns)
/* clang-format on */

typedef struct sw_segment {
    int idx, block, pos, on;
    char kind;   /* 'A' or 'B' */
    char end[8]; /* a name of SGC_ALT_ENDS (runtime/sgc_alt.h) */
#define X(name) uint64_t name;
    SW_ALT_NUM
#undef X
} sw_segment;

/* What SGC_ALTERNATE a run of this cell gets: a name of SGC_ALT_MODES
 * (runtime/sgc_alt.h), none, alloc, time or both as in the invariants. */
const char *sw_alt_mode(const sw_cell *cell);
/* Parses a series; returns the number of segments (*out fresh) or -1 with
 * the reason (static text) in *why. */
int sw_alt_parse(const char *text, sw_segment **out, const char **why);

#endif /* SW_ALT_H */
