/* sgc_profread.c - the profile reader: decoding and validation of
 * SGC_PROFILE files for sgcprof and the tests (invariants: sgc_profread.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libdeflate.h>

#include "sgc_profread.h"
#include "sgc_modes.h"

uint64_t sgc_pr_max_bytes = (uint64_t)4 << 30;

static void *grow(void *p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap)
        return p;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(p, ncap * elem);
    if (!q) {
        fprintf(stderr, "sgcprof: out of memory\n");
        exit(1);
    }
    memset((char *)q + *cap * elem, 0, (ncap - *cap) * elem);
    *cap = ncap;
    return q;
}

static int fail(sgc_pr_reader *r, uint64_t offset, const char *fmt, ...) {
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, sizeof r->err, "at byte offset %llu: %s", (unsigned long long)offset, msg);
    r->err_offset = offset;
    return -1;
}

static uint64_t get_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t crc(const uint8_t *p, size_t n) { return libdeflate_crc32(0, p, n); }

static int check_header(sgc_pr_reader *r) {
    if (r->size < SGC_PROF_HEADER_BYTES)
        return fail(r, r->size, "truncated: the file is %zu bytes, shorter than the %u-byte header", r->size,
                    SGC_PROF_HEADER_BYTES);
    if (memcmp(r->data, SGC_PROF_MAGIC, 8) != 0)
        return fail(r, 0, "not a freecheck profile (bad magic)");
    r->version = (uint32_t)get_le(r->data + 8, 4);
    if (r->version != 1 && r->version != SGC_PROF_VERSION)
        return fail(r, 8, "unsupported format version %u (this reader knows versions 1 and %u)", r->version,
                    SGC_PROF_VERSION);
    if (r->version >= 2) {
        uint8_t c[20];
        memcpy(c, r->data, 12);
        memcpy(c + 12, r->data + 16, 8);
        if ((uint32_t)get_le(r->data + 12, 4) != crc(c, sizeof c))
            return fail(r, 0, "corrupt header (checksum mismatch)");
    }
    r->base_ts = get_le(r->data + 16, 8);
    r->last_ts = r->base_ts;
    r->max_ts = r->base_ts;
    r->pos = SGC_PROF_HEADER_BYTES;
    r->blk_end = r->version >= 2 ? SGC_PROF_HEADER_BYTES : r->size;
    r->good_end = SGC_PROF_HEADER_BYTES;
    return 0;
}

/* Version 2: at a block boundary (r->pos == r->blk_end), checks the next
 * block's header and data checksums and makes its records the next ones.
 * In salvage mode a block cut short by the end of the file (its header
 * intact) is read as far as it goes, without its data checksum. */
static int enter_block(sgc_pr_reader *r) {
    uint64_t off = r->pos;
    size_t left = r->size - r->pos;
    if (left == 0)
        return fail(r, off,
                    "truncated: the file ends without an end record after %llu records (the run did "
                    "not finish, or the file was cut)",
                    (unsigned long long)r->records);
    if (left < SGC_PROF_BLOCK_HEADER_BYTES)
        return fail(r, off, "truncated: the file ends inside a block header (%zu of %u bytes)", left,
                    SGC_PROF_BLOCK_HEADER_BYTES);
    const uint8_t *h = r->data + r->pos;
    if ((uint32_t)get_le(h + 8, 4) != crc(h, 8))
        return fail(r, off, "corrupt block header (checksum mismatch)");
    uint32_t len = (uint32_t)get_le(h, 4);
    left -= SGC_PROF_BLOCK_HEADER_BYTES;
    if (len == 0)
        return fail(r, off, "corrupt block header (an empty block)");
    if (len > left) {
        if (!r->salvage)
            return fail(r, off,
                        "truncated: the block of %u bytes starting here runs past the end of the "
                        "file (%zu bytes left)",
                        len, left);
        r->unverified = off;
        r->pos += SGC_PROF_BLOCK_HEADER_BYTES;
        r->blk_end = r->size;
        r->blocks++;
        return 0;
    }
    if ((uint32_t)get_le(h + 4, 4) != crc(h + SGC_PROF_BLOCK_HEADER_BYTES, len))
        return fail(r, off, "corrupt block: checksum mismatch in its %u bytes of data (bytes %llu to %llu)", len,
                    (unsigned long long)(off + SGC_PROF_BLOCK_HEADER_BYTES),
                    (unsigned long long)(off + SGC_PROF_BLOCK_HEADER_BYTES + len - 1));
    r->pos += SGC_PROF_BLOCK_HEADER_BYTES;
    r->blk_end = r->pos + len;
    r->blocks++;
    return 0;
}

