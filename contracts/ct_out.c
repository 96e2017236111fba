/* ct_out.c - output files written whole or not at all (invariants: ct_out.h). */
#include "ct_out.h"
#include "ct_alloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files claimed so far by this process. */
typedef struct claim {
    char *canon; /* realpath of the directory + "/" + the name */
    int exists;  /* the file existed when claimed */
    dev_t dev;   /* its device and inode then */
    ino_t ino;
} claim;
static claim *claims;
static size_t nclaims;

/* "a FIFO", "a directory", ... for a file type that is not a regular file. */
static const char *kind_of(mode_t m) {
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

/* 0 if path is absent or a regular file (*st filled, *exists set), else 2
 * (or 1 when it cannot be examined) with the reason in err. */
static int check_target(const char *path, struct stat *st, int *exists, char *err, size_t errlen) {
    *exists = 0;
    if (lstat(path, st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return 1;
    }
    if (!S_ISREG(st->st_mode)) {
        snprintf(err, errlen,
                 "%s is %s, not a regular file: refusing to replace it with an output file (remove it, or write "
                 "the outputs elsewhere)",
                 path, kind_of(st->st_mode));
        return 2;
    }
    *exists = 1;
    return 0;
}

/* The directory and last component of path: "d/n" -> "d", "n"; "n" -> ".", "n". */
static void split(const char *path, char **dir, const char **name) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        *dir = ct_xstrdup(".");
        *name = path;
        return;
    }
    size_t n = (size_t)(slash - path);
    *dir = ct_xmalloc(n + 2);
    if (n == 0)
        strcpy(*dir, "/");
    else {
        memcpy(*dir, path, n);
        (*dir)[n] = '\0';
    }
    *name = slash + 1;
}

int ct_out_claim(const char *path, char *err, size_t errlen) {
    char *dir;
    const char *name;
    split(path, &dir, &name);
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) {
        snprintf(err, errlen, "%s does not name a file", path);
        free(dir);
        return 2;
    }
    struct stat st;
    int exists, rc = check_target(path, &st, &exists, err, errlen);
    if (rc) {
        free(dir);
        return rc;
    }
    char real[PATH_MAX];
    if (!realpath(dir, real)) {
        snprintf(err, errlen, "cannot write %s: its directory %s: %s", path, dir, strerror(errno));
        free(dir);
        return 1;
    }
    free(dir);
    size_t n = strlen(real) + strlen(name) + 2;
    char *canon = ct_xmalloc(n);
    snprintf(canon, n, "%s/%s", strcmp(real, "/") ? real : "", name);
    for (size_t i = 0; i < nclaims; i++)
        if (!strcmp(claims[i].canon, canon) ||
            (exists && claims[i].exists && claims[i].dev == st.st_dev && claims[i].ino == st.st_ino)) {
            snprintf(err, errlen,
                     "%s is the same file as %s, which another output of this run writes: one would replace the "
                     "other (give each output its own file)",
                     path, claims[i].canon);
            free(canon);
            return 2;
        }
    claims = ct_xrealloc(claims, (nclaims + 1) * sizeof *claims);
    claims[nclaims++] = (claim){canon, exists, exists ? st.st_dev : 0, exists ? st.st_ino : 0};
    return 0;
}

/* Forgets the claim on path (its output was abandoned). */
static void unclaim_last(void) {
    if (nclaims) {
        free(claims[nclaims - 1].canon);
        nclaims--;
    }
}

static mode_t file_mode(void) {
    mode_t m = umask(0);
    umask(m);
    return 0666 & ~m;
}

FILE *ct_outs_open(ct_outs *s, const char *path, int *status, char *err, size_t errlen) {
    if ((*status = ct_out_claim(path, err, errlen)) != 0)
        return NULL;
    size_t n = strlen(path) + sizeof ".tmp.XXXXXX";
    char *tmp = ct_xmalloc(n);
    snprintf(tmp, n, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = NULL;
    if (fd < 0 || fchmod(fd, file_mode()) != 0 || !(f = fdopen(fd, "w"))) {
        snprintf(err, errlen, "cannot write %s (through a temporary file next to it): %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        unclaim_last();
        *status = 1;
        return NULL;
    }
    if (s->n == s->cap)
        s->v = ct_xrealloc(s->v, (s->cap = s->cap ? 2 * s->cap : 16) * sizeof *s->v);
    s->v[s->n++] = (ct_outfile){ct_xstrdup(path), tmp, f};
    return f;
}

static void release(ct_outs *s) {
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].path);
        free(s->v[i].tmp);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

void ct_outs_abort(ct_outs *s) {
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].f)
            fclose(s->v[i].f);
        unlink(s->v[i].tmp);
    }
    release(s);
}

int ct_outs_commit(ct_outs *s, char *err, size_t errlen) {
    int rc = 0;
    for (size_t i = 0; i < s->n; i++) {
        ct_outfile *o = &s->v[i];
        int bad = ferror(o->f), e = 0;
        if (fclose(o->f) != 0) {
            bad = 1;
            e = errno;
        }
        o->f = NULL;
        if (bad && !rc) {
            snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e ? e : EIO));
            rc = 1;
        }
    }
    /* Every target again: one may have been replaced since it was opened. */
    for (size_t i = 0; i < s->n && !rc; i++) {
        struct stat st;
        int exists;
        rc = check_target(s->v[i].path, &st, &exists, err, errlen);
    }
    for (size_t i = 0; i < s->n && !rc; i++)
        if (rename(s->v[i].tmp, s->v[i].path) != 0) {
            snprintf(err, errlen, "cannot write %s (renaming %s over it): %s", s->v[i].path, s->v[i].tmp,
                     strerror(errno));
            rc = 1;
        }
    if (rc)
        for (size_t i = 0; i < s->n; i++)
            unlink(s->v[i].tmp); /* one already renamed is gone (ENOENT) */
    release(s);
    return rc;
}
