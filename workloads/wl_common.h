/* wl_common.h - what every workload shares: arguments, checksum, errors, types.
 *
 * A workload is a program that runs entirely on the runtime (sgc.h) and proves
 * its own result.  This header keeps each workload's file about its workload:
 *
 *  - Arguments.  wl_start() parses the command line every workload accepts:
 *      --size N    amount of work (decimal, also --size=N); default per workload
 *      --check     after printing the checksum, compare it with the expected
 *                  value computed independently of the garbage-collected heap
 *      --help, -h  usage on stdout, exit 0
 *    plus the workload's own options (wl_option: integers such as --depth N,
 *    flags, strings).  Anything else - an unknown option, a missing or
 *    malformed number, a value out of range, a stray argument - prints
 *    "<workload>: <what is wrong> (see --help)" on stderr and exits with
 *    status 2.  wl_start() then calls sgc_init(), so a bad SGC_* setting is
 *    reported (status 2) before any work starts.
 *
 *  - Checksum.  A wl_checksum is a 64-bit, order-sensitive mixing hash: every
 *    wl_mix() changes all bits of the state, so a single wrong value anywhere
 *    in the computation changes the printed result.  The expected value is
 *    obtained by feeding the same sequence of values, computed without the
 *    runtime (closed form or a plain malloc-based reference), into another
 *    wl_checksum.
 *
 *  - Output.  wl_finish() prints exactly one line on stdout,
 *        checksum <16 lower-case hex digits>
 *    (the final state after a last avalanche step, zero-padded).  The line
 *    is the same under every SGC_* setting, since sampling and collection
 *    never change a workload's results.  With --check it then calls the
 *    expected-value function; on a mismatch it prints
 *        "<workload>: check failed: checksum X, expected Y (size N)"
 *    on stderr and exits with status 1.  The reference computation runs only
 *    under --check, after the measured work, so timing runs never pay it.
 *
 *  - Failures found while running (a broken invariant a workload checks on
 *    its own) go through wl_fail(): message on stderr, exit status 1.
 *
 *  - Random numbers.  wl_rng is a seeded xorshift64* generator, identical
 *    on every run, for workloads and their references to draw the same values.
 *
 *  - Iterations.  wl_iteration() marks one natural unit of work (a step of
 *    the main loop) for in-process alternation (runtime/sgc_alt.h): the
 *    segment driver counts it as work and may end a segment there, which
 *    matters for workloads that seldom collect.  Optional; it costs a
 *    decrement and a compare when alternation is off.
 *
 *  - Types.  wl_type() registers a runtime type in one line; WL_PTR(T, f)
 *    is the ptr_map bit of pointer field f of struct T (the field must be
 *    8-byte aligned, which the macro checks at compile time).
 */
#ifndef WL_COMMON_H
#define WL_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "sgc.h"
#include "sgc_alt.h"

/* ---- Arguments ------------------------------------------------------------ */

typedef enum wl_opt_kind {
    WL_OPT_INT = 0, /* --name N: decimal integer in [min, max], into *(int64_t *)dest */
    WL_OPT_FLAG,    /* --name: sets *(int *)dest to 1 */
    WL_OPT_STRING   /* --name TEXT: *(const char **)dest points into argv */
} wl_opt_kind;

/* One workload-specific option.  Arrays of options end with a zeroed entry
 * (name NULL).  dest keeps its value if the option is not given, so set the
 * default before calling wl_start(). */
typedef struct wl_option {
    const char *name; /* with the dashes: "--depth" */
    wl_opt_kind kind; /* how the value is read */
    void *dest;       /* where the value goes (see wl_opt_kind) */
    int64_t min, max; /* WL_OPT_INT only: accepted range, inclusive */
    const char *help; /* one line for --help, e.g. "recursion depth (default 64)" */
} wl_option;

/* What a workload says about itself. */
typedef struct wl_spec {
    const char *name;         /* program name used in messages, e.g. "gcbench" */
    const char *summary;      /* one line for --help: what it models */
    int64_t default_size;     /* --size when not given (about 0.3 s of work) */
    int64_t min_size;         /* smallest accepted --size */
    int64_t max_size;         /* largest accepted --size */
    const char *size_help;    /* what --size counts, e.g. "tree depth" */
    const wl_option *options; /* workload options, or NULL; ends with name NULL */
} wl_spec;

/* The parsed command line. */
typedef struct wl_run {
    const wl_spec *spec; /* the workload */
    int64_t size;        /* --size, or spec->default_size */
    int check;           /* 1 if --check was given */
} wl_run;

