/* sgc_profread.h - the profile reader: decodes and validates an SGC_PROFILE
 * file (format: docs/PROFILE.md, constants: sgc_profile.h) for the tools.
 *
 * Invariants:
 *  - A reader holds the whole file in memory and walks it record by record
 *    (sgc_pr_next).  It checks the header before reading the rest, and
 *    never holds more than sgc_pr_max_bytes: a larger file is refused by
 *    its size, an input without one (a pipe) once it goes on beyond.  Every record is validated before it is returned: ids
 *    are defined before use (strings, nodes, types), string and node ids are
 *    dense and in order, enumerations are in range, the END record is last
 *    and counts the records before it.  Anything else is an error whose
 *    message names the byte offset of the offending record (or of the end of
 *    the file, for a file cut short).
 *  - Timestamps are returned absolute (CLOCK_MONOTONIC ns of the run).
 *  - sgc_pr_load walks the whole file and keeps every sample, configuration
 *    and GC event in arrays, in file order.
 *  - Nothing here touches the runtime: the reader links without the heap.
 */
#ifndef SGC_PROFREAD_H
#define SGC_PROFREAD_H

#include <stddef.h>
#include <stdint.h>

#include "sgc_profile.h"

/* One decoded record.  Only the fields of its kind are meaningful. */
typedef struct sgc_pr_record {
    int kind;          /* enum sgc_prof_kind, or another value for an unknown kind */
    uint64_t offset;   /* byte offset of the record in the file */
    uint64_t ts;       /* absolute timestamp (all kinds but STRING/NODE/TYPE; GC: start) */
    uint32_t id;       /* STRING, NODE: the id defined */
    const char *str;   /* STRING: the bytes (NUL-terminated copy, valid while the reader is) */
    uint32_t parent;   /* NODE: parent node */
    uint32_t func;     /* NODE: function name string */
    uint32_t tid;      /* TYPE, ALLOC_SAMPLE: type id */
    uint32_t name;     /* TYPE: name string */
    uint32_t node;     /* ALLOC_SAMPLE, TIME_SAMPLE: stack node */
    uint64_t period;   /* ALLOC_CONFIG: period, 0 = stopped */
    uint32_t mode;     /* ALLOC_CONFIG: an sgc_sample_mode (sgc_modes.h) */
    uint64_t size;     /* ALLOC_SAMPLE: footprint bytes */
    uint32_t points;   /* ALLOC_SAMPLE: sample points hit */
    uint32_t survival; /* ALLOC_SAMPLE: enum sgc_survival */
    uint32_t large;    /* ALLOC_SAMPLE: 1 = large object */
    uint32_t hz;       /* TIME_CONFIG: rate, 0 = stopped */
    uint32_t clock;    /* TIME_CONFIG: an sgc_clock (sgc_modes.h) */
    uint32_t phase;    /* TIME_SAMPLE: enum sgc_phase */
    uint64_t count;    /* TIME_DROPPED: samples lost; TIME_MISSED: expirations; END: records;
                          * EXIT_SIGNAL: the signal number */
    uint32_t gc_kind;  /* GC_EVENT: 1 minor, 2 major */
    uint64_t duration; /* GC_EVENT: ns */
    uint64_t heap;     /* GC_EVENT: heap bytes in use after it */
    uint64_t rss;      /* GC_EVENT: resident set size in bytes */
} sgc_pr_record;

typedef struct sgc_pr_alloc {
    uint64_t ts, size;
    uint32_t node, tid, points, survival, large;
} sgc_pr_alloc;
typedef struct sgc_pr_time {
    uint64_t ts;
    uint32_t node, phase;
} sgc_pr_time;
typedef struct sgc_pr_config {
    uint64_t ts;
    uint64_t value; /* alloc: period; time: hz (0 = stopped) */
    uint32_t mode;  /* alloc: mode; time: clock */
} sgc_pr_config;
typedef struct sgc_pr_gc {
    uint64_t start, duration, heap, rss;
    uint32_t kind;
} sgc_pr_gc;