/* The input is more than the reader holds. */
static int too_big_file(sgc_pr_reader *r, uint64_t size) {
    return fail(r, 0,
                "the file is %llu bytes, more than this reader holds (%llu bytes); it is not a profile of one run",
                (unsigned long long)size, (unsigned long long)sgc_pr_max_bytes);
}

int sgc_pr_open_mem(sgc_pr_reader *r, const void *data, size_t size) {
    memset(r, 0, sizeof *r);
    if ((uint64_t)size > sgc_pr_max_bytes)
        return too_big_file(r, size);
    r->data = malloc(size ? size : 1);
    if (!r->data)
        return fail(r, 0, "out of memory");
    memcpy(r->data, data, size);
    r->size = size;
    return check_header(r);
}

/* Reads the rest of f after the header into r->data, at most
 * sgc_pr_max_bytes in all; expect is the file's size when it has one (0
 * for a pipe or a device), so that a regular file is read into one buffer
 * of its size.  0, or -1 with r->err set. */
static int read_rest(sgc_pr_reader *r, FILE *f, const char *path, uint64_t expect) {
    uint64_t max = sgc_pr_max_bytes;
    size_t cap = r->size;
    for (;;) {
        if ((uint64_t)r->size >= max) {
            /* Full: one more byte says whether the input ends here. */
            if (fgetc(f) == EOF)
                break;
            return fail(r, max,
                        "the input goes on beyond the %llu bytes this reader holds; it is not a profile of one run",
                        (unsigned long long)max);
        }
        if (r->size == cap) {
            uint64_t want = expect > r->size ? expect : (uint64_t)cap * 2;
            if (want < (uint64_t)r->size + 65536)
                want = (uint64_t)r->size + 65536;
            if (want > max)
                want = max;
            uint8_t *q = realloc(r->data, (size_t)want);
            if (!q)
                return fail(r, r->size, "out of memory reading %s (%llu bytes)", path, (unsigned long long)want);
            r->data = q;
            cap = (size_t)want;
        }
        size_t n = fread(r->data + r->size, 1, cap - r->size, f);
        r->size += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(r->err, sizeof r->err, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int sgc_pr_open(sgc_pr_reader *r, const char *path) {
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(r->err, sizeof r->err, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || S_ISDIR(st.st_mode)) {
        snprintf(r->err, sizeof r->err, "cannot read %s: %s", path,
                 S_ISDIR(st.st_mode) ? "is a directory" : strerror(errno));
        fclose(f);
        return -1;
    }
    /* The header first: an input that is not a profile (or is endless,
     * such as /dev/zero) is refused by its first bytes, before the rest is
     * read; then the size, before it is held. */
    r->data = malloc(SGC_PROF_HEADER_BYTES);
    if (!r->data) {
        fclose(f);
        return fail(r, 0, "out of memory");
    }
    r->size = fread(r->data, 1, SGC_PROF_HEADER_BYTES, f);
    int rc = -1;
    if (ferror(f))
        snprintf(r->err, sizeof r->err, "cannot read %s: %s", path, strerror(errno));
    else if (check_header(r) != 0)
        ;
    else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > sgc_pr_max_bytes)
        too_big_file(r, (uint64_t)st.st_size);
    else if (read_rest(r, f, path, S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0) == 0)
        rc = 0;
    fclose(f);
    if (rc == 0 && r->version < 2)
        r->blk_end = r->size; /* version 1: one block, the whole file */
    return rc;
}

void sgc_pr_close(sgc_pr_reader *r) {
    for (uint32_t i = 1; i <= r->nstrings; i++)
        free(r->strings[i]);
    free(r->strings);
    free(r->node_parent);
    free(r->node_func);
    free(r->type_name);
    free(r->allocs);
    free(r->times);
    free(r->aconfs);
    free(r->tconfs);
    free(r->gcs);
    free(r->data);
    memset(r, 0, sizeof *r);
}

/* Cursor over one record's payload. */
typedef struct cur {
    const uint8_t *p, *end;
    int bad; /* a field ran past the payload or overflowed */
} cur;

static uint64_t get_varint(cur *c) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end) {
            c->bad = 1;
            return 0;
        }
        uint8_t b = *c->p++;
        if (shift == 63 && b > 1) {
            c->bad = 1;
            return 0;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    c->bad = 1;
    return 0;
}

static uint64_t get_ts(sgc_pr_reader *r, cur *c) {
    uint64_t z = get_varint(c);
    int64_t d = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    r->last_ts += (uint64_t)d;
    return r->last_ts;
}

static uint32_t get_u32(cur *c) {
    uint64_t v = get_varint(c);
    if (v > UINT32_MAX)
        c->bad = 1;
    return (uint32_t)v;
}

const char *sgc_pr_kind_name(int kind) { return sgc_prof_kind_name(kind); }

int sgc_pr_next(sgc_pr_reader *r, sgc_pr_record *rec) {
    memset(rec, 0, sizeof *rec);
    uint64_t off = r->pos;
    rec->offset = off;
    if (r->ended) {
        if (r->pos == r->size)
            return 0;
        return fail(r, off, "%zu bytes of data after the end record", r->size - r->pos);
    }
    if (r->version >= 2 && r->pos == r->blk_end) {
        if (enter_block(r) != 0)
            return -1;
        off = r->pos;
        rec->offset = off;
    }
    if (r->pos >= r->size)
        return fail(r, off,
                    "truncated: the file ends without an end record after %llu records (the run did "
                    "not finish, or the file was cut)",
                    (unsigned long long)r->records);
    /* A record ends within its block (version 2) or the file. */
    int cut = r->version < 2 || (r->unverified != 0 && r->blk_end == r->size);
    cur lc = {r->data + r->pos + 1, r->data + r->blk_end, 0};
    int kind = r->data[r->pos];
    uint64_t len = get_varint(&lc);
    if (lc.bad)
        return fail(r, off, cut ? "truncated or corrupt record length" : "corrupt record length");
    if (len > (uint64_t)(lc.end - lc.p)) {
        if (cut)
            return fail(r, off, "truncated: %s record of %llu bytes runs past the end of the file (%zu bytes)",
                        sgc_pr_kind_name(kind), (unsigned long long)len, r->size);
        return fail(r, off, "corrupt: %s record of %llu bytes runs past the end of its block", sgc_pr_kind_name(kind),
                    (unsigned long long)len);
    }
    cur c = {lc.p, lc.p + len, 0};
    r->pos = (size_t)(c.end - r->data);
    rec->kind = kind;
    uint64_t saved_ts = r->last_ts;
    switch (kind) {
    case SGC_REC_STRING: {
        rec->id = get_u32(&c);
        if (c.bad)
            break;
        if (rec->id != r->nstrings + 1)
            return fail(r, off, "string id %u out of order (expected %u)", rec->id, r->nstrings + 1);
        size_t n = (size_t)(c.end - c.p);
        if (memchr(c.p, 0, n))
            return fail(r, off, "string %u contains a NUL byte", rec->id);
        size_t cap = r->cap_strings;
        r->strings = grow(r->strings, &cap, (size_t)rec->id + 1, sizeof *r->strings);
        r->cap_strings = (uint32_t)cap;
        char *s = malloc(n + 1);
        if (!s)
            return fail(r, off, "out of memory");
        memcpy(s, c.p, n);
        s[n] = 0;
        r->strings[rec->id] = s;
        r->nstrings = rec->id;
        rec->str = s;
        c.p = c.end;
        break;
    }
    case SGC_REC_NODE:
        rec->id = get_u32(&c);
        rec->parent = get_u32(&c);
        rec->func = get_u32(&c);
        if (c.bad)
            break;
        if (rec->id != r->nnodes + 1)
            return fail(r, off, "node id %u out of order (expected %u)", rec->id, r->nnodes + 1);
        if (rec->parent >= rec->id)
            return fail(r, off, "node %u has parent %u, not an earlier node", rec->id, rec->parent);
        if (rec->func == 0 || rec->func > r->nstrings)
            return fail(r, off, "node %u names undefined string %u", rec->id, rec->func);
        {
            size_t cap = r->cap_nodes, cap2 = r->cap_nodes;
            r->node_parent = grow(r->node_parent, &cap, (size_t)rec->id + 1, sizeof(uint32_t));
            r->node_func = grow(r->node_func, &cap2, (size_t)rec->id + 1, sizeof(uint32_t));
            r->cap_nodes = (uint32_t)cap;
        }
        r->node_parent[rec->id] = rec->parent;
        r->node_func[rec->id] = rec->func;
        r->nnodes = rec->id;
        break;
    case SGC_REC_TYPE:
        rec->tid = get_u32(&c);
        rec->name = get_u32(&c);
        if (c.bad)
            break;
        if (rec->tid > 0xffffffu)
            return fail(r, off, "type id %u out of range", rec->tid);
        if (rec->name == 0 || rec->name > r->nstrings)
            return fail(r, off, "type %u names undefined string %u", rec->tid, rec->name);
        {
            size_t cap = r->cap_types;
            r->type_name = grow(r->type_name, &cap, (size_t)rec->tid + 1, sizeof(uint32_t));
            r->cap_types = (uint32_t)cap;
        }
        r->type_name[rec->tid] = rec->name;
        break;
    case SGC_REC_ALLOC_CONFIG:
        rec->ts = get_ts(r, &c);
        rec->period = get_varint(&c);
        rec->mode = get_u32(&c);
        if (!c.bad && !sgc_alloc_mode_name((int)rec->mode))
            return fail(r, off, "allocation sampling mode %u unknown", rec->mode);
        break;
    case SGC_REC_ALLOC_SAMPLE: {
        rec->ts = get_ts(r, &c);
        rec->node = get_u32(&c);
        rec->tid = get_u32(&c);
        rec->size = get_varint(&c);
        rec->points = get_u32(&c);
        uint64_t flags = get_varint(&c);
        if (c.bad)
            break;
        rec->survival = (uint32_t)(flags & 3);
        rec->large = (uint32_t)(flags >> 2 & 1);
        if (flags > 7 || rec->survival > 2)
            return fail(r, off, "allocation sample flags %llu invalid", (unsigned long long)flags);
        if (rec->node > r->nnodes)
            return fail(r, off, "allocation sample names undefined node %u", rec->node);
        if (rec->tid >= r->cap_types || r->type_name[rec->tid] == 0)
            return fail(r, off, "allocation sample names undefined type %u", rec->tid);
        if (rec->points == 0)
            return fail(r, off, "allocation sample with 0 sample points");
        break;
    }
    case SGC_REC_TIME_CONFIG:
        rec->ts = get_ts(r, &c);
        rec->hz = get_u32(&c);
        rec->clock = get_u32(&c);
        if (!c.bad && !sgc_clock_name((int)rec->clock))
            return fail(r, off, "time sampling clock %u unknown", rec->clock);
        break;
    case SGC_REC_TIME_SAMPLE:
        rec->ts = get_ts(r, &c);
        rec->node = get_u32(&c);
        rec->phase = get_u32(&c);
        if (c.bad)
            break;
        if (rec->node > r->nnodes)
            return fail(r, off, "time sample names undefined node %u", rec->node);
        if (rec->phase > 2)
            return fail(r, off, "time sample phase %u unknown", rec->phase);
        break;
    case SGC_REC_EXIT_SIGNAL:
        rec->ts = get_ts(r, &c);
        rec->count = get_varint(&c);
        if (!c.bad && (rec->count == 0 || rec->count > 127))
            return fail(r, off, "exit signal %llu invalid", (unsigned long long)rec->count);
        break;
    case SGC_REC_TIME_DROPPED:
    case SGC_REC_TIME_MISSED:
        rec->ts = get_ts(r, &c);
        rec->count = get_varint(&c);
        break;
    case SGC_REC_GC_EVENT:
        rec->gc_kind = get_u32(&c);
        rec->ts = get_ts(r, &c);
        rec->duration = get_varint(&c);
        rec->heap = get_varint(&c);
        rec->rss = get_varint(&c);
        if (!c.bad && rec->gc_kind != 1 && rec->gc_kind != 2)
            return fail(r, off, "GC event kind %u unknown", rec->gc_kind);
        break;
    case SGC_REC_END:
        rec->ts = get_ts(r, &c);
        rec->count = get_varint(&c);
        if (c.bad)
            break;
        if (rec->count != r->records)
            return fail(r, off, "end record counts %llu records, the file has %llu", (unsigned long long)rec->count,
                        (unsigned long long)r->records);
        if (r->version >= 2 && (r->pos != r->blk_end || r->blk_end != r->size))
            return fail(r, r->pos, "%zu bytes of data after the end record", r->size - r->pos);
        r->ended = 1;
        r->end_ts = rec->ts;
        break;
    default:
        if (kind == 0)
            return fail(r, off, "record kind 0 (corrupt data)");
        c.p = c.end; /* a newer kind: skipped by its length */
        break;
    }
    if (c.bad) {
        r->last_ts = saved_ts;
        return fail(r, off, "%s record of %llu bytes is too short for its fields", sgc_pr_kind_name(kind),
                    (unsigned long long)len);
    }
    if (rec->ts > r->max_ts)
        r->max_ts = rec->ts;
    r->records++;
    r->good_end = r->pos;
    return 1;
}

int sgc_pr_load(sgc_pr_reader *r) {
    sgc_pr_record rec;
    int rc;
    while ((rc = sgc_pr_next(r, &rec)) == 1) {
        switch (rec.kind) {
        case SGC_REC_ALLOC_SAMPLE:
            r->allocs = grow(r->allocs, &r->cap_allocs, r->nallocs + 1, sizeof *r->allocs);
            r->allocs[r->nallocs++] =
                (sgc_pr_alloc){rec.ts, rec.size, rec.node, rec.tid, rec.points, rec.survival, rec.large};
            break;
        case SGC_REC_TIME_SAMPLE:
            r->times = grow(r->times, &r->cap_times, r->ntimes + 1, sizeof *r->times);
            r->times[r->ntimes++] = (sgc_pr_time){rec.ts, rec.node, rec.phase};
            break;
        case SGC_REC_ALLOC_CONFIG:
            r->aconfs = grow(r->aconfs, &r->cap_aconfs, r->naconfs + 1, sizeof *r->aconfs);
            r->aconfs[r->naconfs++] = (sgc_pr_config){rec.ts, rec.period, rec.mode};
            break;
        case SGC_REC_TIME_CONFIG:
            r->tconfs = grow(r->tconfs, &r->cap_tconfs, r->ntconfs + 1, sizeof *r->tconfs);
            r->tconfs[r->ntconfs++] = (sgc_pr_config){rec.ts, rec.hz, rec.clock};
            break;
        case SGC_REC_GC_EVENT:
            r->gcs = grow(r->gcs, &r->cap_gcs, r->ngcs + 1, sizeof *r->gcs);
            r->gcs[r->ngcs++] = (sgc_pr_gc){rec.ts, rec.duration, rec.heap, rec.rss, rec.gc_kind};
            break;
        case SGC_REC_TIME_DROPPED: r->dropped += rec.count; break;
        case SGC_REC_TIME_MISSED: r->missed += rec.count; break;
        case SGC_REC_EXIT_SIGNAL: r->exit_signal = (int)rec.count; break;
        default: break;
        }
    }
    if (rc < 0) {
        /* What was read stands (salvage); the run's end is unknown, so
         * durations end at the last timestamp read. */
        r->end_ts = r->max_ts;
        return -1;
    }
    return 0;
}

const char *sgc_pr_string(const sgc_pr_reader *r, uint32_t id) {
    return id >= 1 && id <= r->nstrings ? r->strings[id] : "?";
}

const char *sgc_pr_type_name(const sgc_pr_reader *r, uint32_t tid) {
    return tid < r->cap_types && r->type_name[tid] ? sgc_pr_string(r, r->type_name[tid]) : "?";
}

uint64_t sgc_pr_period_at(const sgc_pr_reader *r, uint64_t ts) {
    /* Configurations are written in time order: binary search the last one
     * at or before ts. */
    size_t lo = 0, hi = r->naconfs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->aconfs[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? r->aconfs[lo - 1].value : 0;
}
