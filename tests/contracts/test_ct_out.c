/* test_ct_out.c - the atomic writer's one-file layer (contracts/ct_out.h):
 * the temporary is "<target>.tmp.<pid in 8 hex digits>", created with mode
 * 0666 less the umask; a target that is not a regular file is refused
 * (status 2) before anything is written, and again at the commit when it
 * became one meanwhile, left as it was and no temporary left; a temporary
 * that exists is named, not removed (status 1); a failed write renames
 * nothing; ct_out_link replaces a link and refuses anything else.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../contracts/ct_out.h"

static char dir[64];

static void setup(void) {
    snprintf(dir, sizeof dir, "/tmp/ct-out-test-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(ct_out, .init = setup, .fini = teardown);

static const char *in_dir(const char *name) {
    static char buf[4][256];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

/* The number of entries of the test's directory. */
static int entries(void) {
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* The content of path (at most 63 bytes), "" if absent. */
static const char *content(const char *path) {
    static char buf[64];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

Test(ct_out, writes_through_a_fixed_length_temporary) {
    const char *p = in_dir("out");
    char err[512], want[300];
    ct_out o;
    mode_t old = umask(027);
    cr_assert_eq(ct_out_begin(&o, p, err, sizeof err), 0, "%s", err);
    umask(old);
    snprintf(want, sizeof want, "%s.tmp.%08x", p, (unsigned)getpid());
    cr_assert_str_eq(o.tmp, want);
    struct stat st;
    cr_assert(stat(o.tmp, &st) == 0 && (st.st_mode & 0777) == 0640, "mode %o", st.st_mode & 0777);
    cr_assert_eq(ct_out_write(&o, "new\n", 4), 0);
    cr_assert_str_eq(content(p), "", "the target was written before the commit");
    cr_assert_eq(ct_out_commit(&o, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(content(p), "new\n");
    cr_assert_eq(entries(), 1, "a temporary was left");
    /* Through a stream, over the existing file. */
    cr_assert_eq(ct_out_begin(&o, p, err, sizeof err), 0, "%s", err);
    FILE *f = ct_out_stream(&o);
    cr_assert_not_null(f);
    fprintf(f, "again\n");
    cr_assert_eq(ct_out_commit(&o, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(content(p), "again\n");
    cr_assert_eq(entries(), 1);
}

Test(ct_out, non_regular_targets_refused_and_left_alone) {
    const char *fifo = in_dir("fifo"), *sub = in_dir("sub"), *link = in_dir("link"), *file = in_dir("file");
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(mkdir(sub, 0700), 0);
    cr_assert_eq(symlink(file, link), 0);
    const char *paths[3] = {fifo, sub, link}, *kinds[3] = {"a FIFO", "a directory", "a symbolic link"};
    for (int k = 0; k < 3; k++) {
        ct_out o;
        char err[512], want[512];
        cr_assert_eq(ct_out_begin(&o, paths[k], err, sizeof err), 2, "%s", paths[k]);
        snprintf(want, sizeof want,
                 "%s is %s, not a regular file: refusing to replace it with an output file (remove it, or write the "
                 "outputs elsewhere)",
                 paths[k], kinds[k]);
        cr_assert_str_eq(err, want);
        cr_assert_eq(o.fd, -1);
    }
    struct stat st;
    cr_assert(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    cr_assert(lstat(sub, &st) == 0 && S_ISDIR(st.st_mode));
    cr_assert(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    cr_assert_eq(entries(), 3, "a temporary or the link's file was made");
}

Test(ct_out, target_that_becomes_a_fifo_is_not_replaced) {
    const char *p = in_dir("out");
    ct_out o;
    char err[512], want[512];
    cr_assert_eq(ct_out_begin(&o, p, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ct_out_write(&o, "x\n", 2), 0);
    cr_assert_eq(mkfifo(p, 0600), 0);
    cr_assert_eq(ct_out_commit(&o, err, sizeof err), 2);
    snprintf(want, sizeof want, "%s is a FIFO, not a regular file", p);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
    struct stat st;
    cr_assert(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode));
    cr_assert_eq(entries(), 1, "the temporary was left");
}

Test(ct_out, failed_write_renames_nothing) {
    const char *p = in_dir("out");
    FILE *f = fopen(p, "w");
    cr_assert(f && fputs("old\n", f) >= 0 && fclose(f) == 0);
    ct_out o;
    char err[512], want[512];
    cr_assert_eq(ct_out_begin(&o, p, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ct_out_write(&o, "new\n", 4), 0);
    o.failed = ENOSPC; /* as a writer of its own records a full disk */
    cr_assert_eq(ct_out_commit(&o, err, sizeof err), 1);
    snprintf(want, sizeof want, "cannot write %s: %s", p, strerror(ENOSPC));
    cr_assert_str_eq(err, want);
    cr_assert_str_eq(content(p), "old\n");
    cr_assert_eq(entries(), 1, "the temporary was left");
    /* An abort likewise. */
    cr_assert_eq(ct_out_begin(&o, p, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ct_out_write(&o, "new\n", 4), 0);
    ct_out_abort(&o);
    cr_assert_str_eq(content(p), "old\n");
    cr_assert_eq(entries(), 1);
}

Test(ct_out, existing_temporary_named_and_kept) {
    const char *p = in_dir("out");
    char tmp[300], err[1024], want[1024];
    snprintf(tmp, sizeof tmp, "%s.tmp.%08x", p, (unsigned)getpid());
    FILE *f = fopen(tmp, "w");
    cr_assert(f && fputs("stale\n", f) >= 0 && fclose(f) == 0);
    ct_out o;
    cr_assert_eq(ct_out_begin(&o, p, err, sizeof err), 1);
    snprintf(want, sizeof want,
             "cannot write %s: its temporary file %s exists, left by a process that stopped while writing it (remove "
             "it)",
             p, tmp);
    cr_assert_str_eq(err, want);
    cr_assert_str_eq(content(tmp), "stale\n");
    cr_assert_eq(entries(), 1);
}

Test(ct_out, missing_directory_and_long_path) {
    const char *p = in_dir("nodir/out");
    ct_out o;
    char err[512], want[512];
    cr_assert_eq(ct_out_begin(&o, p, err, sizeof err), 1);
    snprintf(want, sizeof want, "cannot write %s (through a temporary file next to it): %s", p, strerror(ENOENT));
    cr_assert_str_eq(err, want);
    static char longp[CT_OUT_PATH_MAX + 2];
    memset(longp, 'a', sizeof longp - 1);
    cr_assert_eq(ct_out_begin(&o, longp, err, sizeof err), 1);
    cr_assert_not_null(strstr(err, "the path is longer than 4096 bytes"), "%s", err);
}

Test(ct_out, link_replaced_atomically_and_nothing_else) {
    const char *l = in_dir("latest");
    char err[512], got[64], want[512];
    cr_assert_eq(ct_out_link("one", l, err, sizeof err), 0, "%s", err);
    ssize_t n = readlink(l, got, sizeof got - 1);
    cr_assert_eq(n, 3);
    got[n] = '\0';
    cr_assert_str_eq(got, "one");
    cr_assert_eq(ct_out_link("two", l, err, sizeof err), 0, "%s", err);
    n = readlink(l, got, sizeof got - 1);
    got[n < 0 ? 0 : n] = '\0';
    cr_assert_str_eq(got, "two");
    cr_assert_eq(entries(), 1, "a temporary link was left");
    const char *f = in_dir("plain");
    FILE *fp = fopen(f, "w");
    cr_assert(fp && fclose(fp) == 0);
    cr_assert_eq(ct_out_link("one", f, err, sizeof err), 2);
    snprintf(want, sizeof want,
             "%s exists and is a regular file, not a symbolic link: left alone (remove it to have it updated)", f);
    cr_assert_str_eq(err, want);
    struct stat st;
    cr_assert(lstat(f, &st) == 0 && S_ISREG(st.st_mode));
}
