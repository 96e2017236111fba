/* sgc_settings_table.h - the runtime's SGC_* settings: one table, the only
 * place their names, kinds, limits, defaults, documentation, and what the
 * harness does with them are written.
 *
 * Invariants:
 *  - Every SGC_* variable the runtime reads is one row of SGC_SETTINGS, in
 *    the order of docs/RUNTIME.md's settings table (which a test checks is
 *    the table's text, tests/harness/settings_doc.sh), and the runtime reads
 *    and checks them in this order: a setting checked against another (the
 *    heap limit against the nursery, the offset against the period and the
 *    mode, the time sampler's mode against the clock, the alternation
 *    against the period and the rate) comes after it.  The order is also the
 *    one "did you mean" breaks ties in.
 *  - The runtime's sgc_settings struct has one field per row (FIELD, of
 *    CTYPE, initialised to DEFAULT); its parsing and its refusal for a value
 *    it cannot read ("freecheck: SGC_X=<value>: WHY", exit 2) come from the
 *    row's KIND, LO, HI and WHY (runtime/sgc_settings.c; the checks against
 *    other settings are there, by the row's ID).
 *  - ENV says what the harness does with the setting: a rank from 1 lets
 *    sweep --env pass it to every run (listed in that order in --help and in
 *    the refusals); SGC_SETTING_OWNED: the sweep sets it per cell and run;
 *    0: --env refuses it.
 *  - CONFIRM says how a run's stats record confirms the setting reached the
 *    runtime (harness/sw_run.c judges every run by it), on the record's key
 *    KEY: ROUND8 (the value as a byte count rounded down to a multiple of 8,
 *    when the record has the key), EQUAL (the value: as a number for UINT
 *    and SWITCH, in thousandths for DEC3, as a word otherwise; a record
 *    without the key fails), ONE (with the
 *    value 1, the key shows 1 when the record has it; NOTE says what 1 asks
 *    for), CELL (the cell's value: the cell axes, harness/sw_run.c), NONE.
 *  - Nothing here depends on the rest of the runtime: the harness includes
 *    this header without linking libsgc.  The WORD rows' LO and HI name the
 *    parse and name functions of their word table (runtime/sgc_modes.h,
 *    runtime/sgc_alt.h); only the runtime expands them.
 *
 * A row: X(ID, NAME, KIND, CTYPE, FIELD, DEFAULT, LO, HI, WHY, ENV, CONFIRM,
 *          KEY, NOTE, UNIT, MEANING, ACCEPTED, DEFAULT_DOC)
 * KIND: SIZE (a byte count with K/M/G), UINT (decimal), US (decimal
 * microseconds, stored as ns), DEC3 (a decimal with at most three decimals,
 * LO and HI in thousandths), SWITCH (0 or 1), WORD (a word of a table),
 * PATH (a file; empty = unset), SEGMENT (SGC_ALT_SEGMENT's two forms).
 * MEANING, ACCEPTED and DEFAULT_DOC are docs/RUNTIME.md's columns; UNIT is
 * docs/HARNESS.md's.
 *
 * Adding a setting: a row here, and the code that acts on sgc__settings.FIELD;
 * a check against another setting goes in runtime/sgc_settings.c (check()),
 * a stats key that confirms it in runtime/sgc_stats_keys.h.  docs/RUNTIME.md
 * and docs/HARNESS.md take the row's text (make test-harness-settings-doc
 * prints the rows it expects).
 */
#ifndef SGC_SETTINGS_TABLE_H
#define SGC_SETTINGS_TABLE_H

#include <stdint.h>
#include <stddef.h>

/* Defaults and limits the rows name (docs/RUNTIME.md). */
#define SGC_DEFAULT_NURSERY ((size_t)1 << 20)   /* 1 MiB: the L2 size of the reference machine */
#define SGC_DEFAULT_SEED ((uint64_t)0x5eedf3ee) /* fixed, so poisson runs repeat by default */
#define SGC_MIN_NURSERY ((uint64_t)4096)
#define SGC_MAX_NURSERY ((uint64_t)1 << 36) /* 64 GiB: beyond that a typo is likelier */
#define SGC_MAX_TIME_HZ 100000u
#define SGC_MAX_SAMPLE_SPIN_NS 1000000000u         /* 1 s per sample: beyond that a typo is likelier */
#define SGC_DEFAULT_ALT_CPU_NS ((uint64_t)5000000) /* 5 ms of thread CPU time per segment */
#define SGC_MAX_ALT_MS 60000u                      /* a minute: longer is a typo */
#define SGC_MAX_ALT_FILLS 1000000u                 /* minor collections per segment */
#define SGC_MAX_ALT_DEBUG_US 1000000u              /* a second of artificial cost per segment */
#define SGC_MAX_VIRTUAL_STEP_NS 1000000000u        /* a second per clock reading: beyond that a typo is likelier */
#define SGC_SETTING_OWNED (-1)                     /* ENV: the sweep sets it per cell and run */

