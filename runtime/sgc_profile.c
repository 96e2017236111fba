/* sgc_profile.c - the profile writer: string table, calling-context tree and
 * the record encoder that streams SGC_PROFILE to disk (format: PROFILE.md). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <libdeflate.h>

#include "sgc_internal.h"
#include "sgc_output.h"
#include "sgc_profile.h"

/* Records are encoded into this buffer and written with one write() when it
 * fills; without SGC_PROFILE the buffer is simply reset instead, so both
 * cases pay for the encoding (and the checksum).  Big enough that writes are
 * rare, small enough to stay in cache.  The buffer holds one block: its
 * 12-byte block header, then whole records (after the file header, for the
 * first block). */
#define PW_BUF_BYTES (64u * 1024u)
/* The largest fixed-field record: kind + length + 7 varints of <= 10 bytes. */
#define PW_MAX_FIXED_RECORD 96u
/* Room after the buffer that only the signal handler uses, for the two
 * records it appends (EXIT_SIGNAL and END) when the buffer is full. */
#define PW_SLACK 64u

static struct {
    uint8_t buf[PW_BUF_BYTES + PW_SLACK]; /* encoded, not yet written bytes */
    size_t len;                           /* bytes used in buf: committed records end here */
    size_t blk;                           /* offset in buf of the current block's header */
    int fd;                               /* profile file, -1 = discard */
    int started;                          /* the header is in the stream */
    int opened;                           /* sgc__profile_init ran */
    int closed;                           /* sgc__profile_shutdown ran (END emitted) */
    const char *path;                     /* SGC_PROFILE, for messages */
    uint64_t last_ts;                     /* previous timestamp field, for deltas */
    uint64_t records;                     /* records emitted so far (END counts them) */
    uint64_t bytes;                       /* bytes encoded so far */
    /* What a signal handler needs to finish the file (sgc__profile_seal):
     * every field below changes only while flushing is set, and the
     * handler trusts them only when it is not. */
    uint64_t file_off;              /* bytes in the file (whole blocks) */
    uint64_t records_flushed;       /* records in those blocks */
    uint64_t blk_ts;                /* last_ts at the start of the current block */
    volatile sig_atomic_t flushing; /* a block is being written: */
    uint64_t if_off;                /*   at this file offset, */
    const uint8_t *if_part[3];      /*   made of these pieces, */
    size_t if_len[3];
    uint64_t if_records;          /*   ending after this many records, */
    uint64_t if_ts;               /*   with this last timestamp */
    volatile sig_atomic_t sealed; /* the handler finished the file */
    int handlers;                 /* SIGTERM/SIGINT handlers are ours */
    pid_t owner;                  /* thread id of the thread that runs the
                                * runtime (the one that started it) */
} pw = {.fd = -1};
/* ---- String table ------------------------------------------------------ */

/* Interned strings by content: open addressing, power-of-two capacity, at
 * most half full.  Each entry keeps the caller's pointer (names outlive the
 * runtime, sgc.h) and the string id, 0 = empty slot. */
typedef struct str_entry {
    const char *s; /* the name */
    uint64_t hash; /* its hash, to skip most strcmp */
    uint32_t id;   /* string id, 0 = empty */
} str_entry;

static str_entry *str_tab;
static uint32_t str_cap;   /* slots in str_tab */
static uint32_t str_count; /* strings interned = last id */

/* Type id -> string id of its name; 0 = not yet emitted. */
static uint32_t type_str[SGC_MAX_TYPES + 1];

/* ---- Calling-context tree ---------------------------------------------- */

/* Node n (>= 1) is (node_parent[n], node_func[n]); node 0 is the empty
 * stack.  Children are found through an open-addressing table keyed by
 * (parent, func string), power-of-two capacity, at most half full; each
 * slot holds its key, so a probe reads one slot and nothing else. */
static uint32_t *node_parent;
static uint32_t *node_func;
static uint32_t node_count; /* nodes handed out = last id */
static uint32_t node_cap;   /* entries allocated in node_parent/node_func */
typedef struct child_slot {
    uint64_t key;  /* parent << 32 | func string */
    uint32_t node; /* 0 = empty slot */
} child_slot;
static child_slot *child_tab;
static uint32_t child_cap;

/* The last child looked up under each node (by node id, node 0 too): a
 * function mostly calls one callee at a time, and a recursive one has one
 * child of its own at each depth, so a new frame's node is usually its
 * parent's last child, found with one load and one compare instead of a
 * probe.  Word n is (child << 32) | the child's func string (string ids are
 * >= 1, so 0 matches none).  Entries: node_cap, or the one static word for
 * node 0 until the first node exists. */
static uint64_t node_last_root;
static uint64_t *node_last = &node_last_root;

/* Frames collected by a stack walk, reused across calls. */
static sgc_frame *walk_first[64]; /* the buffer until a walk needs more */
static sgc_frame **walk_buf = walk_first;
static uint32_t walk_cap = 64;

static void *xrealloc(void *p, size_t bytes) {
    void *q = realloc(p, bytes);
    if (!q) {
        fprintf(stderr, "freecheck: out of memory in the profile writer (%zu bytes)\n", bytes);
        abort();
    }
    return q;
}

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* ---- Encoding ------------------------------------------------------------ */

