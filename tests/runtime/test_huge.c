/* test_huge.c - SGC_HUGEPAGES: the nursery and the old generation's chunks in
 * 2 MiB-aligned mappings advised MADV_HUGEPAGE, and the documented fallback
 * (one warning line, hugepages_in_effect 0) when the system has no
 * transparent huge pages or refuses the advice.
 *
 * What the kernel did is read back from /proc/self/smaps: a VMA advised
 * MADV_HUGEPAGE carries "hg" in its VmFlags.  Whether a huge page actually
 * backs it (AnonHugePages) depends on the kernel's free memory, so it is not
 * asserted.  On a machine whose THP mode is never (or that has none) the
 * tests that need huge pages assert the fallback instead.  Criterion runs
 * each test in its own process, so each starts from a fresh runtime.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sgc_gc.h"

#define HUGE ((uintptr_t)2 << 20)

typedef struct node {
    struct node *a, *b;
    uint64_t value;
} node;

static uint32_t T_NODE;

static void setup(void) {
    static const char *const vars[] = {"SGC_NURSERY", "SGC_GC_STRESS", "SGC_POISON",
                                       "SGC_STATS",   "SGC_HEAP_MAX",  "SGC_HUGEPAGES"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    setenv("SGC_VERIFY", "1", 1);
    T_NODE = sgc_type_register(&(sgc_type){"node", sizeof(node), 0x3, SGC_VAR_NONE});
}

TestSuite(huge, .init = setup);

/* Does this system offer transparent huge pages to madvise? */
static int thp_available(void) {
    char line[256] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == NULL)
        return 0;
    if (fgets(line, sizeof line, f) == NULL)
        line[0] = '\0';
    fclose(f);
    return strstr(line, "[always]") != NULL || strstr(line, "[madvise]") != NULL;
}

/* The VMA of /proc/self/smaps that holds p: its bounds and whether its
 * VmFlags include hg (MADV_HUGEPAGE).  Fails the test if none does. */
typedef struct vma {
    uintptr_t lo, hi;
    int hg;
} vma;

static vma vma_of(const void *p) {
    FILE *f = fopen("/proc/self/smaps", "r");
    cr_assert_not_null(f);
    char line[512];
    uintptr_t lo = 0, hi = 0, a = (uintptr_t)p;
    vma found = {0, 0, -1};
    while (fgets(line, sizeof line, f)) {
        unsigned long l, h;
        /* A VMA's header line starts "lo-hi "; no field name ("Size:",
         * "AnonHugePages:", ...) scans as two hex numbers. */
        if (sscanf(line, "%lx-%lx ", &l, &h) == 2) {
            lo = l;
            hi = h;
        } else if (strncmp(line, "VmFlags:", 8) == 0 && lo <= a && a < hi) {
            found.lo = lo;
            found.hi = hi;
            found.hg = strstr(line, " hg") != NULL;
        }
    }
    fclose(f);
    cr_assert_neq(found.hg, -1, "no VMA of /proc/self/smaps holds %p", p);
    return found;
}

/* The value of key in the stats record at path, or -1. */
static long long stats_key(const char *path, const char *key) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[256];
    long long v = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ' ')
            v = atoll(line + n + 1);
    fclose(f);
    return v;
}

static void temp_stats(char *path) {
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    setenv("SGC_STATS", path, 1);
}

/* Sends stderr to a temporary file until stderr_text() reads it back. */
static int saved_stderr = -1;
static FILE *err_file;
static void capture_stderr(void) {
    fflush(stderr);
    err_file = tmpfile();
    cr_assert_not_null(err_file);
    saved_stderr = dup(2);
    dup2(fileno(err_file), 2);
}
static void stderr_text(char *buf, size_t len) {
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(err_file);
    size_t n = fread(buf, 1, len - 1, err_file);
    buf[n] = '\0';
    fclose(err_file);
}

/* A node that survives a minor collection: its slot is in an old chunk. */
static node *promoted_node(node **root) {
    *root = SGC_NEW(T_NODE, node);
    (*root)->value = 7;
    sgc_collect_minor();
    cr_assert(!((char *)*root >= sgc_nursery.start && (char *)*root < sgc_nursery.end), "promoted");
    cr_assert_eq((*root)->value, 7);
    return *root;
}