typedef struct sgc_pr_reader {
    /* The file. */
    uint8_t *data;    /* whole file */
    size_t size;      /* bytes in data */
    size_t pos;       /* next record's offset */
    uint32_t version; /* header's format version */
    uint64_t base_ts; /* header's base timestamp */
    uint64_t last_ts; /* previous timestamp field (delta decoding) */
    uint64_t records; /* records read so far */
    int ended;        /* the END record was read */
    /* Version 2 framing. */
    size_t blk_end;      /* end of the current block's data (version 1: the file's end) */
    uint64_t blocks;     /* blocks entered so far */
    int salvage;         /* set before reading: read a block cut short by the
                          * end of the file up to its last whole record */
    uint64_t unverified; /* offset of such a block (0 = none): its records
                          * were returned without a data checksum */
    uint64_t good_end;   /* offset just after the last record returned */
    uint64_t max_ts;     /* latest timestamp read */
    /* Tables defined so far. */
    char **strings; /* strings[id], id 1..nstrings */
    uint32_t nstrings, cap_strings;
    uint32_t *node_parent, *node_func; /* by node id, 1..nnodes */
    uint32_t nnodes, cap_nodes;
    uint32_t *type_name; /* by type id: name string, 0 = undefined */
    uint32_t cap_types;
    /* Filled by sgc_pr_load. */
    sgc_pr_alloc *allocs;
    size_t nallocs, cap_allocs;
    sgc_pr_time *times;
    size_t ntimes, cap_times;
    sgc_pr_config *aconfs;
    size_t naconfs, cap_aconfs;
    sgc_pr_config *tconfs;
    size_t ntconfs, cap_tconfs;
    sgc_pr_gc *gcs;
    size_t ngcs, cap_gcs;
    uint64_t dropped; /* sum of TIME_DROPPED counts */
    uint64_t missed;  /* sum of TIME_MISSED counts */
    uint64_t end_ts;  /* END's timestamp (after a failed load: the latest one read) */
    int exit_signal;  /* EXIT_SIGNAL's signal number, 0 = none */
    /* The last error. */
    char err[256];       /* message, including the offset */
    uint64_t err_offset; /* offset the message names */
} sgc_pr_reader;

/* The most bytes a reader holds (4 GiB): a larger input is refused by its
 * size, or once it goes on beyond it, before it is held.  Tests may lower
 * it. */
extern uint64_t sgc_pr_max_bytes;

/* Reads path and checks its header (before reading the rest).  Returns 0,
 * or -1 with r->err set (cannot open, a directory, too short, bad magic,
 * unsupported version, more than sgc_pr_max_bytes).  Call
 * sgc_pr_close in both cases. */
int sgc_pr_open(sgc_pr_reader *r, const char *path);
/* The same for bytes already in memory (copied). */
int sgc_pr_open_mem(sgc_pr_reader *r, const void *data, size_t size);
/* Decodes the next record into *rec.  Returns 1 (a record; the END record
 * is the last one returned), 0 (after END, at the exact end of the file),
 * or -1 with r->err and r->err_offset set (corrupt or truncated).  Version
 * 2: a block's records are returned only once its checksums match (except a
 * block cut short by the end of the file, in salvage mode); a corrupt block
 * is reported at its own offset.  After -1, every record returned before
 * stands: that is the salvage of a damaged or unfinished profile. */
int sgc_pr_next(sgc_pr_reader *r, sgc_pr_record *rec);
/* Reads every remaining record into the arrays.  0, or -1 as sgc_pr_next;
 * after -1 the arrays hold every record before the failure and end_ts is
 * the latest timestamp read. */
int sgc_pr_load(sgc_pr_reader *r);
void sgc_pr_close(sgc_pr_reader *r);

/* Name of string id (the empty stack and unknown ids give "?"). */
const char *sgc_pr_string(const sgc_pr_reader *r, uint32_t id);
/* Name of a type id ("?" if undefined). */
const char *sgc_pr_type_name(const sgc_pr_reader *r, uint32_t tid);
/* The allocation period in force at ts: the last ALLOC_CONFIG at or before
 * ts (0 if none or stopped).  Needs sgc_pr_load. */
uint64_t sgc_pr_period_at(const sgc_pr_reader *r, uint64_t ts);
/* Record kind name as dump prints it ("string", "node", ...: SGC_PROF_KINDS,
 * sgc_prof_kinds.h), or "unknown". */
const char *sgc_pr_kind_name(int kind);

#endif /* SGC_PROFREAD_H */