#define BLK_HDR SGC_PROF_BLOCK_HEADER_BYTES

static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* CRC-32 as zlib's crc32 computes it (the format's checksum), by
 * libdeflate, whose carry-less-multiply implementation costs about 0.3
 * instructions a byte where zlib's tables cost about 4: with a few bytes a
 * sample, that was a tenth of an allocation sample's cost. */
static uint32_t crc(const void *p, size_t n) { return libdeflate_crc32(0, p, n); }

/* Fills the 12-byte block header at h for data of n bytes at d. */
static void block_header(uint8_t *h, const uint8_t *d, size_t n) {
    put_le32(h, (uint32_t)n);
    put_le32(h + 4, crc(d, n));
    put_le32(h + 8, crc(h, 8));
}

/* Publishes len to a signal handler on this thread: the record bytes are
 * in memory before the length that covers them. */
static inline void set_len(size_t len) {
    __atomic_signal_fence(__ATOMIC_RELEASE);
    pw.len = len;
}

/* Writes the block whose pieces are in pw.if_part (the signal handler can
 * rewrite it whole at pw.if_off if it interrupts this).  On failure the
 * file is abandoned: the run goes on, the profile ends at its last block. */
static volatile sig_atomic_t pw_failed; /* a write or the close failed */

int sgc__profile_failed(void) { return pw_failed != 0; }

static void pw_write_block(void) {
    for (int i = 0; i < 3 && pw.fd >= 0; i++) {
        size_t off = 0;
        while (off < pw.if_len[i]) {
            ssize_t n = write(pw.fd, pw.if_part[i] + off, pw.if_len[i] - off);
            if (n < 0 && errno == EINTR)
                continue; /* a signal (the time sampler's) arrived first: retry */
            if (n <= 0) {
                /* Keep running (the workload's result matters more), but say
                 * so: the file now ends early and readers report where. */
                fprintf(stderr, "freecheck: SGC_PROFILE=%s: write failed: %s; the profile is incomplete\n", pw.path,
                        n < 0 ? strerror(errno) : "no progress");
                pw_failed = 1;
                close(pw.fd);
                pw.fd = -1;
                break;
            }
            off += (size_t)n;
        }
    }
}

/* Seals the block in the buffer (its checksums) and writes it, or discards
 * it without a file; then starts the next block.  errno is preserved. */
