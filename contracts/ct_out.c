/* ct_out.c - output files written whole or not at all (invariants: ct_out.h). */
#include "ct_out.h"
#include "ct_alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- One file ------------------------------------------------------------- */

const char *ct_out_kind(mode_t m) {
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

/* ct_out_check, also telling whether path exists (*st filled then). */
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
                 path, ct_out_kind(st->st_mode));
        return 2;
    }
    *exists = 1;
    return 0;
}

int ct_out_check(const char *path, char *err, size_t errlen) {
    struct stat st;
    int exists;
    return check_target(path, &st, &exists, err, errlen);
}

/* o->tmp = path ".tmp." and the pid in 8 hex digits: a loop of the same
 * steps for every pid (a decimal pid's 1 to 7 digits would cost more
 * instructions for a longer one).  0, or -1 if path is too long. */
static int tmp_name(ct_out *o, const char *path) {
    static const char hex[] = "0123456789abcdef";
    size_t len = strlen(path);
    if (len > CT_OUT_PATH_MAX)
        return -1;
    memcpy(o->tmp, path, len);
    memcpy(o->tmp + len, ".tmp.", 5);
    uint32_t pid = (uint32_t)getpid();
    for (int i = 0; i < 8; i++)
        o->tmp[len + 5 + i] = hex[(pid >> (28 - 4 * i)) & 15];
    o->tmp[len + 13] = '\0';
    return 0;
}

int ct_out_begin(ct_out *o, const char *path, char *err, size_t errlen) {
    o->path = path;
    o->tmp[0] = '\0';
    o->fd = -1;
    o->f = NULL;
    o->failed = 0;
    if (tmp_name(o, path) != 0) {
        o->tmp[0] = '\0';
        snprintf(err, errlen, "cannot write %.200s...: the path is longer than %d bytes", path, CT_OUT_PATH_MAX);
        return 1;
    }
    int rc = ct_out_check(path, err, errlen);
    if (rc) {
        o->tmp[0] = '\0';
        return rc;
    }
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
    if (o->fd < 0) {
        int e = errno;
        if (e == EEXIST)
            snprintf(err, errlen,
                     "cannot write %s: its temporary file %s exists, left by a process that stopped while writing "
                     "it (remove it)",
                     path, o->tmp);
        else
            snprintf(err, errlen, "cannot write %s (through a temporary file next to it): %s", path, strerror(e));
        o->tmp[0] = '\0';
        return 1;
    }
    return 0;
}