/* Parses argv against spec (and spec->options), then calls sgc_init().
 * Returns the parsed run.  --help prints usage and exits 0; any bad argument
 * prints a message naming it and exits 2 (see the header comment).  Never
 * returns on those paths. */
wl_run wl_start(const wl_spec *spec, int argc, char **argv);

/* Parses a whole decimal integer (optional leading '-').  Returns 0 and sets
 * *out, or -1 if text is empty, has any other character, or overflows. */
int wl_parse_int(const char *text, int64_t *out);

/* ---- Checksum ------------------------------------------------------------ */

/* The running state of a checksum.  Initialise with WL_CHECKSUM_INIT. */
typedef struct wl_checksum {
    uint64_t h; /* current state; never read directly, use wl_checksum_value() */
} wl_checksum;

#define WL_CHECKSUM_INIT \
    { 0x6a09e667f3bcc908ull }

/* Mixes one 64-bit value into c.  Order matters: mixing a then b differs
 * from b then a.  Cheap (a rotate, a xor, a multiply), so workloads may call
 * it per object visited. */
static inline void wl_mix(wl_checksum *c, uint64_t v) {
    uint64_t h = (c->h << 27) | (c->h >> 37);
    c->h = (h ^ v) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
}

/* Mixes the bit pattern of a double (so the reference computation must use
 * the same arithmetic in the same order to agree; -0.0 and 0.0 differ). */
static inline void wl_mix_double(wl_checksum *c, double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    wl_mix(c, bits);
}

/* The printed value: the state after a final avalanche (every input bit
 * affects every output bit). */
uint64_t wl_checksum_value(const wl_checksum *c);

/* ---- Deterministic random numbers ----------------------------------------- */

/* xorshift64*: a small, fast generator whose sequence is the same on every
 * run and platform, so a workload and its reference computation draw the
 * same numbers.  The state must not be 0 (wl_rng_seed takes care of it). */
typedef struct wl_rng {
    uint64_t s; /* current state, never 0 */
} wl_rng;

static inline wl_rng wl_rng_seed(uint64_t seed) {
    wl_rng r = {seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull};
    if (r.s == 0)
        r.s = 1;
    return r;
}

static inline uint64_t wl_rand(wl_rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1dull;
}

/* A number in [0, n), n >= 1 (the high bits, scaled: no modulo bias worth
 * caring about for workloads). */
static inline uint64_t wl_rand_below(wl_rng *r, uint64_t n) {
    return (uint64_t)(((unsigned __int128)wl_rand(r) * n) >> 64);
}

/* ---- Finishing ------------------------------------------------------------ */

/* Computes the expected checksum for run->size (and the workload's options)
 * without the garbage-collected heap.  Called only under --check. */
typedef uint64_t (*wl_expected_fn)(const wl_run *run);

/* Prints "checksum <16 hex>" on stdout (flushed).  With --check, computes
 * expected(run) and compares: on a mismatch prints both values on stderr
 * and exits 1.  Returns 0, meant as main's return value. */
int wl_finish(const wl_run *run, const wl_checksum *sum, wl_expected_fn expected);

/* A failure found while running: prints "<workload>: <message>" on stderr
 * and exits with status 1.  printf-style. */
__attribute__((noreturn, format(printf, 2, 3))) void wl_fail(const wl_run *run, const char *fmt, ...);

/* Allocates size bytes with malloc for a reference computation; out of
 * memory prints a message and exits 1.  Never returns NULL. */
void *wl_xmalloc(size_t size);
/* The same, zero-filled (calloc). */
void *wl_xcalloc(size_t n, size_t size);

/* ---- Iterations ------------------------------------------------------------ */

/* One unit of the workload's main loop, where it has a natural one (see the
 * header comment). */
static inline void wl_iteration(void) { sgc_iteration(); }

/* ---- Types ---------------------------------------------------------------- */

/* The ptr_map bit of pointer field f of struct T.  Fails to compile if the
 * field is not 8-byte aligned within T. */
#define WL_PTR(T, f)                      \
    ((uint64_t)1 << (offsetof(T, f) / 8 + \
                     0 * sizeof(struct { int wl_field_must_be_8_aligned : (offsetof(T, f) % 8 == 0) ? 1 : -1; })))

/* Registers a type named name (shown in profiles; a string literal or other
 * storage that outlives the runtime) whose fixed part is fixed_size bytes
 * with pointers at the words set in ptr_map, followed by var elements.
 * Returns the type id.  A fixed part over 512 bytes or a pointer bit beyond
 * it is a programming error: message and exit 1. */
uint32_t wl_type(const char *name, size_t fixed_size, uint64_t ptr_map, sgc_var_kind var);

#endif /* WL_COMMON_H */
