/* sgc_statsrec.h - the rules of the stats record (SGC_STATS, docs/FORMATS.md,
 * "The stats record"): one implementation, used by every stage that reads a
 * record, so that what one stage accepts no other refuses.  The harness
 * judges each run's record by them (harness/sw_run.c: a bad record fails
 * that run alone, with the rule it breaks); analyze judges each stored record
 * of an ok run by them (stats/st_db.c: a record no sweep can store is a
 * damaged or edited database).  The keys, their types and meanings are
 * runtime/sgc_stats_keys.h's; these are the rules beside them.
 *
 * Invariants (the rules):
 *  - Form: the first line is exactly "sgc-stats 1" (version 1 is the only
 *    one this build reads); every further line is "key value": a key of
 *    lower-case letters, digits and '_', one space, a value of printable
 *    characters without spaces; every line ends with "\n" alone (no carriage
 *    return, so a record copied through a CRLF tool is named as such); no
 *    blank line; nothing after the last line end; at most SGC_STATSREC_MAX_BYTES
 *    bytes and SGC_STATSREC_MAX_KEYS keys.  Every key at most once.
 *  - Values: a key of the table has a value of its type: U64 decimal digits
 *    only (0 .. 2^64-1), INT an optional '-' and digits within an int, DEC3
 *    digits, '.' and three digits, WORD a name of its vocabulary
 *    (runtime/sgc_modes.h: a mode, a clock, a time mode).  A key not in the
 *    table (another system's record, a newer runtime's key) may have any
 *    value of the line's form: readers ignore keys they do not know.
 *  - Keys: SGC_STATSREC_CORE (run_ns, bytes_allocated, alloc_period,
 *    alloc_mode) are in every record any writer makes (freecheck's runtime,
 *    the peers' writers in workloads/peers/); with SGC_STATSREC_ALL_KEYS every
 *    key of the table is (a record of this build's runtime).
 *  - Consistency, where the keys are there: bytes_allocated = nursery_bytes +
 *    large_bytes, objects_allocated = nursery_objects + large_objects, gc_ns =
 *    minor_ns + major_ns (the table's own definitions), and alloc_samples <=
 *    alloc_sample_points <= bytes_allocated (an object sampled is a sample
 *    point hit; a point is at least a byte).
 *  - The functions keep no state and allocate nothing: thread-safe.
 */
#ifndef SGC_STATSREC_H
#define SGC_STATSREC_H

#include <stddef.h>

#define SGC_STATSREC_VERSION 1
/* A record of this runtime is about 1.5 KB; a longer file is not one. */
#define SGC_STATSREC_MAX_BYTES 65536
#define SGC_STATSREC_MAX_KEYS 1024

/* The keys every writer's record has (rows of sgc_stats_keys.h). */
#define SGC_STATSREC_CORE(X) X(run_ns) X(bytes_allocated) X(alloc_period) X(alloc_mode)

/* Flags of sgc_statsrec_judge. */
enum {
    SGC_STATSREC_REQUIRE_CORE = 1 << 0, /* the SGC_STATSREC_CORE keys must be there */
    SGC_STATSREC_ALL_KEYS = 1 << 1      /* every key of the table must be there (implies the core) */
};

/* What kind of rule a record broke. */
typedef enum sgc_statsrec_kind {
    SGC_STATSREC_OK = 0,
    SGC_STATSREC_FORM,       /* how the file is written: header, version, a line's form, a duplicate key, size */
    SGC_STATSREC_VALUE,      /* a key's value is not of its type */
    SGC_STATSREC_MISSING,    /* a key that must be there is not */
    SGC_STATSREC_CONSISTENCY /* values that cannot go together */
} sgc_statsrec_kind;

/* Why a record was refused: the line (1 is the header; 0 when the rule is
 * about no one line), the item ("alloc_period = 65536junk", "7000 allocation
 * samples from 6103 sample points") and the rule broken, in words. */
typedef struct sgc_statsrec_error {
    sgc_statsrec_kind kind;
    int line;
    char what[192];
    char why[256];
} sgc_statsrec_error;

/* One "key value" line of a record: pointers into its text. */
typedef struct sgc_statsrec_line {
    const char *key, *value;
    size_t key_len, value_len;
    int line; /* its line number (2 for the first key) */
} sgc_statsrec_line;

/* Checks the form of a record's text (len bytes, need not be NUL-terminated)
 * and splits it into its key lines, in order, into lines[0..max).  Returns
 * their number, or -1 with *err (kind SGC_STATSREC_FORM). */
int sgc_statsrec_split(const char *text, size_t len, sgc_statsrec_line *lines, int max, sgc_statsrec_error *err);

/* Checks one value by its key's type; a key not in the table passes.
 * Returns 0, or -1 with *why (static text) naming the type. */
int sgc_statsrec_check_value(const char *key, const char *value, const char **why);

/* Judges a record's n keys and values (NUL-terminated; lines[i] their line
 * numbers, or NULL): every value by its type, the keys flags requires, the
 * consistency rules.  Returns 0, or -1 with *err. */
int sgc_statsrec_judge(const char *const *keys, const char *const *values, const int *lines, int n, unsigned flags,
                       sgc_statsrec_error *err);

/* The error in one line of words: "line 5: alloc_period = 65536junk: <why>". */
void sgc_statsrec_describe(const sgc_statsrec_error *err, char *buf, size_t size);

#endif /* SGC_STATSREC_H */
