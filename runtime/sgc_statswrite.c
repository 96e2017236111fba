/* sgc_statswrite.c - the stats record's lines from the collector's values
 * (invariants: sgc_statswrite.h; the keys: sgc_stats_keys.h). */
#include "sgc_statswrite.h"

#include "sgc_modes.h"
#include "sgc_stats_keys.h"

int sgc__statsw_fill(FILE *f, void *ctx) {
    const sgc_statsw_in *in = ctx;
    /* The names the table's expressions use (sgc_stats_keys.h). */
    const sgc_stats s = in->s;
    const sgc_settings *st = in->st;
    uint64_t run_ns = in->run_ns;
    int time_sampler_cpu = in->time_sampler_cpu, hugepages_in_effect = in->hugepages_in_effect;
    double hz = s.time_sampling_ns ? (double)s.time_samples / ((double)s.time_sampling_ns / 1e9) : 0.0;
    fprintf(f, "sgc-stats 1\n");
    /* One line per row of sgc_stats_keys.h, in its order. */
#define PUT_U64(key, v) fprintf(f, "%s %llu\n", key, (unsigned long long)(v))
#define PUT_INT(key, v) fprintf(f, "%s %d\n", key, (int)(v))
#define PUT_DEC3(key, v) fprintf(f, "%s %.3f\n", key, (double)(v))
#define PUT_WORD(key, v) fprintf(f, "%s %s\n", key, (v))
#define PUT_KEY(key, type, value, what) PUT_##type(#key, value);
    SGC_STATS_KEYS(PUT_KEY)
#undef PUT_KEY
#undef PUT_U64
#undef PUT_INT
#undef PUT_DEC3
#undef PUT_WORD
    return 0;
}