static void pw_flush(void) {
    int saved = errno;
    size_t data = pw.blk + BLK_HDR;
    if (pw.len > data) {
        block_header(pw.buf + pw.blk, pw.buf + data, pw.len - data);
        if (pw.fd >= 0) {
            pw.if_off = pw.file_off;
            pw.if_part[0] = pw.buf;
            pw.if_len[0] = pw.len;
            pw.if_len[1] = pw.if_len[2] = 0;
            pw.if_records = pw.records;
            pw.if_ts = pw.last_ts;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            pw.flushing = 1;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            pw_write_block();
            pw.file_off += pw.len;
        }
        pw.records_flushed = pw.records;
        pw.blk_ts = pw.last_ts;
        pw.blk = 0;
        pw.len = BLK_HDR;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        pw.flushing = 0;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
    }
    errno = saved;
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Timestamp field: zigzag delta from the previous one. */
static inline uint8_t *put_ts(uint8_t *p, uint64_t ts) {
    int64_t d = (int64_t)(ts - pw.last_ts);
    pw.last_ts = ts;
    return put_varint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
}

/* Starts a fixed-field record: returns where its payload goes.  The length
 * byte is patched by rec_end (every fixed record's payload is < 128 bytes). */
static void pw_start(void);

static inline uint8_t *rec_begin(int kind) {
    if (__builtin_expect(!pw.started, 0))
        pw_start();
    if (pw.len + PW_MAX_FIXED_RECORD > PW_BUF_BYTES)
        pw_flush();
    uint8_t *p = pw.buf + pw.len;
    p[0] = (uint8_t)kind;
    return p + 2;
}

static inline void rec_end(uint8_t *end) {
    uint8_t *start = pw.buf + pw.len;
    size_t payload = (size_t)(end - start) - 2;
    SGC_ASSERT(payload < 0x80 && pw.len + payload + 2 <= PW_BUF_BYTES,
               "a fixed-field record's payload fits its one length byte, the record the buffer");
    start[1] = (uint8_t)payload;
    set_len(pw.len + payload + 2);
    pw.bytes += payload + 2;
    pw.records++;
}

/* A STRING record: built whole in the buffer and committed at once; one
 * too big for the buffer is written as a block of its own. */
static void emit_string(uint32_t id, const char *s) {
    if (!pw.started)
        pw_start();
    size_t n = strlen(s);
    uint8_t head[32], *p = head;
    uint8_t idbytes[10];
    size_t idlen = (size_t)(put_varint(idbytes, id) - idbytes);
    *p++ = SGC_REC_STRING;
    p = put_varint(p, idlen + n);
    memcpy(p, idbytes, idlen);
    p += idlen;
    size_t hn = (size_t)(p - head), total = hn + n;
    if (pw.len + total > PW_BUF_BYTES)
        pw_flush();
    pw.bytes += total;
    if (pw.len + total <= PW_BUF_BYTES) {
        memcpy(pw.buf + pw.len, head, hn);
        memcpy(pw.buf + pw.len + hn, s, n);
        set_len(pw.len + total);
        pw.records++;
        return;
    }
    /* A name longer than the buffer: the buffer is empty (just flushed), so
     * the block is this one record, checksummed across its two pieces. */
    uint8_t *h = pw.buf + pw.blk; /* the empty block's header slot (after
                                   * the file header if it is still here) */
    put_le32(h, (uint32_t)total);
    put_le32(h + 4, libdeflate_crc32(libdeflate_crc32(0, head, hn), s, n));
    put_le32(h + 8, crc(h, 8));
    memcpy(h + BLK_HDR, head, hn);
    pw.records++;
    if (pw.fd >= 0) {
        pw.if_off = pw.file_off;
        pw.if_part[0] = pw.buf;
        pw.if_len[0] = pw.blk + BLK_HDR + hn;
        pw.if_part[1] = (const uint8_t *)s;
        pw.if_len[1] = n;
        pw.if_len[2] = 0;
        pw.if_records = pw.records;
        pw.if_ts = pw.last_ts;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        pw.flushing = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        pw_write_block();
        pw.file_off += pw.blk + BLK_HDR + total;
    }
    pw.records_flushed = pw.records;
    pw.blk_ts = pw.last_ts;
    pw.blk = 0;
    pw.len = BLK_HDR;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    pw.flushing = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* ---- Interning ---------------------------------------------------------- */

static void str_grow(void) {
    uint32_t ncap = str_cap ? str_cap * 2 : 256;
    str_entry *nt = calloc(ncap, sizeof *nt);
    if (!nt)
        xrealloc(NULL, (size_t)ncap * sizeof *nt); /* reports and aborts */
    for (uint32_t i = 0; i < str_cap; i++) {
        if (!str_tab[i].id)
            continue;
        uint32_t j = (uint32_t)str_tab[i].hash & (ncap - 1);
        while (nt[j].id)
            j = (j + 1) & (ncap - 1);
        nt[j] = str_tab[i];
    }
    free(str_tab);
    str_tab = nt;
    str_cap = ncap;
}

/* String id of s, emitting a STRING record the first time it is seen. */
static uint32_t intern_string(const char *s) {
    if (!s)
        s = "?";
    if ((str_count + 1) * 2 > str_cap)
        str_grow();
    uint64_t h = hash_str(s);
    uint32_t j = (uint32_t)h & (str_cap - 1);
    while (str_tab[j].id) {
        if (str_tab[j].hash == h && strcmp(str_tab[j].s, s) == 0)
            return str_tab[j].id;
        j = (j + 1) & (str_cap - 1);
    }
    uint32_t id = ++str_count;
    str_tab[j] = (str_entry){s, h, id};
    emit_string(id, s);
    return id;
}

uint32_t sgc__profile_func_string(sgc_func *f) {
    if (__builtin_expect(f->id != 0, 1))
        return f->id;
    return f->id = intern_string(f->name);
}

/* Type id -> string id, emitting STRING and TYPE records on first use. */
static uint32_t intern_type(uint32_t tid) {
    if (tid > SGC_MAX_TYPES)
        tid = 0; /* cannot happen with a valid header; keep the file valid */
    if (__builtin_expect(type_str[tid] != 0, 1))
        return type_str[tid];
    const char *name = tid ? sgc_type_name(tid) : NULL;
    uint32_t sid = intern_string(name ? name : "?");
    type_str[tid] = sid;
    uint8_t *p = rec_begin(SGC_REC_TYPE);
    p = put_varint(p, tid);
    p = put_varint(p, sid);
    rec_end(p);
    return sid;
}

static inline uint64_t child_key(uint32_t parent, uint32_t fs) { return (uint64_t)parent << 32 | fs; }

static inline uint32_t hash_key(uint64_t key) { return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32); }

static void child_grow(void) {
    uint32_t ncap = child_cap ? child_cap * 2 : 256;
    child_slot *nt = calloc(ncap, sizeof *nt);
    if (!nt)
        xrealloc(NULL, (size_t)ncap * sizeof *nt);
    for (uint32_t n = 1; n <= node_count; n++) {
        uint64_t key = child_key(node_parent[n], node_func[n]);
        uint32_t j = hash_key(key) & (ncap - 1);
        while (nt[j].node)
            j = (j + 1) & (ncap - 1);
        nt[j] = (child_slot){key, n};
    }
    free(child_tab);
    child_tab = nt;
    child_cap = ncap;
}

/* The child of parent for the function named by string id fs: found, or
 * created with a NODE record. */
static uint32_t intern_node(uint32_t parent, uint32_t fs) {
    if ((node_count + 1) * 2 > child_cap)
        child_grow();
    uint64_t key = child_key(parent, fs);
    uint32_t j = hash_key(key) & (child_cap - 1);
    uint32_t n;
    while ((n = child_tab[j].node) != 0) {
        if (child_tab[j].key == key)
            return n;
        j = (j + 1) & (child_cap - 1);
    }
    n = ++node_count;
    if (n >= node_cap) {
        uint32_t ncap = node_cap ? node_cap * 2 : 256;
        node_parent = xrealloc(node_parent, (size_t)ncap * sizeof *node_parent);
        node_func = xrealloc(node_func, (size_t)ncap * sizeof *node_func);
        uint64_t *nl = xrealloc(node_cap ? node_last : NULL, (size_t)ncap * sizeof *nl);
        if (!node_cap)
            nl[0] = node_last_root;
        memset(nl + (node_cap ? node_cap : 1), 0, (size_t)(ncap - (node_cap ? node_cap : 1)) * sizeof *nl);
        node_last = nl;
        node_cap = ncap;
    }
    SGC_ASSERT(parent < n && fs >= 1 && fs <= str_count,
               "a node's parent has a smaller id and its function an interned name (sgc_profile.h)");
    node_parent[n] = parent;
    node_func[n] = fs;
    child_tab[j] = (child_slot){key, n};
    uint8_t *p = rec_begin(SGC_REC_NODE);
    p = put_varint(p, n);
    p = put_varint(p, parent);
    p = put_varint(p, fs);
    rec_end(p);
    return n;
}

/* The parent's last child was another function's: the table's, which
 * becomes the parent's last (a new frame's node is its parent's last
 * child when it is f's: sgc__profile_stack_current and
 * sgc__profile_stack_extend look there first). */
static uint32_t child_miss(uint32_t parent, uint32_t fs) {
    uint32_t n = intern_node(parent, fs);
    node_last[parent] = (uint64_t)n << 32 | fs;
    return n;
}

__attribute__((noinline, noreturn, cold)) static void stack_loops(const sgc_frame *f) {
    sgc__misuse("the frame stack loops back to %s's frame (a frame pushed twice without a pop in between)",
                f->func && f->func->name ? f->func->name : "?");
}

__attribute__((noinline, noreturn, cold)) static void no_function(const sgc_frame *f) {
    sgc__misuse("the frame at %p has no function (func is NULL); set it before the push", (const void *)f);
}

/* The walks below follow parents until the stack's end (or, incrementally,
 * the first cached frame): a frame pushed twice makes the stack a loop,
 * which they would follow forever.  Such a walk fills walk_buf and comes
 * here: so whenever the buffer must grow, the frames it holds are checked
 * for a loop first (Brent's cycle detection over the first n + 1 frames from
 * the top), which costs the walk nothing per frame and, the buffer doubling
 * each time, O(1) amortized per frame of a deep stack. */
static void walk_reserve(uint32_t n) {
    if (n <= walk_cap)
        return;
    sgc_frame *t = sgc_top, *h = t ? t->parent : NULL;
    uint32_t power = 1, lam = 1;
    for (uint32_t i = 0; h && i < n; i++, lam++) {
        if (h == t)
            stack_loops(h);
        if (power == lam) {
            t = h;
            power *= 2;
            lam = 0;
        }
        h = h->parent;
    }
    uint32_t old = walk_cap;
    walk_cap = n < 256 ? 256 : n * 2;
    if (walk_buf == walk_first) {
        walk_buf = xrealloc(NULL, (size_t)walk_cap * sizeof *walk_buf);
        memcpy(walk_buf, walk_first, old * sizeof *walk_buf);
    } else {
        walk_buf = xrealloc(walk_buf, (size_t)walk_cap * sizeof *walk_buf);
    }
}

uint32_t sgc__profile_stack_current(void);

/* More new frames than the walk buffer holds: the buffer grows (checking
 * the frames for a loop first, walk_reserve) until they fit, and the walk
 * starts again. */
__attribute__((noinline)) static uint32_t stack_current_deep(void) {
    uint32_t n = 0;
    for (sgc_frame *f = sgc_top; f && f->cct == 0; f = f->parent) {
        if (n == walk_cap)
            walk_reserve(n + 1);
        n++;
    }
    walk_reserve(n + 1);
    return sgc__profile_stack_current();
}

/* The incremental walk.  Stack discipline makes it exact: a frame's parent
 * never changes while the frame is pushed, push clears cct, so a frame with
 * cct != 0 names its whole stack and so do all frames below it.  Only the
 * frames above the first cached one need interning; they are interned
 * bottom-up and cached as they go, each store a single aligned word that the
 * time sampler's handler may read at any moment (any cached frame is right,
 * whatever the order in which the others became cached).  Every frame it
 * reads is checked to be live first (sgc__frame_check_live: one compare
 * unless the frame lies below the runtime's entry). */
uint32_t sgc__profile_stack_current(void) {
    sgc_frame *f = sgc_top;
    /* One compare per frame finds both the end of the stack and a frame that
     * needs the live check: NULL and every frame below the runtime's entry
     * lie below sp (outside an entry, sp 1 catches only NULL). */
    uintptr_t sp = (uintptr_t)sgc__mutator_sp;
    if (sp == 0)
        sp = 1;
    /* Locals: the stores into the buffer and into the frames could otherwise
     * be taken to change the globals, which would then be read again for
     * every frame. */
    sgc_frame **const buf = walk_buf, **q = buf, **const end = buf + walk_cap;
    for (;;) {
        if (__builtin_expect((uintptr_t)f < sp, 0)) {
            if (f == NULL)
                break;
            sgc__frame_check_live(f);
        }
        if (f->cct)
            break;
        if (__builtin_expect(q == end, 0))
            return stack_current_deep();
        *q++ = f;
        f = f->parent;
    }
    uint32_t node = f ? f->cct : 0;
    sgc__stats.stack_frames_interned += (uint64_t)(q - buf);
    const uint64_t *last = node_last;
    while (q != buf) {
        sgc_frame *g = *--q;
        sgc_func *fn = g->func;
        if (__builtin_expect(fn == NULL, 0))
            no_function(g);
        uint32_t fs = fn->id;
        if (__builtin_expect(fs == 0, 0))
            fs = sgc__profile_func_string(fn);
        uint64_t l = last[node];
        if (__builtin_expect((uint32_t)l == fs, 1)) {
            node = (uint32_t)(l >> 32);
        } else {
            node = child_miss(node, fs);
            last = node_last; /* interning may have moved it */
        }
        __atomic_store_n(&g->cct, node, __ATOMIC_RELAXED);
    }
    return node;
}

uint32_t sgc__profile_stack_full(void) {
    uint32_t n = 0;
    for (sgc_frame *f = sgc_top; f; f = f->parent) {
        if (n == walk_cap)
            walk_reserve(n + 1);
        sgc__frame_check_live(f);
        if (__builtin_expect(f->func == NULL, 0))
            no_function(f);
        walk_buf[n++] = f;
    }
    uint32_t node = 0;
    while (n)
        node = intern_node(node, sgc__profile_func_string(walk_buf[--n]->func));
    return node;
}

/* The loop keeps node_last in a local (reloaded only after a miss, which
 * may move it) and walks a pointer down to the leaf: a frame whose node is
 * its parent's last child costs two loads for the function's string id, one
 * for the parent's last child, a compare and the loop's step. */
uint32_t sgc__profile_stack_extend(uint32_t base, sgc_func *const *leaf_first, uint32_t depth) {
    uint64_t node = base <= node_count ? base : 0;
    const uint64_t *last = node_last;
    for (sgc_func *const *p = leaf_first + depth; p != leaf_first;) {
        sgc_func *fn = *--p;
        uint32_t fs = fn->id;
        if (__builtin_expect(fs == 0, 0))
            fs = sgc__profile_func_string(fn);
        uint64_t l = last[node];
        if (__builtin_expect((uint32_t)l == fs, 1)) {
            node = l >> 32;
        } else {
            node = child_miss((uint32_t)node, fs);
            last = node_last;
        }
    }
    return (uint32_t)node;
}

uint32_t sgc__profile_stack_of(sgc_func *const *leaf_first, uint32_t depth) {
    return sgc__profile_stack_extend(0, leaf_first, depth);
}

/* ---- Records -------------------------------------------------------------- */

void sgc__profile_sampling_config(uint64_t ts_ns, uint64_t period, int mode) {
    uint8_t *p = rec_begin(SGC_REC_ALLOC_CONFIG);
    p = put_ts(p, ts_ns);
    p = put_varint(p, period);
    p = put_varint(p, (uint64_t)mode);
    rec_end(p);
}

void sgc__profile_alloc_sample(const sgc_alloc_sample *s) { sgc__profile_alloc_samples(s, 1, sizeof *s); }

/* One loop for the whole batch: the write position and the last timestamp
 * stay in registers, and only the buffer's length is stored per record (so
 * that each record is committed, for the signal handler that may end the
 * file, as soon as it is whole).  The records, bytes and last timestamp are
 * stored back before anything else writes records: a type's first TYPE
 * record, a flush, and the end of the batch.  The common record (every
 * field a byte but the timestamp's delta, of one or two) is built in one
 * 64-bit word: kind, length, delta, node, type, size, points, and the
 * flags in the word or the byte after it. */
static inline __attribute__((always_inline)) void encode_samples(const sgc_alloc_sample *s, size_t n, size_t stride,
                                                                 int young) {
    if (__builtin_expect(!pw.started, 0))
        pw_start();
    uint8_t *const buf = pw.buf;
    uint8_t *p = buf + pw.len, *const room_end = buf + PW_BUF_BYTES - PW_MAX_FIXED_RECORD;
    uint8_t *seg = p; /* where the records not yet in pw.bytes begin */
    size_t seg_i = 0; /* the first record not yet in pw.records */
    uint64_t last = pw.last_ts;
    /* The last record's type, whose TYPE record is in the profile: the
     * next record of the same type (most are) skips the table. */
    uint32_t known_tid = UINT32_MAX;
    for (size_t i = 0; i < n; i++, s = (const sgc_alloc_sample *)(const void *)((const char *)s + stride)) {
        uint32_t tid = s->tid;
        if (__builtin_expect(tid != known_tid || p > room_end, 0)) {
            if (tid > SGC_MAX_TYPES || type_str[tid] == 0 || p > room_end) {
                pw.last_ts = last;
                pw.bytes += (uint64_t)(p - seg);
                pw.records += i - seg_i;
                intern_type(tid);
                if (pw.len + PW_MAX_FIXED_RECORD > PW_BUF_BYTES)
                    pw_flush();
                p = seg = buf + pw.len;
                seg_i = i;
            }
            known_tid = tid <= SGC_MAX_TYPES ? tid : UINT32_MAX;
        }
        int64_t d = (int64_t)(s->ts_ns - last);
        last = s->ts_ns;
        uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63); /* zigzag */
        uint64_t size = s->size;
        uint32_t stack = s->stack, points = s->points;
        /* Survival < 3 and large 0 or 1 (sgc_profile.h): < 8, one byte. */
        SGC_ASSERT(s->survival < 3 && s->large <= 1, "survival < 3 and large 0 or 1 (sgc_profile.h)");
        SGC_ASSERT(!young || s->large == 0, "the young batch holds nursery objects only");
        uint64_t flags;
        if (young) { /* a nursery object: survived if forwarded (SGC_SURVIVED = SGC_F_FORWARDED = 1) */
            sgc_obj obj = *(const sgc_obj *)(const void *)((const char *)s + SGC_PROF_PENDING_OBJ);
            flags = SGC_HDR(obj) & SGC_F_FORWARDED;
        } else {
            flags = (uint64_t)s->survival | (uint64_t)s->large << 2;
        }
        int small = (stack | tid | points | size) < 0x80;
        if (__builtin_expect(small && z - 0x80 < 0x4000 - 0x80, 1)) {
            /* Length 7 (the common record): a two-byte delta, the flags after the word. */
            uint64_t fields = stack | tid << 8 | (uint32_t)size << 16 | points << 24;
            uint64_t w = SGC_REC_ALLOC_SAMPLE | 7u << 8 | ((z & 0x7f) | 0x80) << 16 | (z >> 7) << 24 | fields << 32;
            memcpy(p, &w, 8); /* little-endian: the bytes in field order */
            p[8] = (uint8_t)flags;
            p += 9;
        } else if (small && z < 0x80) { /* length 6: every field in the word */
            uint64_t fields = stack | tid << 8 | (uint32_t)size << 16 | points << 24;
            uint64_t w = SGC_REC_ALLOC_SAMPLE | 6u << 8 | z << 16 | fields << 24 | flags << 56;
            memcpy(p, &w, 8);
            p += 8;
        } else {
            /* Kind, length (patched below: < 128), then the six fields. */
            uint8_t *q = put_varint(p + 2, z);
            q = put_varint(q, stack);
            q = put_varint(q, tid);
            q = put_varint(q, size);
            q = put_varint(q, points);
            *q++ = (uint8_t)flags;
            p[0] = SGC_REC_ALLOC_SAMPLE;
            p[1] = (uint8_t)(q - p - 2);
            p = q;
        }
        SGC_ASSERT(p <= buf + PW_BUF_BYTES, "whole records fit the buffer (room_end leaves the largest)");
        set_len((size_t)(p - buf));
    }
    pw.last_ts = last;
    pw.bytes += (uint64_t)(p - seg);
    pw.records += n - seg_i;
}