int ct_out_write(ct_out *o, const void *data, size_t n) {
    const char *p = data;
    while (n > 0) {
        ssize_t k = write(o->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            int e = k < 0 ? errno : EIO;
            if (!o->failed)
                o->failed = e;
            errno = e;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

FILE *ct_out_stream(ct_out *o) {
    if (!o->f)
        o->f = fdopen(o->fd, "w");
    return o->f;
}

/* Closes the temporary.  0, or 1 with the reason in err when a write or
 * the close failed (the temporary stays, for the caller to remove). */
static int close_tmp(ct_out *o, char *err, size_t errlen) {
    int e = o->failed;
    if (o->f) {
        if (ferror(o->f) && !e)
            e = errno ? errno : EIO;
        if (fclose(o->f) != 0 && !e)
            e = errno ? errno : EIO;
        o->f = NULL;
        o->fd = -1;
    } else if (o->fd >= 0) {
        if (close(o->fd) != 0 && !e)
            e = errno;
        o->fd = -1;
    }
    if (!e)
        return 0;
    snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
    return 1;
}

/* Renames the closed temporary over the target after checking it again.
 * 0, or 1/2 with the reason in err (the temporary stays). */
static int rename_tmp(ct_out *o, char *err, size_t errlen) {
    int rc = ct_out_check(o->path, err, errlen);
    if (rc)
        return rc;
    if (rename(o->tmp, o->path) != 0) {
        snprintf(err, errlen, "cannot write %s (renaming %s over it): %s", o->path, o->tmp, strerror(errno));
        return 1;
    }
    o->tmp[0] = '\0';
    return 0;
}

int ct_out_commit(ct_out *o, char *err, size_t errlen) {
    int rc = close_tmp(o, err, errlen);
    if (!rc)
        rc = rename_tmp(o, err, errlen);
    if (rc)
        ct_out_abort(o);
    return rc;
}

void ct_out_abort(ct_out *o) {
    if (o->f)
        fclose(o->f);
    else if (o->fd >= 0)
        close(o->fd);
    o->f = NULL;
    o->fd = -1;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

int ct_out_link(const char *target, const char *path, char *err, size_t errlen) {
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is %s, not a symbolic link: left alone (remove it to have it updated)",
                 path, S_ISREG(st.st_mode) ? "a regular file" : ct_out_kind(st.st_mode));
        return 2;
    }
    ct_out o = {.path = path};
    if (tmp_name(&o, path) != 0) {
        snprintf(err, errlen, "cannot update %.200s...: the path is longer than %d bytes", path, CT_OUT_PATH_MAX);
        return 1;
    }
    if (symlink(target, o.tmp) != 0) {
        snprintf(err, errlen, "cannot update %s (through a link %s next to it): %s", path, o.tmp, strerror(errno));
        return 1;
    }
    if (rename(o.tmp, path) != 0) {
        snprintf(err, errlen, "cannot update %s (renaming %s over it): %s", path, o.tmp, strerror(errno));
        unlink(o.tmp);
        return 1;
    }
    return 0;
}

/* ---- A set of files ------------------------------------------------------- */

/* The files claimed so far by this process. */
typedef struct claim {
    char *canon; /* realpath of the directory + "/" + the name */
    int exists;  /* the file existed when claimed */
    dev_t dev;   /* its device and inode then */
    ino_t ino;
} claim;
static claim *claims;
static size_t nclaims;

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

/* Forgets the last claim (its output was abandoned). */
static void unclaim_last(void) {
    if (nclaims) {
        free(claims[nclaims - 1].canon);
        nclaims--;
    }
}

FILE *ct_outs_open(ct_outs *s, const char *path, int *status, char *err, size_t errlen) {
    if ((*status = ct_out_claim(path, err, errlen)) != 0)
        return NULL;
    ct_outfile *of = ct_xmalloc(sizeof *of);
    of->path = ct_xstrdup(path);
    if ((*status = ct_out_begin(&of->o, of->path, err, errlen)) != 0 || !ct_out_stream(&of->o)) {
        if (!*status) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            ct_out_abort(&of->o);
            *status = 1;
        }
        free(of->path);
        free(of);
        unclaim_last();
        return NULL;
    }
    if (s->n == s->cap)
        s->v = ct_xrealloc(s->v, (s->cap = s->cap ? 2 * s->cap : 16) * sizeof *s->v);
    s->v[s->n++] = of;
    return of->o.f;
}

static void release(ct_outs *s) {
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i]->path);
        free(s->v[i]);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

void ct_outs_abort(ct_outs *s) {
    for (size_t i = 0; i < s->n; i++)
        ct_out_abort(&s->v[i]->o);
    release(s);
}

int ct_outs_commit(ct_outs *s, char *err, size_t errlen) {
    int rc = 0;
    char e2[16];
    for (size_t i = 0; i < s->n; i++) /* every one closed; the first failure reported */
        if (close_tmp(&s->v[i]->o, rc ? e2 : err, rc ? sizeof e2 : errlen) && !rc)
            rc = 1;
    /* Every target again: one may have been replaced since it was opened. */
    for (size_t i = 0; i < s->n && !rc; i++)
        rc = ct_out_check(s->v[i]->path, err, errlen);
    for (size_t i = 0; i < s->n && !rc; i++)
        rc = rename_tmp(&s->v[i]->o, err, errlen);
    ct_outs_abort(s); /* removes what was not renamed */
    return rc;
}
