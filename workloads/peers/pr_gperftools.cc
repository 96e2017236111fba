// pr_gperftools.cc - the C peers' sampler report for gperftools' tcmalloc (2.10, Debian's libtcmalloc).
//
// tcmalloc samples allocations when TCMALLOC_SAMPLE_PARAMETER is a positive
// number of bytes: the bytes between two samples are drawn from an
// exponential distribution with that mean, so alloc_mode is poisson.  The
// period in force is the one tcmalloc reports with its sampled stack traces
// (MallocExtension::ReadStackTraces).
//
// What tcmalloc 2.10 cannot give is a count of the samples it took: a sampled
// object's stack trace is kept only while the object is allocated and dropped
// when it is freed, and no counter, statistic or hook records sampled
// allocations (MallocExtension's numeric properties, GetStats and the malloc
// hooks know nothing of sampling; its allocated size is reported as if it had
// not been sampled).  So this peer writes no alloc_samples, only
// alloc_samples_live: the sampled objects still allocated at exit, from
// ReadStackTraces, tcmalloc's own list.
//
// In-process alternation (pr_alt.h).  tcmalloc 2.10 has no interface to
// change its sampling period at run time: MallocExtension has no such call
// and none of its numeric properties is about sampling.  Its sampler reads
// the period from the global flag FLAGS_tcmalloc_sample_parameter each time
// a gap runs out (sampler.cc, PickNextSamplingPoint, whose comment says the
// flag may change at run time), and libtcmalloc.so exports the flag, so the
// driver switches sampling by writing it: P for on, 0 for off.  Off is
// exact: a gap that runs out with the flag at 0 takes no sample (and the
// next gap is a fixed 16 MiB).  On needs one more step: a gap drawn while the
// flag was 0 is that fixed 16 MiB, which would leave the start of an on
// segment unsampled, so switching on allocates and frees one block of
// 16 MiB + 1 bytes, which runs any such gap out and draws a fresh gap with
// mean P (a pending gap drawn with mean P either runs out too or keeps the
// rest of an exponential gap: memoryless).  That block is the only
// allocation of a switch; it is not the program's (not counted in its
// bytes) and happens between two segments.  tcmalloc keeps no count of its
// samples, so the segments' alloc_samples are not measured (the series says
// so in its "unmeasured" line).
//
// Invariant: after ReadStackTraces returns, nothing here allocates with
// malloc (its result is freed before the counts are used).
#include <gperftools/malloc_extension.h>
#include <gperftools/tcmalloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pr_common.h"

void pr_sampler_read(pr_sampler *s) {
    s->system = "gperftools";
    s->mode = "poisson";
    int period = 0;
    void **traces = MallocExtension::instance()->ReadStackTraces(&period);
    uint64_t live = 0;
    // Entries: count, size, depth, then depth program counters; a count of 0 ends the list.
    for (void **e = traces; e && reinterpret_cast<uintptr_t>(e[0]) != 0; e += 3 + reinterpret_cast<uintptr_t>(e[2]))
        live += reinterpret_cast<uintptr_t>(e[0]);
    delete[] traces;
    s->period = period > 0 ? (uint64_t)period : 0;
    s->live_known = 1;
    s->live = live;
    s->problem = "gperftools' tcmalloc keeps no count of the samples it took, only the sampled objects still "
                 "allocated (alloc_samples_live)";
}

// ---- In-process alternation --------------------------------------------------

// tcmalloc's period flag (sampler.cc: DEFINE_int64(tcmalloc_sample_parameter, ...)), an exported symbol.
namespace FLAG__namespace_do_not_use_directly_use_DECLARE_int64_instead {
extern int64_t FLAGS_tcmalloc_sample_parameter;
}
using FLAG__namespace_do_not_use_directly_use_DECLARE_int64_instead::FLAGS_tcmalloc_sample_parameter;

static int64_t tc_period;

// Larger than the fixed gap tcmalloc draws while the flag is 0 (16 MiB).
static const size_t tc_reset_bytes = (size_t{16} << 20) + 1;

extern "C" int pr_alt_sampler_prepare(const char *mode, pr_alt_sampler *s, char *why, size_t whylen) {
    memset(s, 0, sizeof *s);
    s->system = "gperftools";
    s->nocount = "gperftools' tcmalloc keeps no count of the samples it took";
    tc_period = FLAGS_tcmalloc_sample_parameter;
    if (tc_period < 0)
        tc_period = 0;
    s->period = (uint64_t)tc_period;
    s->on_at_start = tc_period > 0;
    if (!strcmp(mode, "alloc") && tc_period == 0) {
        snprintf(why, whylen, "alternating tcmalloc's sampler needs its period: TCMALLOC_SAMPLE_PARAMETER=BYTES");
        return -1;
    }
    return 0;
}

extern "C" void pr_alt_sampler_set(int on) {
    FLAGS_tcmalloc_sample_parameter = on ? tc_period : 0;
    if (on)
        tc_free(tc_malloc(tc_reset_bytes));
}

extern "C" uint64_t pr_alt_sampler_count(void) { return 0; }
