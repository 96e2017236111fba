/* sgc_gc_old.c - the old generation (size-segregated blocks) and the large-object space.
 *
 * Old objects never move.  Each size class owns a list of 128 KiB blocks cut
 * into equal slots, a free list threaded through freed slots, and one block
 * it bump-allocates fresh slots from.  Blocks are carved from 2 MiB chunks
 * mapped with mmap and aligned to their size, so the block of any slot is
 * found by masking its address (the verifier relies on that).  A sweep that
 * finds a block empty gives it back: to a small pool of spare blocks, or to
 * the kernel (munmap) when the pool is full, so the heap shrinks with the
 * live data.  Large objects get their chunks from the large-object space
 * (sgc_los.c); this file frees them there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sgc_gc.h"

#define CHUNK_BLOCKS 16
#define POOL_MAX 32 /* spare blocks kept mapped (4 MiB) */

/* ---- Size classes -------------------------------------------------------- */

/* 16..128 in steps of 8, then four steps per power of two up to 8192: at most
 * 25% of a slot is padding above 128 bytes, none below. */
uint32_t sgc__class_bytes[SGC_NCLASSES];
uint8_t sgc__class_of[SGC_LARGE_MIN / 8 + 1];
sgc_size_class sgc__classes[SGC_NCLASSES];
static sgc_block *pool; /* spare blocks, linked by next */
static size_t npool;

sgc_large *sgc__young_large;
sgc_large *sgc__old_large;
uint64_t sgc__young_large_bytes;
uint64_t sgc__old_bytes;
uint64_t sgc__large_bytes;
uint64_t sgc__old_mapped;

void sgc__oom(const char *what, size_t bytes) {
    fprintf(stderr,
            "freecheck: out of memory: could not get %zu bytes for %s "
            "(heap in use: %llu bytes old generation, %llu bytes large objects)\n",
            bytes, what, (unsigned long long)sgc__old_bytes, (unsigned long long)sgc__large_bytes);
    /* Possibly in the middle of a collection: the heap may be inconsistent,
     * so no exit handlers (which would write the profile and stats record
     * from it); a failure, not a crash, so no abort either. */
    fflush(NULL);
    _exit(1);
}

void sgc__old_init(void) {
    uint32_t n = 0;
    for (uint32_t s = 16; s <= 128; s += 8)
        sgc__class_bytes[n++] = s;
    for (uint32_t p = 128; p < 8192; p *= 2)
        for (uint32_t k = 1; k <= 4; k++)
            sgc__class_bytes[n++] = p + k * (p / 4);
    if (n != SGC_NCLASSES)
        abort(); /* the table above and SGC_NCLASSES disagree: a build error */
    uint32_t c = 0;
    for (size_t w = 0; w <= SGC_LARGE_MIN / 8; w++) {
        size_t f = w * 8;
        while (sgc__class_bytes[c] < f)
            c++;
        sgc__class_of[w] = (uint8_t)c;
    }
}

size_t sgc__old_slot_bytes(size_t footprint) { return sgc__class_bytes[sgc__class_of[footprint / 8]]; }

/* Takes a block from the pool, mapping a new chunk if the pool is empty. */
static sgc_block *block_get(void) {
    if (pool == NULL) {
        size_t want = CHUNK_BLOCKS * SGC_BLOCK_BYTES + SGC_BLOCK_BYTES;
        char *m = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            sgc__oom("old-generation blocks", want);
        char *a = (char *)(((uintptr_t)m + SGC_BLOCK_BYTES - 1) & ~(uintptr_t)(SGC_BLOCK_BYTES - 1));
        /* Trim the unaligned head and tail so only whole blocks stay mapped. */
        if (a > m)
            munmap(m, (size_t)(a - m));
        char *tail = a + CHUNK_BLOCKS * SGC_BLOCK_BYTES;
        if (tail < m + want)
            munmap(tail, (size_t)(m + want - tail));
        for (int i = CHUNK_BLOCKS - 1; i >= 0; i--) {
            sgc_block *b = (sgc_block *)(a + (size_t)i * SGC_BLOCK_BYTES);
            b->next = pool;
            pool = b;
            npool++;
        }
        sgc__old_mapped += CHUNK_BLOCKS * SGC_BLOCK_BYTES;
    }
    sgc_block *b = pool;
    pool = b->next;
    npool--;
    return b;
}

/* Gives an empty block back: to the pool, or to the kernel if the pool is full. */
static void block_put(sgc_block *b) {
    if (npool < POOL_MAX) {
        b->next = pool;
        pool = b;
        npool++;
    } else {
        munmap(b, SGC_BLOCK_BYTES);
        sgc__old_mapped -= SGC_BLOCK_BYTES;
    }
}

