/* sgc_output.c - the files a run writes: start-up checks, the in-place open
 * and the atomic replace (invariants: sgc_output.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../contracts/ct_out.h"
#include "sgc_internal.h"
#include "sgc_output.h"

#define SGC__OUTPUT_VAR(id, var, what, renamed) var,
#define SGC__OUTPUT_WHAT(id, var, what, renamed) what,
#define SGC__OUTPUT_RENAMED(id, var, what, renamed) renamed,
static const char *const out_var[] = {SGC_OUTPUTS(SGC__OUTPUT_VAR)};
static const char *const out_what[] = {SGC_OUTPUTS(SGC__OUTPUT_WHAT)};
static const int out_renamed[] = {SGC_OUTPUTS(SGC__OUTPUT_RENAMED)};
#undef SGC__OUTPUT_VAR
#undef SGC__OUTPUT_WHAT
#undef SGC__OUTPUT_RENAMED

const char *sgc__output_path(sgc_output o) {
    switch (o) {
    case SGC_OUT_PROFILE: return sgc__settings.profile_path;
    case SGC_OUT_STATS: return sgc__settings.stats_path;
    case SGC_OUT_SERIES: return sgc__settings.alt_out;
    default: return NULL;
    }
}

/* Why an existing file of this mode cannot be an output, or NULL if it can
 * (a regular file); the kind of file in ct_out's words (contracts/ct_out.h). */
static const char *refuse_mode(mode_t m, char *why, size_t whylen) {
    if (S_ISREG(m))
        return NULL;
    if (S_ISDIR(m))
        snprintf(why, whylen, "is a directory");
    else
        snprintf(why, whylen, "not a regular file (%s); name a regular file or a new one", ct_out_kind(m));
    return why;
}

__attribute__((noreturn)) static void refuse(sgc_output o, const char *why) {
    fprintf(stderr, "freecheck: %s=%s: %s\n", out_var[o], sgc__output_path(o), why);
    exit(2);
}

/* ---- Which file a path names ----------------------------------------------- */

/* A file as the kernel knows it: an existing one by device and inode; one
 * that does not exist yet by its directory's device and inode and its last
 * name, which is what creating it will use. */
typedef struct file_id {
    int exists;
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1]; /* when it does not exist */
} file_id;

/* Splits p (at most PATH_MAX) at its last '/': dir gets the directory ("."
 * if none), the result is the last name. */
static const char *split_path(const char *p, char *dir) {
    const char *slash = strrchr(p, '/');
    if (!slash) {
        strcpy(dir, ".");
        return p;
    }
    size_t n = slash == p ? 1 : (size_t)(slash - p);
    memcpy(dir, p, n);
    dir[n] = '\0';
    return slash + 1;
}

/* Resolves path to the file it names (following symbolic links, also
 * dangling ones, to the name they would create).  0, or -1 with errno set
 * (the start-up check then reports the path as it would any unwritable
 * one). */
static int identify(const char *path, file_id *id) {
    char p[PATH_MAX], dir[PATH_MAX], link[PATH_MAX];
    if (strlen(path) >= sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(p, path);
    memset(id, 0, sizeof *id);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (stat(p, &st) == 0) {
            id->exists = 1;
            id->dev = st.st_dev;
            id->ino = st.st_ino;
            return 0;
        }
        if (errno != ENOENT)
            return -1;
        const char *base = split_path(p, dir);
        if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
            /* A dangling link: creating the path creates its target. */
            ssize_t n = readlink(p, link, sizeof link - 1);
            if (n < 0)
                return -1;
            link[n] = '\0';
            if (link[0] == '/') {
                strcpy(p, link);
            } else {
                size_t d = strlen(dir);
                if (d + 1 + (size_t)n >= sizeof p) {
                    errno = ENAMETOOLONG;
                    return -1;
                }
                memcpy(p, dir, d);
                p[d] = '/';
                memcpy(p + d + 1, link, (size_t)n + 1);
            }
            continue;
        }
        if (strlen(base) > NAME_MAX) {
            errno = ENAMETOOLONG;
            return -1;
        }
        if (stat(dir, &st) != 0)
            return -1;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        strcpy(id->name, base);
        return 0;
    }
    errno = ELOOP;
    return -1;
}