void sgc__profile_alloc_samples(const sgc_alloc_sample *s, size_t n, size_t stride) {
    /* The sampler's pending entries (sgc_sample.h) have a constant stride,
     * which the loop then needs no register for. */
    if (stride == SGC_PROF_PENDING_STRIDE)
        encode_samples(s, n, SGC_PROF_PENDING_STRIDE, 0);
    else
        encode_samples(s, n, stride, 0);
}

_Static_assert(SGC_F_FORWARDED == 1 && SGC_SURVIVED == 1 && SGC_DIED == 0,
               "a young object's survival is its header's forwarded bit");

void sgc__profile_alloc_samples_young(const sgc_alloc_sample *s, size_t n) {
    encode_samples(s, n, SGC_PROF_PENDING_STRIDE, 1);
}

/* As an allocation sample's (sgc__profile_alloc_samples): the node and the
 * phase most often a byte each, the length and counters in one place. */
void sgc__profile_time_sample(uint64_t ts_ns, uint32_t stack, int phase) {
    if (__builtin_expect(!pw.started, 0))
        pw_start();
    if (__builtin_expect(pw.len + PW_MAX_FIXED_RECORD > PW_BUF_BYTES, 0))
        pw_flush();
    uint8_t *p = pw.buf + pw.len, *q = put_ts(p + 2, ts_ns);
    if (__builtin_expect((stack | (uint32_t)phase) < 0x80, 1)) {
        q[0] = (uint8_t)stack;
        q[1] = (uint8_t)phase;
        q += 2;
    } else {
        q = put_varint(q, stack);
        q = put_varint(q, (uint64_t)(uint32_t)phase);
    }
    p[0] = SGC_REC_TIME_SAMPLE;
    p[1] = (uint8_t)(q - p - 2);
    size_t len = (size_t)(q - p);
    pw.bytes += len;
    pw.records++;
    set_len(pw.len + len);
}

