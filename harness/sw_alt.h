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
 *    lines.  Anything else is a failed run with the reason in words.  (The
 *    harness also judges every series by the whole contract,
 *    stats/st_segcheck.h; this parser takes what the segments table
 *    stores.)
 *  - The header's system (absent: freecheck), cpu_clock (absent: thread)
 *    and unmeasured fields are kept with the series (sw_series); an
 *    unmeasured field is stored as NULL, never as the 0 the file holds.
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
    uint64_t switch_ns; /* the optional field switch_ns (sw_series.has_switch) */
} sw_segment;

/* The numeric fields as numbers: SW_ALT_F_<name>, the bit of sw_series.unmeasured. */
enum {
#define X(name) SW_ALT_F_##name,
    SW_ALT_NUM
#undef X
        SW_ALT_NFIELDS
};

/* What a series' header says about all of its segments. */
typedef struct sw_series {
    char system[40];     /* its system line; "freecheck" when it has none */
    char cpu_clock[16];  /* thread (also when absent) or process */
    unsigned unmeasured; /* bit SW_ALT_F_<name>: listed as unmeasured (stored as NULL) */
    int has_switch;      /* it has the switch_ns column */
} sw_series;

/* What SGC_ALTERNATE a run of this cell gets: a name of SGC_ALT_MODES
 * (runtime/sgc_alt.h), none, alloc, time or both as in the invariants. */
const char *sw_alt_mode(const sw_cell *cell);
/* Parses a series; returns the number of segments (*out fresh) or -1 with
 * the reason (static text) in *why. */
int sw_alt_parse(const char *text, sw_segment **out, const char **why);
/* The same, with what its header says about the segments (info). */
int sw_alt_parse_series(const char *text, sw_segment **out, sw_series *info, const char **why);

#endif /* SW_ALT_H */