Test(huge, nursery_and_old_chunks_in_advised_2mib_mappings) {
    char path[] = "/tmp/sgc-test-huge-XXXXXX";
    temp_stats(path);
    setenv("SGC_HUGEPAGES", "1", 1);
    setenv("SGC_NURSERY", "64K", 1);
    node *keep = NULL;
    SGC_FRAME(&keep);
    node *old = promoted_node(&keep);
    int want = thp_available();
    cr_assert_eq(sgc__hugepages_in_effect, want, "THP available here: %d", want);
    vma n = vma_of(sgc_nursery.start), o = vma_of(old);
    if (want) {
        uintptr_t start = (uintptr_t)sgc_nursery.start, chunk = (uintptr_t)old & ~(HUGE - 1);
        cr_assert_eq(start % HUGE, 0, "nursery at %p", (void *)sgc_nursery.start);
        cr_assert(n.hg, "nursery VMA %lx-%lx not advised", (unsigned long)n.lo, (unsigned long)n.hi);
        cr_assert(n.lo <= start && n.hi >= start + HUGE, "the 64K nursery's mapping is a whole 2 MiB");
        cr_assert(o.hg, "old chunk VMA %lx-%lx not advised", (unsigned long)o.lo, (unsigned long)o.hi);
        cr_assert(o.lo <= chunk && o.hi >= chunk + HUGE, "the old chunk at %lx is one aligned 2 MiB",
                  (unsigned long)chunk);
    } else {
        cr_assert(!n.hg && !o.hg, "no THP here: nothing advised");
    }
    sgc_shutdown();
    cr_assert_eq(stats_key(path, "hugepages"), 1);
    cr_assert_eq(stats_key(path, "hugepages_in_effect"), want);
    unlink(path);
}

/* SGC_POISON maps both nursery halves at once: one aligned mapping, rounded
 * up to whole huge pages (2 x 1.5M = 3M -> 4M), the halves back to back. */
Test(huge, poison_halves_in_one_aligned_mapping) {
    setenv("SGC_HUGEPAGES", "1", 1);
    setenv("SGC_POISON", "1", 1);
    setenv("SGC_NURSERY", "1536K", 1);
    node *keep = NULL;
    SGC_FRAME(&keep);
    SGC_NEW(T_NODE, node);
    char *first = sgc_nursery.start;
    sgc_collect_minor();
    char *second = sgc_nursery.start;
    cr_assert_eq(second, first + (1536 << 10), "the second half follows the first");
    if (thp_available()) {
        cr_assert_eq(sgc__hugepages_in_effect, 1);
        cr_assert_eq((uintptr_t)first % HUGE, 0);
        vma v = vma_of(first);
        cr_assert(v.hg);
        cr_assert(v.lo <= (uintptr_t)first && v.hi >= (uintptr_t)first + 2 * HUGE, "4 MiB mapped: %lx-%lx",
                  (unsigned long)v.lo, (unsigned long)v.hi);
    } else {
        cr_assert_eq(sgc__hugepages_in_effect, 0);
    }
}

Test(huge, off_by_default) {
    char path[] = "/tmp/sgc-test-huge-XXXXXX";
    temp_stats(path);
    node *keep = NULL;
    SGC_FRAME(&keep);
    node *old = promoted_node(&keep);
    cr_assert_eq(sgc__hugepages_in_effect, 0);
    cr_assert(!vma_of(sgc_nursery.start).hg, "the nursery is not advised");
    cr_assert(!vma_of(old).hg, "old chunks are not advised");
    sgc_shutdown();
    cr_assert_eq(stats_key(path, "hugepages"), 0);
    cr_assert_eq(stats_key(path, "hugepages_in_effect"), 0);
    unlink(path);
}

/* The mapping helper keeps exactly the aligned range: the unaligned head
 * and the tail are unmapped, so the advised VMA is [a, a + len) exactly
 * (its neighbours carry no hg, so it cannot have merged with them). */
/* The address space's mapped ranges (/proc/self/maps), read without
 * allocating (a static buffer, open and read), so that taking the snapshot
 * maps nothing itself. */
typedef struct ranges {
    size_t n;
    uintptr_t lo[8192], hi[8192];
} ranges;

static char maps_text[1 << 21];