/* clang-format off */
#define SGC_SETTINGS(X) \
    X(NURSERY, "SGC_NURSERY", SIZE, size_t, nursery_size, SGC_DEFAULT_NURSERY, SGC_MIN_NURSERY, SGC_MAX_NURSERY, "expected a byte count such as 65536, 256K or 4M", 1, ROUND8, "nursery_size", "", "bytes", \
      "nursery size in bytes; a size the system refuses to map exits 2 at start-up, naming it", \
      "4K .. 64G, rounded down to a multiple of 8", "**1M** (1 MiB)") \
    X(MAJOR_GROWTH, "SGC_MAJOR_GROWTH", DEC3, double, major_growth, 2.0, 1001, 1000000, "expected a growth factor above 1 and at most 1000, a decimal number with at most three decimals such as 2 or 1.5", 2, EQUAL, "major_growth", "", "factor", \
      "a major collection runs when the heap has grown to this factor times the live heap after the previous one", \
      "a decimal number above 1 and at most 1000, with at most three decimals (the stats record states it with three): `2`, `1.5`, `1.001`", "**2.0**") \
    X(HEAP_MAX, "SGC_HEAP_MAX", SIZE, uint64_t, heap_max, 0, 0, UINT64_MAX, "expected a byte count such as 512M or 4G (0 = no limit)", 0, NONE, "", "", "bytes", \
      "heap limit in bytes: old generation + large objects + nursery after a full collection; 0 = no limit (see \"Out of memory\")", \
      "0, or a size above the nursery", "0 (none)") \
    X(HUGEPAGES, "SGC_HUGEPAGES", SWITCH, int, hugepages, 0, 0, 1, "", 8, ONE, "hugepages_in_effect", "huge pages (docs/RUNTIME.md, \"Huge pages\")", "", \
      "map the nursery and the old generation's chunks 2 MiB-aligned and ask the kernel for transparent huge pages for them (`madvise(MADV_HUGEPAGE)`); if the system has none, a warning and the stats key `hugepages_in_effect` say so (see \"Huge pages\")", \
      "0 or 1", "0") \
    X(ALLOC_PERIOD, "SGC_ALLOC_PERIOD", SIZE, uint64_t, alloc_period, 0, 0, UINT64_MAX, "expected a byte count such as 4096, 512K or 4M (0 = off)", SGC_SETTING_OWNED, CELL, "alloc_period", "", "bytes", \
      "allocation sampling period, bytes; 0 = off", \
      "size", "0 (off)") \
    X(ALLOC_MODE, "SGC_ALLOC_MODE", WORD, sgc_sample_mode, alloc_mode, SGC_SAMPLE_FIXED, sgc_alloc_mode_parse, sgc_alloc_mode_name, "", SGC_SETTING_OWNED, CELL, "alloc_mode", "", "", \
      "`fixed` or `poisson`", \
      "", "fixed") \
    X(SEED, "SGC_SEED", UINT, uint64_t, seed, SGC_DEFAULT_SEED, 0, UINT64_MAX, "expected an unsigned decimal integer below 2^64", SGC_SETTING_OWNED, NONE, "", "", "", \
      "seed for poisson gaps", \
      "0 .. 2^64-1", "**1592652782** (0x5eedf3ee)") \
    X(ALLOC_OFFSET, "SGC_ALLOC_OFFSET", SIZE, uint64_t, alloc_offset, 0, 0, UINT64_MAX, "expected a byte count below the period, such as 0, 1000 or 3K", 0, NONE, "", "", "bytes", \
      "fixed mode only: moves the sample points from the multiples of P to P - o, 2P - o, ..., so after T bytes `floor((T + o) / P)` samples (an accuracy study's varied start; docs/SAMPLING.md)", \
      "size below `SGC_ALLOC_PERIOD`; nonzero needs fixed-mode sampling on and no `SGC_ALTERNATE=alloc` or `both` (each on segment restarts sampling)", "0") \
    X(TIME_HZ, "SGC_TIME_HZ", UINT, unsigned, time_hz, 0, 0, SGC_MAX_TIME_HZ, "expected a rate in Hz from 0 (off) to 100000", SGC_SETTING_OWNED, CELL, "time_hz", "", "Hz", \
      "time sampling rate; 0 = off", \
      "0 .. 100000", "0 (off)") \
    X(TIME_CLOCK, "SGC_TIME_CLOCK", WORD, sgc_clock, time_clock, SGC_CLOCK_WALL, sgc_clock_parse, sgc_clock_name, "", SGC_SETTING_OWNED, CELL, "time_clock", "", "", \
      "`wall` or `cpu`", \
      "", "wall") \
    X(TIME_MODE, "SGC_TIME_MODE", WORD, sgc_time_mode, time_mode, SGC_TIME_SIGNAL, sgc_time_mode_parse, sgc_time_mode_name, "", 9, CELL, "time_mode", "", "", \
      "how a time sample is taken: `signal` (a timer signal interrupts the program) or `thread` (a sampler thread reads the shadow stack without interrupting it; wall clock only); docs/PROFILE.md", \
      "", "signal") \
    X(PROFILE, "SGC_PROFILE", PATH, const char *, profile_path, NULL, 0, 0, "", SGC_SETTING_OWNED, NONE, "", "", "path", \
      "profile file path; empty = none; checked at start-up (see \"Output files\"); a write that fails (a full disk) is reported and makes the exit status 1, the program running on to its end", \
      "a regular file or a new one", "none") \
    X(STATS, "SGC_STATS", PATH, const char *, stats_path, NULL, 0, 0, "", SGC_SETTING_OWNED, NONE, "", "", "path", \
      "stats record path; empty = none; checked at start-up (see \"Output files\": a temporary file is created next to it and removed), so an unwritable path exits 2 before the program runs", \
      "a regular file or a new one", "none") \
    X(GC_STRESS, "SGC_GC_STRESS", UINT, uint64_t, stress_every, 0, 0, UINT64_MAX, "expected a number of allocations between forced minor collections (0 = off)", 3, EQUAL, "stress_every", "", "allocations", \
      "debug: a minor collection every N allocations; 0 = off", \
      "integer", "0") \
    X(VERIFY, "SGC_VERIFY", SWITCH, int, verify, 0, 0, 1, "", 4, EQUAL, "verify", "", "", \
      "debug: run the heap verifier before and after every collection", \
      "0 or 1", "0") \
    X(POISON, "SGC_POISON", SWITCH, int, poison, 0, 0, 1, "", 5, EQUAL, "poison", "", "", \
      "debug: poison evacuated nursery space, freed old slots and freed large objects", \
      "0 or 1", "0") \
    X(SAMPLE_SPIN_NS, "SGC_SAMPLE_SPIN_NS", UINT, uint64_t, sample_spin_ns, 0, 0, SGC_MAX_SAMPLE_SPIN_NS, "expected nanoseconds of busy-waiting per sample, from 0 (off) to 1000000000", 6, EQUAL, "sample_spin_ns", "", "ns", \
      "validation: every allocation sample and every time sample busy-waits this many nanoseconds on top of its real work (below)", \
      "0 .. 1000000000", "0 (off)") \
    X(SAMPLE_SPIN_CLOCK, "SGC_SAMPLE_SPIN_CLOCK", WORD, sgc_clock, sample_spin_clock, SGC_CLOCK_WALL, sgc_clock_parse, sgc_clock_name, "", 7, EQUAL, "sample_spin_clock", "", "", \
      "validation: what the spin's nanoseconds are: `wall` (CLOCK_MONOTONIC) or `cpu` (the thread's CPU time, by its clock)", \
      "", "wall") \
    X(ALTERNATE, "SGC_ALTERNATE", WORD, int, alt_mode, 0, sgc_alt_mode_parse, sgc_alt_mode_name, "", 0, NONE, "", "", "", \
      "in-process alternation (below): what the B segments switch on", \
      "`off`, `none` (A/A), `alloc`, `time`, `both`", "off") \
    X(ALT_SEGMENT, "SGC_ALT_SEGMENT", SEGMENT, uint64_t, alt_cpu_ns, SGC_DEFAULT_ALT_CPU_NS, 1, SGC_MAX_ALT_FILLS, "expected a number of minor collections from 1 to 1000000 (such as 16), or a CPU time such as 20ms", 0, NONE, "", "", "ms or collections", \
      "segment length: thread CPU time, or minor collections", \
      "`1ms` .. `60000ms`, or 1 .. 1000000", "**5ms** (at least 20 timer periods when time sampling is alternated)") \
    X(ALT_OUT, "SGC_ALT_OUT", PATH, const char *, alt_out, NULL, 0, 0, "", 0, NONE, "", "", "path", \
      "segment series path (docs/FORMATS.md); empty = none; checked at start-up like `SGC_STATS` (see \"Output files\")", \
      "a regular file or a new one", "none") \
    X(ALT_CARRY, "SGC_ALT_CARRY", US, uint64_t, alt_carry_ns, 0, 0, SGC_MAX_ALT_DEBUG_US, "expected microseconds from 0 to 1000000", 0, NONE, "", "", "us", \
      "debug: microseconds of CPU burnt at the start of the segment after each B segment (the carry-over test)", \
      "0 .. 1000000", "0") \
    X(ALT_COST, "SGC_ALT_COST", US, uint64_t, alt_cost_ns, 0, 0, SGC_MAX_ALT_DEBUG_US, "expected microseconds from 0 to 1000000", 0, NONE, "", "", "us", \
      "debug: microseconds of CPU burnt at the start of each B segment (its positive control)", \
      "0 .. 1000000", "0") \
    X(VIRTUAL_CLOCK, "SGC_VIRTUAL_CLOCK", UINT, uint64_t, virtual_clock_ns, 0, 0, SGC_MAX_VIRTUAL_STEP_NS, "expected nanoseconds per clock reading from 1 to 1000000000, or 0 (off: the real clock)", 0, NONE, "", "", "ns", \
      "the times the runtime records come from a virtual clock that advances this many nanoseconds per reading, so that they repeat from run to run (below; the simulated part of a sweep sets 1000); 0 = the real clock (CLOCK_MONOTONIC)", \
      "0 .. 1000000000", "0 (off)")
