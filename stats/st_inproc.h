/* st_inproc.h - the in-process estimator: ABBA blocks of segment series
 * (runtime/sgc_alt.h, docs/FORMATS.md) -> per-block log-ratios -> the
 * steady-state marginal cost of sampling with a one-sample BCa interval
 * over blocks (docs/STATISTICS.md "In-process alternation").
 *
 * Invariants:
 *  - A block is used only when it is complete: its four segments (positions
 *    0..3 of one block of one run) are all present, ended at a boundary
 *    (not at exit), two are A and two are B, and the work of each half is
 *    positive.  The lead-in (block 0) is never used.  Blocks of different
 *    runs (processes) are pooled.
 *  - Work is the segments' hook iterations when every segment of every
 *    complete block has some, otherwise their bytes allocated.
 *  - Per block: r = log((cpu_B / work_B) / (cpu_A / work_A)), the sums over
 *    the block's two B and two A segments; s = samples_B / (cpu_B / 1e9),
 *    the B half's samples per CPU second.
 *  - Estimates are functions of the medians over blocks: ratio =
 *    exp(median r); per-sample cost (ns of CPU) = (1 - 1/ratio) * 1e9 /
 *    median s; normalized overhead per 1000 samples/s = 1 + (ratio - 1) *
 *    1000 / median s.  Their intervals come from one bootstrap over blocks
 *    (st_bootstrap with no group 0: one-sample BCa), so a block's r and s
 *    are drawn together.
 */
#ifndef ST_INPROC_H
#define ST_INPROC_H

#include <stddef.h>
#include <stdint.h>
#include "st_boot.h"

/* One segment as the estimator needs it. */
typedef struct st_seg {
    int64_t run;       /* the process it belongs to (e.g. the run id) */
    int64_t block;     /* block within the process; 0 = lead-in */
    int pos;           /* position in the block, 0..3 */
    char kind;         /* 'A' or 'B' */
    int complete;      /* 1 if it ended at a boundary, 0 at exit */
    double cpu_ns;     /* thread CPU time */
    double bytes;      /* bytes allocated */
    double iterations; /* hook iterations */
    double samples;    /* allocation samples + time samples */
    int uncounted;     /* 1: the writer does not count those samples ('unmeasured') */
} st_seg;

/* The blocks of a series. */
typedef struct st_blocks {
    size_t n;            /* complete blocks */
    double *log_ratio;   /* r per block */
    double *sps;         /* s per block */
    size_t runs;         /* processes contributing at least one block */
    size_t skipped;      /* incomplete blocks left out (lead-ins not counted) */
    int work_iterations; /* 1: work = iterations, 0: bytes */
    int uncounted;       /* 1: some B segment's samples are not counted: no per-sample cost */
} st_blocks;

/* The estimate for one cell. */
typedef struct st_inproc {
    st_blocks blocks;    /* what it was computed from */
    st_interval ratio;   /* CPU per unit of work, B over A */
    st_interval cost_ns; /* per-sample cost, ns of CPU */
    st_interval norm;    /* normalized overhead per 1000 samples/s */
    double sps;          /* median samples per CPU second in B halves */
    double sd_log;       /* standard deviation of r over blocks */
} st_inproc;

/* Groups segs (any order) into complete blocks.  Fills out (arrays owned by
 * it: st_blocks_free).  Never fails. */
void st_inproc_blocks(const st_seg *segs, size_t n, st_blocks *out);
void st_blocks_free(st_blocks *b);

/* Blocks and estimates; out->blocks is filled too (free with
 * st_inproc_free).  Fewer than ST_BOOT_MIN_RUNS blocks give no interval
 * (method ST_CI_NONE with the reason). */
void st_inproc_estimate(const st_seg *segs, size_t n, const st_boot_opts *opts, st_inproc *out);
void st_inproc_free(st_inproc *e);

/* The largest segment series read (64 MiB: a million segments of the longest
 * lines the runtime writes), and the longest line. */
#define ST_SERIES_MAX_BYTES (64ull << 20)
#define ST_SERIES_MAX_TEXT "64 MiB"
#define ST_SERIES_MAX_LINE 1024

/* Reads a segment series file (docs/FORMATS.md) and appends its segments
 * to *segs (grown with realloc; *n counts them), tagged with run.  Which
 * samples count: the sampler(s) the series alternates ("alternate" line, a
 * mode of SGC_ALT_MODES in runtime/sgc_alt.h: the samples of the samplers
 * the mode switches, alloc -> allocation samples, time -> time samples,
 * both -> both; a mode that switches none, none (A/A) -> both).  Segment
 * ends are names of SGC_ALT_ENDS; a segment that ended at exit is
 * incomplete.  Nothing of the file is skipped: it must be a regular file of
 * at most ST_SERIES_MAX_BYTES (checked before reading), every line at most
 * ST_SERIES_MAX_LINE characters ending in LF, fields separated by one
 * space; the header line, then each setting of docs/FORMATS.md at most once
 * (alternate required; numbers are unsigned decimal integers, words the
 * runtime's names), one columns line of known, distinct fields (the
 * estimator's nine required), seg lines of exactly those fields (index, if
 * given, counting from 0; pos 0..3; on, if given, 1 exactly for B segments
 * but under none), and the "segments N" line last with N the seg lines.
 * Returns 0, or -1 with the reason (file and line) in err; *segs is then
 * unchanged in content up to the old *n. */
int st_inproc_read_series(const char *path, int64_t run, st_seg **segs, size_t *n, char *err, size_t errlen);

/* The in-process estimates of a sweep: one per cell (cell_id order). */
typedef struct st_inproc_cell {
    char *workload, *label, *kind;
    long long alloc_period, time_hz;
    size_t exact_checked, exact_mismatches; /* fixed-mode segments checked, and wrong */
    char cpu_clock[16];                     /* its segments' CPU clock: thread, process, mixed ("" without segments) */
    st_inproc e;
} st_inproc_cell;

typedef struct st_inprocs {
    st_inproc_cell *cells;
    size_t n;             /* 0: the sweep has no segment series */
    int design_inprocess; /* meta design is inprocess */
} st_inprocs;

/* The in-process part of analyze: when DIR/results.db has segment series
 * (a sweep in the in-process design), estimates every cell from its used
 * runs' series (bootstrap seed: opts->seed XOR fnv1a64(label + "#inproc")).
 * A segment whose samples are NULL in the table (the writer listed them as
 * unmeasured) is uncounted: the cell gets the ratio and no per-sample cost.
 * The cell's CPU clock is its segments' cpu_clock (thread when the table
 * has no such column: freecheck's runtime before it was added).
 * Returns 0 (out->n = 0: no series), or -1 with the reason in err. */
int st_inproc_load(const char *dir, const st_boot_opts *opts, st_inprocs *out, char *err, size_t errlen);
void st_inprocs_free(st_inprocs *p);

/* The in-process part of analyze's outputs, which st_write_outputs
 * (st_report.h) writes with the others (plotdata/inprocess.dat from the same
 * estimates): inprocess.csv (header, one row per cell), and the section "In-
 * process alternation" at the end of summary.md; each ratio with its verdict
 * at the equivalence margin (st_paired_verdict). */
#include <stdio.h>
void st_inproc_write_csv(FILE *f, const st_inprocs *ip, double margin);
void st_inproc_write_md(FILE *f, const st_inprocs *ip, double margin);

#endif /* ST_INPROC_H */
