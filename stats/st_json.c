/* st_json.c - units of summary.csv's columns by name, and JSON strings, for summary.json. */
#include "st_json.h"
#include <string.h>

/* Units by column name: exact names first, then suffixes, then substrings
 * (docs/STATISTICS.md, "summary.json"). */
typedef struct unit_rule {
    int how; /* 0 exact, 1 suffix, 2 substring */
    const char *pat, *unit;
} unit_rule;

static const unit_rule rules[] = {
    {0, "alloc_period", "bytes"},
    {0, "bytes_allocated", "bytes"},
    {0, "size", "workload size (--size)"},
    {0, "depth", "stack frames"},
    {0, "time_hz", "Hz"},
    {0, "time_hz_achieved", "Hz"},
    {0, "runs", "runs"},
    {0, "runs_failed", "runs"},
    {0, "baseline_runs", "runs"},
    {0, "pairs", "blocks"},
    {0, "adaptive_rounds", "rounds"},
    {0, "wall_outliers", "runs"},
    {0, "cpu_outliers", "runs"},
    {0, "exact_checked", "runs"},
    {0, "exact_mismatches", "runs"},
    {0, "alloc_samples", "samples per run"},
    {0, "alloc_sample_points", "sample points per run"},
    {0, "time_samples", "samples per run"},
    {0, "samples_ratio", "ratio (measured / expected samples)"},
    {0, "mw_u", "U statistic"},
    {0, "mw_p", "p-value"},
    {0, "aa_floor", "fraction"},
    {0, "paired_floor", "fraction"},
    {0, "replicates", "replicates"},
    {0, "family_size", "cells"},
    {2, "rep_", "standard deviation of the log of the ratio"},
    {1, "_ns", "ns"},
    {2, "_us", "us"},
    {1, "_kb", "KiB"},
    {2, "sps", "samples/s"},
    {2, "norm", "ratio to the baseline, scaled to 1000 samples/s"},
    {2, "overhead", "ratio to the baseline"},
    {2, "aa_", "ratio (A/A)"},
    {2, "paired", "ratio to the baseline"},
};

const char *st_json_unit(const char *column) {
    size_t n = strlen(column);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const unit_rule *r = &rules[i];
        size_t k = strlen(r->pat);
        if ((r->how == 0 && strcmp(column, r->pat) == 0) ||
            (r->how == 1 && n >= k && strcmp(column + n - k, r->pat) == 0) || (r->how == 2 && strstr(column, r->pat)))
            return r->unit;
    }
    return NULL;
}