/* clang-format on */

typedef enum sgc_setting_kind {
    SGC_KIND_SIZE,
    SGC_KIND_UINT,
    SGC_KIND_US,
    SGC_KIND_DEC3,
    SGC_KIND_SWITCH,
    SGC_KIND_WORD,
    SGC_KIND_PATH,
    SGC_KIND_SEGMENT,
} sgc_setting_kind;

typedef enum sgc_setting_confirm {
    SGC_CONFIRM_NONE,
    SGC_CONFIRM_ROUND8,
    SGC_CONFIRM_EQUAL,
    SGC_CONFIRM_ONE,
    SGC_CONFIRM_CELL,
} sgc_setting_confirm;

/* The number of each row (SGC_SETTING_NURSERY = 0, ...). */
#define SGC__SETTING_ID(id, ...) SGC_SETTING_##id,
typedef enum sgc_setting_id { SGC_SETTINGS(SGC__SETTING_ID) SGC_NSETTINGS } sgc_setting_id;
#undef SGC__SETTING_ID

/* A row's columns that need no runtime symbol, for the harness and the
 * documentation. */
typedef struct sgc_setting_row {
    const char *name;
    sgc_setting_kind kind;
    int env;
    sgc_setting_confirm confirm;
    const char *key, *note, *unit, *meaning, *accepted, *default_doc;
} sgc_setting_row;

