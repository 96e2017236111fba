// pr_gperftools.cc - the C peers' sampler report for gperftools' tcmalloc (2.10, Debian's libtcmalloc).
//
// tcmalloc samples allocations when TCMALLOC_SAMPLE_PARAMETER is a positive
// number of bytes: the bytes between two samples are drawn from an
// exponential distribution with that mean, so alloc_mode is poisson.  The
// period in force is the one tcmalloc reports with its sampled stack traces
// (MallocExtension::ReadStackTraces).
//
// tcmalloc 2.10 keeps no count of the samples it took: a sampled object's
// stack trace is kept only while the object is allocated and dropped when it
// is freed, and no counter, statistic or hook records sampled allocations
// (MallocExtension's numeric properties, GetStats and the malloc hooks know
// nothing of sampling).  But every sample takes one stack trace: tcmalloc's
// DoSampledAllocation (tcmalloc.cc) calls GetStackTrace(stack,
// kMaxStackDepth = 31, skip 1), and libtcmalloc.so calls that exported
// function through its PLT, so a definition in the program comes first
// (symbol interposition).  This file defines it: it counts the calls with
// exactly those arguments and passes every call on to tcmalloc's own (found
// with dlsym(RTLD_NEXT), skipping one frame more, its own, so the stacks
// tcmalloc records are unchanged).  Its other callers (the heap growth
// stacks, 30 frames skipping 3, and MallocHook_GetCallerStackTrace) are
// passed on uncounted.  alloc_samples is that count; the cost of counting is
// a call and an increment per sample, inside the sample.  tests/peers/
// checks it against tcmalloc's own list: with nothing freed, every sampled
// object is still allocated, and ReadStackTraces lists exactly as many.
// If the program does not come first (the symbol bound elsewhere), the
// count is not written, and the record says why.
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
// bytes), happens between two segments, and a sample it takes is not
// counted (the samples of the series and of the record are the program's).
//
// Invariant: the count is read before ReadStackTraces, whose result is an
// allocation (possibly sampled) of its own; after it returns, nothing here
// allocates with malloc (its result is freed before the counts are used).
#include <dlfcn.h>
#include <gperftools/malloc_extension.h>
#include <gperftools/tcmalloc.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pr_common.h"

// ---- The count of samples: GetStackTrace interposed --------------------------

typedef int (*tc_stacktrace_fn)(void **, int, int);
static tc_stacktrace_fn tc_real_stacktrace; // tcmalloc's GetStackTrace (libtcmalloc's)
static uint64_t tc_sampled;                 // the calls of a sampled allocation
static uint64_t tc_switch_sampled;          // of them, the switch's reset blocks'

// tcmalloc's arguments in DoSampledAllocation: kMaxStackDepth, skip 1.
enum { TC_SAMPLE_DEPTH = 31, TC_SAMPLE_SKIP = 1 };

__attribute__((constructor)) static void tc_find_stacktrace(void) {
    tc_real_stacktrace = reinterpret_cast<tc_stacktrace_fn>(dlsym(RTLD_NEXT, "_Z13GetStackTracePPvii"));
}

// The definition libtcmalloc's calls reach first (the mangled name
// _Z13GetStackTracePPvii, as libtcmalloc.so exports it).
__attribute__((noinline)) int GetStackTrace(void **result, int max_depth, int skip_count) {
    if (max_depth == TC_SAMPLE_DEPTH && skip_count == TC_SAMPLE_SKIP)
        __atomic_fetch_add(&tc_sampled, 1, __ATOMIC_RELAXED);
    int n = tc_real_stacktrace ? tc_real_stacktrace(result, max_depth, skip_count + 1) : 0;
    __asm__ volatile("" ::: "memory"); // not a tail call: this frame is the one skipped
    return n;
}

// Why the count cannot be had, or NULL: tcmalloc's calls must reach the
// definition above (the program's), and it must reach tcmalloc's.
static const char *tc_count_problem(void) {
    void *bound = dlsym(RTLD_DEFAULT, "_Z13GetStackTracePPvii");
    if (bound != reinterpret_cast<void *>(&GetStackTrace))
        return "the program's GetStackTrace does not come before libtcmalloc's (linked statically?), so the samples "
               "tcmalloc took cannot be counted";
    if (!tc_real_stacktrace)
        return "libtcmalloc's GetStackTrace was not found (dlsym), so the samples tcmalloc took cannot be counted";
    return nullptr;
}

static uint64_t tc_count(void) {
    return __atomic_load_n(&tc_sampled, __ATOMIC_RELAXED) - tc_switch_sampled;
}

void pr_sampler_read(pr_sampler *s) {
    s->system = "gperftools";
    s->mode = "poisson";
    // The count first: ReadStackTraces allocates its result, and that
    // allocation may be sampled (it is not the program's).
    s->samples = tc_count();
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
    s->problem = tc_count_problem();
    s->samples_known = !s->problem;
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
    s->nocount = tc_count_problem();
    s->counts = !s->nocount;
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
    if (on) {
        uint64_t before = __atomic_load_n(&tc_sampled, __ATOMIC_RELAXED);
        tc_free(tc_malloc(tc_reset_bytes));
        tc_switch_sampled += __atomic_load_n(&tc_sampled, __ATOMIC_RELAXED) - before;
    }
}

extern "C" uint64_t pr_alt_sampler_count(void) { return tc_count(); }