static void read_maps(ranges *r) {
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    cr_assert_geq(fd, 0, "/proc/self/maps: %s", strerror(errno));
    size_t len = 0;
    ssize_t k;
    while ((k = read(fd, maps_text + len, sizeof maps_text - 1 - len)) > 0)
        len += (size_t)k;
    close(fd);
    cr_assert_lt(len, sizeof maps_text - 1, "/proc/self/maps is larger than %zu bytes", sizeof maps_text - 1);
    maps_text[len] = '\0';
    r->n = 0;
    for (char *p = maps_text; *p;) {
        char *end;
        unsigned long lo = strtoul(p, &end, 16), hi = *end == '-' ? strtoul(end + 1, &end, 16) : 0;
        cr_assert_lt(r->n, sizeof r->lo / sizeof r->lo[0], "more than %zu mappings", sizeof r->lo / sizeof r->lo[0]);
        r->lo[r->n] = lo;
        r->hi[r->n] = hi;
        r->n++;
        char *nl = strchr(end, '\n');
        p = nl ? nl + 1 : end + strlen(end);
    }
}

static int is_mapped(const ranges *r, uintptr_t x) {
    for (size_t i = 0; i < r->n; i++)
        if (r->lo[i] <= x && x < r->hi[i])
            return 1;
    return 0;
}

static ranges maps_before, maps_after;

/* sgc__map_aligned(len, align), and the address space checked around it:
 * it may only have touched [a - align, a + len + align) (it maps len +
 * align bytes that contain [a, a + len)), and there every page must be
 * mapped afterwards exactly when it was before or lies in [a, a + len),
 * which was free before.  So no head or tail of its own mapping is left,
 * whatever lies next to it: a fresh mapping may fill a hole between two
 * others (under AddressSanitizer, whose allocator maps and unmaps often,
 * the page below an aligned mapping was sometimes another's). */
static char *map_aligned_checked(size_t len, size_t align) {
    read_maps(&maps_before);
    char *a = sgc__map_aligned(len, align);
    read_maps(&maps_after);
    cr_assert_not_null(a);
    cr_assert_eq((uintptr_t)a % align, 0);
    uintptr_t lo = (uintptr_t)a, hi = lo + len;
    for (uintptr_t x = lo - align; x < hi + align; x += 4096) {
        int in = lo <= x && x < hi, was = is_mapped(&maps_before, x), now = is_mapped(&maps_after, x);
        if (in)
            cr_assert(!was && now, "page %p of [%p, %p) was %s before and is %s after", (void *)x, (void *)lo,
                      (void *)hi, was ? "mapped" : "free", now ? "mapped" : "free");
        else
            cr_assert_eq(now, was, "page %p, %s [%p, %p), was %s before and is %s after: a %s left behind", (void *)x,
                         x < lo ? "below" : "above", (void *)lo, (void *)hi, was ? "mapped" : "free",
                         now ? "mapped" : "free", x < lo ? "head" : "tail");
    }
    return a;
}

Test(huge, map_aligned_keeps_exactly_the_range) {
    /* Small alignments first: the kernel places a 2 MiB multiple at a huge
     * page boundary by itself (recent kernels), a 128K mapping at any page,
     * so these have a head to trim. */
    sgc__hugepages_in_effect = 0;
    for (int i = 0; i < 8; i++) {
        char *a = map_aligned_checked(64 << 10, 64 << 10);
        a[0] = a[(64 << 10) - 1] = 1;
        munmap(a, 64 << 10);
    }
    if (!thp_available())
        return;
    sgc__hugepages_in_effect = 1;
    for (int i = 0; i < 4; i++) {
        size_t len = (size_t)(i + 1) * HUGE;
        char *a = map_aligned_checked(len, HUGE);
        vma v = vma_of(a);
        cr_assert(v.hg);
        cr_assert_eq(v.lo, (uintptr_t)a, "head trimmed: VMA %lx-%lx for %p", (unsigned long)v.lo, (unsigned long)v.hi,
                     (void *)a);
        cr_assert_eq(v.hi, (uintptr_t)a + len, "tail trimmed: VMA %lx-%lx for %p + %zu", (unsigned long)v.lo,
                     (unsigned long)v.hi, (void *)a, len);
        a[0] = a[len - 1] = 1; /* both ends are ours */
        munmap(a, len);        /* the next one must not merge with it */
    }
    cr_assert_eq(sgc__hugepages_in_effect, 1);
}

