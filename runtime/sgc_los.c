/* sgc_los.c - the large-object space: page-aligned chunks the runtime maps
 * itself, reused through free lists by page count (invariants: sgc_gc.h).
 *
 * Why not malloc: where glibc puts a large calloc depends on the whole
 * malloc history of the process (its mmap threshold moves with the sizes it
 * has freed), so the sampler's and the profile writer's own allocations used
 * to change how many page faults the heap's large objects took, and with it
 * the run time of allocation-heavy programs: an artefact, not a cost of
 * sampling.  Here the heap's large objects come only from mappings of this
 * file, and what is reused is decided by the heap's own allocations and
 * frees alone. */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sgc_gc.h"

static struct {
    size_t page;                     /* the system page size */
    void *free[SGC_LOS_CLASSES + 1]; /* free chunks of exactly i pages, linked by word 0 */
    uint64_t cached;                 /* bytes in those lists */
    uint64_t mapped;                 /* bytes mapped: in use and cached */
} los;

/* SGC_POISON: a chunk taken from a free list must still be poison beyond
 * its link word; a byte that is not was written through a pointer to the
 * large object freed there. */
static void check_poison(const void *chunk, size_t bytes) {
    const unsigned char *p = chunk;
    for (size_t i = sizeof(void *); i < bytes; i++)
        if (p[i] != SGC_POISON_BYTE)
            sgc__misuse("a freed object was written after it died: byte %zu of a freed large object's chunk is %#04x, "
                        "not the poison %#04x (SGC_POISON); a pointer kept across a collection",
                        i, p[i], SGC_POISON_BYTE);
}

/* Pages of the chunk for an object of bytes: exact up to 64 pages, then
 * rounded up to a multiple of 16 (64 KiB), so that objects of nearby sizes
 * share a free list; the rounding costs address space, not memory (a page
 * is only backed once it is written). */
static size_t chunk_pages(size_t bytes) {
    size_t pages = (bytes + los.page - 1) / los.page;
    return pages <= 64 ? pages : (pages + 15) & ~(size_t)15;
}

void *sgc__los_alloc(size_t bytes) {
    if (los.page == 0)
        los.page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = chunk_pages(bytes);
    if (pages <= SGC_LOS_CLASSES && los.free[pages] != NULL) {
        void *p = los.free[pages];
        los.free[pages] = *(void **)p;
        los.cached -= pages * los.page;
        if (sgc__settings.poison)
            check_poison(p, bytes);
        /* Reused: zero what the object will use, no more (a fresh mapping
         * comes zeroed from the kernel). */
        memset(p, 0, bytes);
        return p;
    }
    if (pages > SIZE_MAX / los.page)
        return NULL;
    void *p = mmap(NULL, pages * los.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    los.mapped += pages * los.page;
    return p;
}

void sgc__los_free(void *p, size_t bytes) {
    size_t pages = chunk_pages(bytes);
    size_t size = pages * los.page;
    /* Keep chunks up to SGC_LOS_CLASSES pages for reuse while the cache is
     * below its cap; anything larger, or beyond the cap, goes back to the
     * system at once. */
    if (pages <= SGC_LOS_CLASSES && los.cached + size <= SGC_LOS_CACHE_MAX) {
        /* SGC_POISON: the whole chunk, so that its next use can check that
         * nothing wrote to it meanwhile (word 0 is the free list's link). */
        if (sgc__settings.poison)
            memset(p, SGC_POISON_BYTE, size);
        /* No madvise: MADV_FREE on every free of a 1 MiB chunk made
         * largeobj 2.2x slower (one page-table walk per call); the cap
         * bounds what is kept instead. */
        *(void **)p = los.free[pages];
        los.free[pages] = p;
        los.cached += size;
        return;
    }
    munmap(p, size);
    los.mapped -= size;
}

uint64_t sgc__los_mapped(void) { return los.mapped; }

uint64_t sgc__los_cached(void) { return los.cached; }