void sgc__profile_time_config(uint64_t ts_ns, unsigned hz, int clock) {
    uint8_t *p = rec_begin(SGC_REC_TIME_CONFIG);
    p = put_ts(p, ts_ns);
    p = put_varint(p, hz);
    p = put_varint(p, (uint64_t)clock);
    rec_end(p);
}

void sgc__profile_time_dropped(uint64_t ts_ns, uint64_t count) {
    uint8_t *p = rec_begin(SGC_REC_TIME_DROPPED);
    p = put_ts(p, ts_ns);
    p = put_varint(p, count);
    rec_end(p);
}

void sgc__profile_time_missed(uint64_t ts_ns, uint64_t count) {
    uint8_t *p = rec_begin(SGC_REC_TIME_MISSED);
    p = put_ts(p, ts_ns);
    p = put_varint(p, count);
    rec_end(p);
}

void sgc__profile_gc_event(int kind, uint64_t start_ns, uint64_t duration_ns, uint64_t heap_bytes, uint64_t rss_bytes) {
    uint8_t *p = rec_begin(SGC_REC_GC_EVENT);
    p = put_varint(p, (uint64_t)kind);
    p = put_ts(p, start_ns);
    p = put_varint(p, duration_ns);
    p = put_varint(p, heap_bytes);
    p = put_varint(p, rss_bytes);
    rec_end(p);
}