/* THP mode never (a stand-in for the sysfs file): one warning line, the
 * heap on normal pages, the program runs, the record says so. */
Test(huge, never_falls_back_with_one_warning) {
    char thp[] = "/tmp/sgc-test-thp-XXXXXX", path[] = "/tmp/sgc-test-huge-XXXXXX";
    int fd = mkstemp(thp);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "always madvise [never]\n", 23), 23);
    close(fd);
    sgc__thp_enabled_path = thp;
    temp_stats(path);
    setenv("SGC_HUGEPAGES", "1", 1);
    capture_stderr();
    node *keep = NULL;
    SGC_FRAME(&keep);
    node *old = promoted_node(&keep);
    for (int i = 0; i < 100000; i++)
        SGC_NEW(T_NODE, node); /* many nurseries: no second warning */
    char err[1024], want[512];
    stderr_text(err, sizeof err);
    snprintf(want, sizeof want,
             "freecheck: SGC_HUGEPAGES=1: transparent huge pages are off on this system (%s says \"always madvise "
             "[never]\"); the heap stays on normal pages (stats key hugepages_in_effect 0)\n",
             thp);
    cr_assert_str_eq(err, want);
    cr_assert_eq(sgc__hugepages_in_effect, 0);
    cr_assert(!vma_of(sgc_nursery.start).hg && !vma_of(old).hg, "nothing advised");
    cr_assert_eq(old->value, 7);
    sgc_shutdown();
    cr_assert_eq(stats_key(path, "hugepages"), 1);
    cr_assert_eq(stats_key(path, "hugepages_in_effect"), 0);
    unlink(path);
    unlink(thp);
}

/* A kernel built without THP has no sysfs file at all. */
Test(huge, no_thp_in_the_kernel_falls_back) {
    sgc__thp_enabled_path = "/nonexistent/transparent_hugepage/enabled";
    setenv("SGC_HUGEPAGES", "1", 1);
    capture_stderr();
    SGC_NEW(T_NODE, node);
    char err[1024];
    stderr_text(err, sizeof err);
    cr_assert_str_eq(err, "freecheck: SGC_HUGEPAGES=1: this system has no transparent huge pages "
                          "(/nonexistent/transparent_hugepage/enabled: No such file or directory); the heap stays "
                          "on normal pages (stats key hugepages_in_effect 0)\n");
    cr_assert_eq(sgc__hugepages_in_effect, 0);
}

/* madvise(MADV_HUGEPAGE) refused (EINVAL, as a kernel without THP answers):
 * a seccomp filter makes exactly that call fail.  The first refusal warns
 * and turns the advice off; later chunks are neither advised nor warned
 * about, and the program runs on. */
Test(huge, refused_madvise_falls_back_with_one_warning) {
    if (!thp_available())
        cr_skip_test("the sysfs check already falls back on this machine (never_falls_back_with_one_warning)");
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_madvise, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MADV_HUGEPAGE, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EINVAL & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof filter / sizeof filter[0], filter};
    cr_assert_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
    cr_assert_eq(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog), 0, "seccomp: %s", strerror(errno));
    setenv("SGC_HUGEPAGES", "1", 1);
    setenv("SGC_NURSERY", "64K", 1);
    setenv("SGC_VERIFY", "0", 1); /* a hundred collections of a growing heap */
    capture_stderr();
    node *keep = NULL;
    SGC_FRAME(&keep);
    node *old = promoted_node(&keep);
    for (int i = 0; i < 200000; i++) { /* 6 MiB of survivors: more old chunks */
        node *n = SGC_NEW(T_NODE, node);
        n->a = keep;
        keep = n;
    }
    char err[1024];
    stderr_text(err, sizeof err);
    cr_assert_str_eq(err, "freecheck: SGC_HUGEPAGES=1: madvise(MADV_HUGEPAGE) refused 2097152 bytes of heap "
                          "(Invalid argument); the heap stays on normal pages (stats key hugepages_in_effect 0)\n");
    cr_assert_eq(sgc__hugepages_in_effect, 0);
    cr_assert(!vma_of(sgc_nursery.start).hg && !vma_of(old).hg && !vma_of(keep).hg);
    cr_assert_eq(old->value, 7);
}