/* Row i (0 .. SGC_NSETTINGS - 1), or NULL. */
static inline const sgc_setting_row *sgc_setting_row_at(int i) {
#define SGC__SETTING_ROW(id, name, kind, ctype, field, def, lo, hi, why, env, confirm, key, note, unit, meaning, \
                         accepted, default_doc)                                                                  \
    {name, SGC_KIND_##kind, env, SGC_CONFIRM_##confirm, key, note, unit, meaning, accepted, default_doc},
    static const sgc_setting_row rows[] = {SGC_SETTINGS(SGC__SETTING_ROW)};
#undef SGC__SETTING_ROW
    return i >= 0 && i < SGC_NSETTINGS ? &rows[i] : NULL;
}

/* The row whose name is the len characters at name, or NULL. */
static inline const sgc_setting_row *sgc_setting_find(const char *name, size_t len) {
    for (int i = 0; i < SGC_NSETTINGS; i++) {
        const sgc_setting_row *r = sgc_setting_row_at(i);
        size_t n = 0;
        while (r->name[n] && n < len && r->name[n] == name[n])
            n++;
        if (n == len && !r->name[n])
            return r;
    }
    return NULL;
}

/* The row --env lists rank-th (1, 2, ...), or NULL past the last. */
static inline const sgc_setting_row *sgc_setting_env_rank(int rank) {
    for (int i = 0; i < SGC_NSETTINGS; i++)
        if (sgc_setting_row_at(i)->env == rank && rank > 0)
            return sgc_setting_row_at(i);
    return NULL;
}

#endif /* SGC_SETTINGS_TABLE_H */