uint64_t sgc__profile_bytes(void) { return pw.bytes; }

/* ---- Life cycle ------------------------------------------------------------ */

/* In a forked child the parent's file and unwritten buffer belong to the
 * parent: the child keeps encoding (same cost) but writes nothing. */
static void pw_atfork_child(void) {
    if (pw.fd >= 0)
        close(pw.fd);
    pw.fd = -1;
    pw.blk = 0;
    pw.len = BLK_HDR;
    pw.flushing = 0;
    pw.owner = 0;
}

/* Puts the file header and the first block's header slot at the start of
 * the (still empty) buffer.  Runs at the first record or at
 * sgc__profile_init, whichever comes first, so the header always precedes
 * every record. */
static void pw_start(void) {
    pw.started = 1;
    uint64_t base = sgc__now_ns();
    uint8_t *h = pw.buf;
    memcpy(h, SGC_PROF_MAGIC, 8);
    put_le32(h + 8, SGC_PROF_VERSION);
    for (int i = 0; i < 8; i++)
        h[16 + i] = (uint8_t)(base >> (8 * i));
    /* The header's own checksum covers its other 20 bytes. */
    uint8_t c[20];
    memcpy(c, h, 12);
    memcpy(c + 12, h + 16, 8);
    put_le32(h + 12, crc(c, sizeof c));
    pw.blk = SGC_PROF_HEADER_BYTES;
    pw.len = SGC_PROF_HEADER_BYTES + BLK_HDR;
    pw.bytes = SGC_PROF_HEADER_BYTES;
    pw.last_ts = base;
    pw.blk_ts = base;
}

