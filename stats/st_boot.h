/* st_boot.h - two-sample bootstrap of statistics of medians, with BCa intervals.
 *
 * A "sample" is a group of runs; each run carries up to ST_BOOT_MAX_METRICS
 * values (wall time, CPU time, samples per second, ...).  A statistic is a
 * function of the medians of those metrics in the cell's group (m1) and in
 * the baseline's group (m0), e.g. m1[wall] / m0[wall].
 *
 * Invariants:
 *  - Resampling: each of B resamples draws n1 runs of group 1 with
 *    replacement, then n0 runs of group 0, with gsl_rng_mt19937 seeded with
 *    opts.seed; a run is drawn whole (its metrics stay together).  Every
 *    statistic is evaluated on the same resamples.  Same inputs and seed,
 *    same outputs, bit for bit.
 *  - Medians of resamples are computed exactly as st_quantile_sorted(.., 0.5)
 *    would on the resampled values (same arithmetic), so a resample equal to
 *    the data reproduces the estimate exactly; ties with the estimate are
 *    then detected reliably.
 *  - Intervals (docs/STATISTICS.md): BCa with z0 from the proportion of
 *    resampled values below the estimate (ties count half) and the
 *    two-sample jackknife acceleration
 *    a = sum_k n_k^-3 sum_i U_ki^3 / (6 (sum_k n_k^-2 sum_i U_ki^2)^1.5),
 *    U_ki = (n_k - 1)(mean_i t_(k,i) - t_(k,i)).  Where BCa is undefined the
 *    percentile interval is used and flagged; a distribution with a single
 *    value gives a degenerate interval [t, t]; no interval at all when a
 *    group has fewer than ST_BOOT_MIN_RUNS runs or the statistic is not
 *    finite on the data or on any resample.  `why` then says which, in
 *    words; it is NULL for a plain BCa interval.
 *  - A metric pointer may be NULL (not measured): its medians are NaN, so
 *    every statistic using it is "not finite on the data".
 */
#ifndef ST_BOOT_H
#define ST_BOOT_H

#include <stddef.h>
#include <stdint.h>

#define ST_BOOT_MAX_METRICS 8
#define ST_BOOT_MIN_RUNS 3

/* One group of runs. */
typedef struct st_sample {
    size_t n;                                  /* runs in the group */
    const double *metric[ST_BOOT_MAX_METRICS]; /* metric[m][i]: metric m of run i, or NULL */
} st_sample;

/* A statistic of the two groups' medians.  m0 is all NaN when there is no
 * group 0.  Returns NaN or an infinity where undefined. */
typedef double (*st_stat_fn)(const double *m1, const double *m0);

typedef struct st_stat {
    st_stat_fn fn;
    int two_sample; /* 1 if it uses group 0 (needs ST_BOOT_MIN_RUNS there too) */
} st_stat;

typedef enum st_ci_method {
    ST_CI_NONE = 0,   /* no interval; why says why */
    ST_CI_BCA,        /* bias-corrected and accelerated */
    ST_CI_PERCENTILE, /* BCa undefined; why says why */
    ST_CI_DEGENERATE, /* every resample gave the estimate: [t, t] */
    ST_CI_EXACT,      /* an exact interval, not a bootstrap one (st_walsh.h) */
    ST_CI_RANDOM      /* a random-effects combination of processes or replicates (st_levels.h) */
} st_ci_method;

typedef struct st_interval {
    double est;          /* the statistic on the data (NaN if undefined) */
    double lo, hi;       /* interval endpoints, NaN when method is NONE */
    st_ci_method method; /* how lo/hi were obtained */
    const char *why;     /* static text: reason for NONE / PERCENTILE, else NULL */
    double z0, accel;    /* BCa constants (NaN when not computed) */
} st_interval;

typedef struct st_boot_opts {
    size_t resamples;  /* B, at least 1 */
    double confidence; /* in (0, 1) */
    uint64_t seed;     /* folded to 32 bits (hi XOR lo): GSL's mt19937 keeps 32 */
} st_boot_opts;

/* Bootstraps nstats statistics of s1 (the cell) against s0 (its baseline,
 * or NULL) and fills out[0..nstats-1].  Never fails (allocation failure
 * exits, see st_util.h). */
void st_bootstrap(const st_sample *s1, const st_sample *s0, const st_stat *stats, size_t nstats,
                  const st_boot_opts *opts, st_interval *out);

/* Several groups (compare: a cell and its baseline in two sweeps).  A
 * statistic of k groups' medians: m[g][metric], NaN for a metric a group
 * does not have.  `groups` is the bit mask of the groups it reads; only
 * those need ST_BOOT_MIN_RUNS runs, and only those enter its jackknife. */
#define ST_BOOT_MAX_GROUPS 8
typedef double (*st_kstat_fn)(const double (*m)[ST_BOOT_MAX_METRICS]);

typedef struct st_kstat {
    st_kstat_fn fn;
    unsigned groups; /* bit g set: reads group g */
} st_kstat;

/* The k-group form of st_bootstrap (1 <= k <= ST_BOOT_MAX_GROUPS): every
 * resample draws n_g runs of each group g = 0..k-1 in turn, whole and with
 * replacement, and every statistic is evaluated on the same resamples;
 * intervals and their fallbacks exactly as above, the acceleration summed
 * over the groups a statistic reads.  Never fails. */
void st_bootstrap_groups(const st_sample *groups, size_t k, const st_kstat *stats, size_t nstats,
                         const st_boot_opts *opts, st_interval *out);

/* The same, also copying each statistic's B resampled values into keep
 * (statistic s at keep + s * B; room for nstats * B values) for
 * st_boot_p_greater; a statistic without an interval leaves its part as is. */
void st_bootstrap_groups_keep(const st_sample *groups, size_t k, const st_kstat *stats, size_t nstats,
                              const st_boot_opts *opts, st_interval *out, double *keep);

/* The interval of a statistic from its B resampled values t (reordered
 * here) and its estimate out->est, by the rules above: degenerate when every
 * resample is equal, else BCa with z0 from t and the acceleration accel(ctx)
 * (called only when z0 is finite; NaN = undefined), else the percentile
 * interval with out->why saying why.  Sets lo, hi, method, why, z0, accel.
 * Shared by st_bootstrap and the one-sample bootstrap of st_paired.h. */
void st_boot_interval(double *t, size_t B, double confidence, double (*accel)(void *ctx), void *ctx, st_interval *out);

/* Type-7 quantile of t[0..n-1] (n >= 1) at p in [0, 1], exactly the value
 * st_quantile_sorted gives on the sorted values, in O(n) on average
 * (quickselect); reorders t. */
double st_quantile_select(double *t, size_t n, double p);

/* The p-value of H0: theta <= null against theta > null that inverts the
 * interval iv (BCa with iv's z0 and acceleration; percentile: z0 = a = 0)
 * made from the B resampled values t: the one-sided level at which the
 * interval's lower end reaches null, so that the two-sided interval at
 * confidence C lies above null exactly when this p is below (1 - C) / 2.
 * The proportion of t below null (ties count half) is kept within [1/(2B),
 * 1 - 1/(2B)].  A degenerate interval gives 0 or 1; none gives NaN.
 * H0: theta >= null has p = 1 - st_boot_p_greater(...). */
double st_boot_p_greater(const double *t, size_t B, const st_interval *iv, double null);

/* Name of a method as written in outputs: "none", "bca", "percentile",
 * "degenerate", "exact", "random-effects". */
const char *st_ci_name(st_ci_method m);

#endif