static int same_file(const file_id *a, const file_id *b) {
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && (a->exists || !strcmp(a->name, b->name));
}

/* ---- Start-up -------------------------------------------------------------- */

/* Creates and removes the temporary file a replaced output is written to
 * (contracts/ct_out.h), so that a path that cannot be written, or that the
 * atomic writer refuses (a symbolic link), is refused before the program
 * runs rather than at its end. */
static void check_replaceable(sgc_output o, const char *path) {
    ct_out out;
    char err[CT_OUT_PATH_MAX + 256], why[sizeof err + 64];
    if (ct_out_begin(&out, path, err, sizeof err) != 0) {
        snprintf(why, sizeof why, "cannot write %s there: %s", out_what[o], err);
        refuse(o, why);
    }
    ct_out_abort(&out);
}

void sgc__outputs_check(void) {
    file_id ids[SGC_NOUTPUTS];
    int known[SGC_NOUTPUTS] = {0};
    file_id std[2];
    int std_regular[2] = {0};
    for (int fd = 1; fd <= 2; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
            std_regular[fd - 1] = 1;
            std[fd - 1] = (file_id){.exists = 1, .dev = st.st_dev, .ino = st.st_ino};
        }
    }
    for (int i = 0; i < SGC_NOUTPUTS; i++) {
        sgc_output o = (sgc_output)i;
        const char *path = sgc__output_path(o);
        if (path == NULL)
            continue;
        char why[300], reason[200];
        struct stat st;
        if (stat(path, &st) == 0 && refuse_mode(st.st_mode, reason, sizeof reason)) {
            snprintf(why, sizeof why, "cannot write %s there: %s", out_what[o], reason);
            refuse(o, why);
        }
        if (identify(path, &ids[i]) == 0) {
            known[i] = 1;
            for (int j = 0; j < i; j++)
                if (known[j] && same_file(&ids[i], &ids[j])) {
                    snprintf(why, sizeof why, "names the same file as %s=%s; give each output its own file", out_var[j],
                             sgc__output_path((sgc_output)j));
                    refuse(o, why);
                }
            for (int s = 0; s < 2; s++)
                if (std_regular[s] && same_file(&ids[i], &std[s])) {
                    snprintf(why, sizeof why,
                             "is the file the program's standard %s goes to; give %s a file of its own",
                             s == 0 ? "output" : "error", out_what[o]);
                    refuse(o, why);
                }
        }
        /* An output whose path does not resolve (a missing directory) is
         * reported by the write check: the profile's open, the others'
         * temporary file. */
        if (out_renamed[o])
            check_replaceable(o, path);
    }
}

/* ---- Writing --------------------------------------------------------------- */

int sgc__output_open(sgc_output o, char *why, size_t whylen) {
    const char *path = sgc__output_path(o);
    struct stat st;
    char reason[200];
    if (stat(path, &st) == 0 && refuse_mode(st.st_mode, reason, sizeof reason)) {
        snprintf(why, whylen, "%s", reason);
        return -1;
    }
    /* O_NONBLOCK: a FIFO put there since the check makes the open fail
     * (no reader) instead of blocking the program. */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
    if (fd < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || refuse_mode(st.st_mode, reason, sizeof reason)) {
        snprintf(why, whylen, "%s", reason);
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int sgc__output_replace(sgc_output o, int (*fill)(FILE *f, void *ctx), void *ctx, char *why, size_t whylen) {
    ct_out out;
    if (ct_out_begin(&out, sgc__output_path(o), why, whylen) != 0)
        return -1;
    FILE *f = ct_out_stream(&out);
    if (f == NULL) {
        snprintf(why, whylen, "%s", strerror(errno));
        ct_out_abort(&out);
        return -1;
    }
    errno = 0;
    if (fill(f, ctx) != 0 && !out.failed)
        out.failed = errno ? errno : EIO;
    /* The commit checks the path again: it may have become a special file
     * since start-up, and rename would replace it. */
    return ct_out_commit(&out, why, whylen) != 0 ? -1 : 0;
}