/* Counts the committed records in [p, p+n) and follows their timestamp
 * fields from *ts (the value at the block's start) to the last one.  Only
 * what the writer above produces is parsed: no validation. */
static uint64_t scan_records(const uint8_t *p, size_t n, uint64_t *ts) {
    const uint8_t *end = p + n;
    uint64_t count = 0;
    while (p < end) {
        int kind = *p++;
        uint64_t len = 0;
        for (int shift = 0; p < end; shift += 7) {
            uint8_t b = *p++;
            len |= (uint64_t)(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
        }
        const uint8_t *q = p;
        int ts_field = kind == SGC_REC_GC_EVENT ? 1 : 0;
        int has_ts = kind != SGC_REC_STRING && kind != SGC_REC_NODE && kind != SGC_REC_TYPE;
        for (int f = 0; has_ts && f <= ts_field; f++) {
            uint64_t v = 0;
            for (int shift = 0; q < p + len; shift += 7) {
                uint8_t b = *q++;
                v |= (uint64_t)(b & 0x7f) << shift;
                if (!(b & 0x80))
                    break;
            }
            if (f == ts_field)
                *ts += (uint64_t)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
        }
        p += len;
        count++;
    }
    return count;
}

/* From a SIGTERM/SIGINT handler: ends the file with the records committed
 * so far, an EXIT_SIGNAL record and the END record.  Async-signal-safe:
 * clock_gettime, pwrite, close and libdeflate's crc32 (no locks, no
 * allocation; its first call picks an implementation for the CPU);
 * the records the interrupted code was encoding are not committed and are
 * dropped.  If a block was being written, it is written again whole at its
 * offset first, so an interrupted write() leaves no gap. */
static void pw_seal(int sig) {
    if (pw.fd < 0 || pw.sealed || pw.closed)
        return;
    pw.sealed = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t off, records, ts;
    if (pw.flushing) {
        off = pw.if_off;
        for (int i = 0; i < 3; i++) {
            size_t done = 0;
            while (done < pw.if_len[i]) {
                ssize_t n = pwrite(pw.fd, pw.if_part[i] + done, pw.if_len[i] - done, (off_t)(off + done));
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0)
                    return;
                done += (size_t)n;
            }
            off += pw.if_len[i];
        }
        records = pw.if_records;
        ts = pw.if_ts;
        pw.blk = 0;
        pw.len = BLK_HDR;
    } else {
        off = pw.file_off;
        ts = pw.blk_ts;
        size_t data = pw.blk + BLK_HDR;
        records = pw.records_flushed + scan_records(pw.buf + data, pw.len - data, &ts);
    }
    /* Two records of at most 2 + 2 x 10 bytes: within PW_SLACK. */
    pw.last_ts = ts;
    uint8_t *p = pw.buf + pw.len, *start = p;
    p[0] = SGC_REC_EXIT_SIGNAL;
    uint8_t *q = put_ts(p + 2, sgc__now_ns());
    q = put_varint(q, (uint64_t)sig);
    p[1] = (uint8_t)(q - p - 2);
    p = q;
    p[0] = SGC_REC_END;
    q = put_ts(p + 2, pw.last_ts);
    q = put_varint(q, records + 1);
    p[1] = (uint8_t)(q - p - 2);
    p = q;
    size_t len = pw.len + (size_t)(p - start), data = pw.blk + BLK_HDR;
    block_header(pw.buf + pw.blk, pw.buf + data, len - data);
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(pw.fd, pw.buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(pw.fd);
    pw.fd = -1;
}

/* 1 if thread tid of this process blocks sig (from /proc: open, read and
 * close are async-signal-safe), 0 if not, -1 if unknown. */
static int thread_blocks(pid_t tid, int sig) {
    char path[64] = "/proc/self/task/", *p = path + strlen(path), digits[16];
    int n = 0;
    for (unsigned long v = (unsigned long)tid; v; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    while (n)
        *p++ = digits[--n];
    memcpy(p, "/status", 8);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[2048];
    ssize_t k = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (k <= 0)
        return -1;
    buf[k] = 0;
    char *b = strstr(buf, "SigBlk:");
    if (!b)
        return -1;
    b += 7;
    while (*b == ' ' || *b == '\t')
        b++;
    uint64_t mask = 0;
    for (; (*b >= '0' && *b <= '9') || (*b >= 'a' && *b <= 'f'); b++)
        mask = mask << 4 | (uint64_t)(*b <= '9' ? *b - '0' : *b - 'a' + 10);
    return (int)(mask >> (sig - 1) & 1);
}

static void pw_on_signal(int sig) {
    int saved = errno;
    pid_t self = (pid_t)syscall(SYS_gettid);
    if (pw.owner && self != pw.owner) {
        /* A thread of the program's own took the signal while the runtime's
         * thread may be encoding: hand the signal to that thread, which
         * finishes the file (the runtime is single-threaded).  If that
         * thread blocks it, do what the default action does (the file then
         * ends at its last whole block, which readers salvage). */
        if (thread_blocks(pw.owner, sig) == 0 && syscall(SYS_tgkill, (long)getpid(), (long)pw.owner, (long)sig) == 0) {
            errno = saved;
            return;
        }
        signal(sig, SIG_DFL);
        raise(sig);
        errno = saved;
        return;
    }
    pw_seal(sig);
    /* Die of the same signal, as without this handler: the default action
     * takes over once the handler returns (the signal is blocked until
     * then). */
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

/* SIGTERM and SIGINT finish the profile, unless the program chose what
 * they do (a handler of its own, or ignoring them). */
static void pw_install_handlers(void) {
    static const int sigs[] = {SIGTERM, SIGINT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0 || (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = pw_on_signal;
        sigemptyset(&sa.sa_mask);
        sigaddset(&sa.sa_mask, SIGTERM);
        sigaddset(&sa.sa_mask, SIGINT);
        sa.sa_flags = SA_RESTART;
        if (sigaction(sigs[i], &sa, NULL) == 0)
            pw.handlers = 1;
    }
}

void sgc__profile_init(void) {
    if (pw.opened)
        return;
    pw.opened = 1;
    if (!pw.started)
        pw_start();
    pw.path = sgc__settings.profile_path;
    if (pw.path && *pw.path) {
        if (pw.records > 0) {
            /* Cannot happen in a normal start-up (the samplers start at
             * init): records were discarded before the file was named. */
            fprintf(stderr, "freecheck: SGC_PROFILE=%s: records made before start-up are lost\n", pw.path);
        }
        char why[256];
        pw.fd = sgc__output_open(SGC_OUT_PROFILE, why, sizeof why);
        if (pw.fd < 0) {
            fprintf(stderr, "freecheck: SGC_PROFILE=%s: cannot write the profile there: %s\n", pw.path, why);
            exit(2);
        }
        pw.owner = (pid_t)syscall(SYS_gettid);
        pw_install_handlers();
    }
    pthread_atfork(NULL, NULL, pw_atfork_child);
}

void sgc__profile_shutdown(void) {
    if (pw.closed)
        return;
    if (!pw.opened)
        sgc__profile_init();
    /* A SIGTERM/SIGINT now would find the END half made: hold it until the
     * file is complete, then let it act. */
    sigset_t hold, old;
    sigemptyset(&hold);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGINT);
    if (pw.handlers)
        sigprocmask(SIG_BLOCK, &hold, &old);
    if (pw.sealed) {
        /* The handler finished the file; nothing more may be added. */
        pw.closed = 1;
        if (pw.handlers)
            sigprocmask(SIG_SETMASK, &old, NULL);
        return;
    }
    pw.closed = 1;
    uint64_t count = pw.records;
    uint8_t *p = rec_begin(SGC_REC_END);
    p = put_ts(p, sgc__now_ns());
    p = put_varint(p, count);
    rec_end(p);
    pw_flush();
    if (pw.fd >= 0) {
        if (close(pw.fd) != 0 && (pw_failed = 1))
            fprintf(stderr, "freecheck: SGC_PROFILE=%s: close failed: %s; the profile may be incomplete\n", pw.path,
                    strerror(errno));
        pw.fd = -1;
    }
    if (pw.handlers)
        sigprocmask(SIG_SETMASK, &old, NULL);
}