/* The free list and the fresh block are both exhausted: start a new block. */
char *sgc__old_alloc_refill(uint32_t cls) {
    sgc_size_class *c = &sgc__classes[cls];
    sgc_block *b = c->fresh;
    if (b == NULL || b->bump == b->nslots) {
        b = block_get();
        b->cls = cls;
        b->slot_bytes = sgc__class_bytes[cls];
        b->nslots = (uint32_t)((SGC_BLOCK_BYTES - SGC_BLOCK_HEAD) / sgc__class_bytes[cls]);
        b->bump = 0;
        b->next = c->blocks;
        c->blocks = b;
        c->fresh = b;
    }
    return SGC_BLOCK_SLOT(b, b->bump++);
}

void sgc__old_each_block(void (*fn)(sgc_block *, void *), void *arg) {
    for (uint32_t c = 0; c < SGC_NCLASSES; c++)
        for (sgc_block *b = sgc__classes[c].blocks; b != NULL; b = b->next)
            fn(b, arg);
}

/* Frees one large object, old or young (the caller unlinks it). */
static void large_free(sgc_large *l) {
    sgc__large_bytes -= l->footprint;
    size_t total = sizeof(sgc_large) + l->footprint - SGC_HEADER_BYTES;
    if (sgc__settings.poison)
        memset(l, SGC_POISON_BYTE, total);
    sgc__los_free(l, total);
}

void sgc__old_sweep(void) {
    int poison = sgc__settings.poison;
    for (uint32_t ci = 0; ci < SGC_NCLASSES; ci++) {
        sgc_size_class *c = &sgc__classes[ci];
        size_t slot = sgc__class_bytes[ci];
        char *head = NULL, **tail = &head; /* free list in address order per block */
        sgc_block **link = &c->blocks;
        sgc_block *b;
        while ((b = *link) != NULL) {
            char *block_head = NULL, **block_tail = &block_head;
            uint32_t live = 0;
            for (uint32_t i = 0; i < b->bump; i++) {
                char *s = SGC_BLOCK_SLOT(b, i);
                uint64_t h = *(uint64_t *)s;
                if (h != 0 && (h & SGC_F_MARKED)) {
                    *(uint64_t *)s = h & ~(uint64_t)SGC_F_MARKED;
                    live++;
                    continue;
                }
                if (h != 0) {
                    sgc__old_bytes -= slot;
                    if (poison)
                        memset(s + 16, SGC_POISON_BYTE, slot - 16);
                    *(uint64_t *)s = 0;
                }
                *block_tail = s;
                block_tail = (char **)(s + 8);
            }
            if (live == 0) {
                /* Empty: unlink and release; its slots join no free list. */
                *link = b->next;
                if (c->fresh == b)
                    c->fresh = NULL;
                block_put(b);
                continue;
            }
            if (block_head != NULL) {
                *tail = block_head;
                tail = block_tail;
            }
            link = &b->next;
        }
        *tail = NULL;
        c->free = head;
    }
    /* Large objects: the old list only (a major collection runs right after
     * a minor one, so no large object is young now). */
    sgc_large *l = sgc__old_large;
    while (l != NULL) {
        sgc_large *next = l->next;
        if (l->header & SGC_F_MARKED) {
            l->header &= ~(uint64_t)SGC_F_MARKED;
        } else {
            if (l->prev)
                l->prev->next = l->next;
            else
                sgc__old_large = l->next;
            if (l->next)
                l->next->prev = l->prev;
            large_free(l);
        }
        l = next;
    }
}

uint64_t sgc__large_minor_sweep(uint64_t *promoted_objects) {
    uint64_t bytes = 0, objects = 0;
    sgc_large *l = sgc__young_large;
    while (l != NULL) {
        sgc_large *next = l->next;
        if (l->header & SGC_F_MARKED) {
            l->header = (l->header & ~(uint64_t)(SGC_F_MARKED | SGC_F_YOUNG_LARGE)) | SGC_F_TRACK_YOUNG;
            l->prev = NULL;
            l->next = sgc__old_large;
            if (sgc__old_large)
                sgc__old_large->prev = l;
            sgc__old_large = l;
            bytes += l->footprint;
            objects++;
        } else {
            large_free(l);
        }
        l = next;
    }
    sgc__young_large = NULL;
    sgc__young_large_bytes = 0;
    *promoted_objects = objects;
    return bytes;
}
