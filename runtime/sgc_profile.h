/* sgc_profile.h - the profile writer: what the samplers hand it.
 *
 * Invariants:
 *  - Stacks are nodes of one calling-context tree (CCT) per process: node 0
 *    is the empty stack; every other node is (parent node, function).  A
 *    node id, once handed out, means the same stack for the whole profile.
 *  - One record per sample: an allocation sample carries its stack, type,
 *    size, sample points and survival together; it is handed over once its
 *    survival is known, never in pieces.
 *  - Samples are formatted even when no SGC_PROFILE is set (then discarded),
 *    so the cost measured is the cost a user pays.
 *  - None of these functions may be called from a signal handler; the time
 *    sampler snapshots into its own buffer and hands records over later.
 */
#ifndef SGC_PROFILE_H
#define SGC_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include "sgc.h"
#include "sgc_internal.h"
#include "sgc_prof_kinds.h"

enum sgc_survival { SGC_DIED = 0, SGC_SURVIVED = 1, SGC_SURVIVAL_UNKNOWN = 2 };

typedef struct sgc_alloc_sample {
    uint64_t ts_ns;   /* CLOCK_MONOTONIC when the sample was taken */
    uint64_t size;    /* footprint bytes of the sampled object */
    uint32_t stack;   /* CCT node of the allocating stack */
    uint32_t tid;     /* type id of the object */
    uint32_t points;  /* sample points the allocation hit (>= 1) */
    uint8_t survival; /* enum sgc_survival, at the next minor collection (< 3) */
    uint8_t large;    /* 1 if allocated as a large object, else 0 */
} sgc_alloc_sample;

/* CCT node of the current shadow stack (sgc_top).  Costs O(frames pushed
 * since the previous call), using and filling sgc_frame.cct. */
uint32_t sgc__profile_stack_current(void);
/* The same, inline where the top frame's node is cached (the allocation
 * sampler's slow path): one compare for the live check of
 * sgc__frame_check_live (a frame above the runtime's entry is live), one
 * load for the node. */
static inline uint32_t sgc__profile_stack_now(void) {
    sgc_frame *f = sgc_top;
    if (__builtin_expect(f != NULL && (const char *)f >= sgc__mutator_sp && f->cct != 0, 1))
        return f->cct;
    return sgc__profile_stack_current();
}
/* CCT node of a snapshot of function pointers, leaf first. */
uint32_t sgc__profile_stack_of(sgc_func *const *leaf_first, uint32_t depth);

/* Allocation sampling (re)started with this period and mode, or stopped
 * (period 0): readers need the period to turn samples into bytes. */
void sgc__profile_sampling_config(uint64_t ts_ns, uint64_t period, int mode);
void sgc__profile_alloc_sample(const sgc_alloc_sample *sample);
/* The same for n samples in order, stride bytes apart (an array of structs
 * that begin with an sgc_alloc_sample): what the sampler hands over at a
 * minor collection, encoded in one loop. */
void sgc__profile_alloc_samples(const sgc_alloc_sample *first, size_t n, size_t stride);
/* The stride of the allocation sampler's pending entries (sgc_sample.h
 * checks it), which the encoder's loop is compiled for. */
#define SGC_PROF_PENDING_STRIDE 40u
/* Where a pending entry keeps its object (an sgc_obj), in bytes from the
 * entry's start (sgc_sample.h checks it). */
#define SGC_PROF_PENDING_OBJ 32u
/* The sampler's pending entries at the end of a minor collection, none of
 * them large: each one's survival is read from its object's header (a
 * nursery object survived if the collection forwarded it) and encoded in
 * the same loop as sgc__profile_alloc_samples.  The entries' own survival
 * field is left as it was (no observer reads them: sgc_sample.c). */
void sgc__profile_alloc_samples_young(const sgc_alloc_sample *first, size_t n);
/* phase: enum sgc_phase, what the interrupted thread was doing. */
void sgc__profile_time_sample(uint64_t ts_ns, uint32_t stack, int phase);
/* Time sampling (re)started at hz with clock, or stopped (hz 0). */
void sgc__profile_time_config(uint64_t ts_ns, unsigned hz, int clock);
/* count time samples were lost to a full buffer since the last call. */
void sgc__profile_time_dropped(uint64_t ts_ns, uint64_t count);

/* ---- Added by the profile module (sgc_profile.c) ------------------------
 *
 * The file format (docs/PROFILE.md is the full reference).  A profile is a
 * 24-byte header followed by blocks.  Header: the 8 bytes "SGCPROF\0", the
 * format version (u32 little-endian), the CRC-32 (zlib's crc32) of the
 * header's other 20 bytes (u32 LE; version 1 has 0 there), and the base
 * timestamp (u64 LE, CLOCK_MONOTONIC ns at sgc__profile_init).  A block
 * (version 2) is what one buffer flush writes: its data length L (u32 LE,
 * >= 1), the CRC-32 of the L data bytes (u32 LE), the CRC-32 of those 8
 * bytes (u32 LE), then L bytes of whole records; a record never spans two
 * blocks.  Version 1 has no blocks: the records follow the header directly.
 * A record is one kind byte, its payload length (unsigned LEB128), then the
 * payload: unsigned LEB128 integers ("varints") and, for strings, raw bytes.
 * Every timestamp field is a zigzag-encoded signed delta from the previous
 * timestamp field in the file (the first one: from the base timestamp), so
 * out-of-order records (allocation samples wait for their survival) cost a
 * few bytes like the others.  Readers skip records of unknown kinds by their
 * length and ignore payload bytes after the fields they know: new kinds and
 * new trailing fields do not bump the version; a change of meaning or of
 * the framing does.
 *
 * With SGC_PROFILE set, SIGTERM and SIGINT (when the program has not set
 * their action itself) end the file with an EXIT_SIGNAL and an END record
 * before the process dies of the signal.
 */
#define SGC_PROF_MAGIC "SGCPROF" /* 7 characters + NUL = the 8 magic bytes */
#define SGC_PROF_VERSION 2u
#define SGC_PROF_HEADER_BYTES 24u
#define SGC_PROF_BLOCK_HEADER_BYTES 12u

/* The record kinds: their numbers, names and fields are the rows of
 * SGC_PROF_KINDS (sgc_prof_kinds.h); their payloads are described above
 * each writer in sgc_profile.c and in docs/PROFILE.md. */
enum sgc_prof_kind {
#define SGC__PROF_KIND_ENUM(id, no, name, fields) SGC_REC_##id = no,
    SGC_PROF_KINDS(SGC__PROF_KIND_ENUM)
#undef SGC__PROF_KIND_ENUM
};

/* CCT node of the stack made of node base (a cached prefix, 0 = empty) with
 * depth more frames on top of it, given leaf first.  This is how the time
 * sampler turns a handler's snapshot into a node outside the handler. */
uint32_t sgc__profile_stack_extend(uint32_t base, sgc_func *const *leaf_first, uint32_t depth);
/* CCT node of the current shadow stack by walking every frame and interning
 * from the bottom, ignoring and not filling sgc_frame.cct: the reference the
 * incremental sgc__profile_stack_current is measured and tested against. */
uint32_t sgc__profile_stack_full(void);
/* The string id of f's name, interning it (and caching it in f->id). */
uint32_t sgc__profile_func_string(sgc_func *f);
/* count timer expirations were merged into later signals since the last
 * call (the thread was not running when they fell due). */
void sgc__profile_time_missed(uint64_t ts_ns, uint64_t count);
/* Bytes encoded so far (written or, without SGC_PROFILE, discarded). */
uint64_t sgc__profile_bytes(void);

#endif /* SGC_PROFILE_H */
