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
// Invariant: after ReadStackTraces returns, nothing here allocates with
// malloc (its result is freed before the counts are used).
#include <gperftools/malloc_extension.h>
#include <stdint.h>

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
