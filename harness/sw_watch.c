/* sw_watch.c - the sweep's programs, checked by identity and content. */
#include "sw_watch.h"
#include "sw_cmd.h"
#include "sw_hash.h"
#include "sw_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sw_watch_files_of(const char *workload, const char *bin, char ***keys, char ***paths) {
    const sw_command *c = sw_cmd_find(workload);
    if (!c) {
        *paths = ct_xcalloc(1, sizeof **paths);
        *keys = ct_xcalloc(1, sizeof **keys);
        (*paths)[0] = sw_xasprintf("%s/%s", bin, workload);
        (*keys)[0] = ct_xstrdup(workload);
        return 1;
    }
    int n = sw_cmd_files(c, bin, paths);
    *keys = ct_xcalloc((size_t)n, sizeof **keys);
    (*keys)[0] = ct_xstrdup(workload);
    for (int i = 1; i < n; i++) {
        const char *slash = strrchr((*paths)[i], '/'), *base = slash ? slash + 1 : (*paths)[i];
        int twice = 0;
        for (int j = 1; j < n; j++) {
            const char *sj = strrchr((*paths)[j], '/');
            twice += j != i && !strcmp(sj ? sj + 1 : (*paths)[j], base);
        }
        (*keys)[i] = twice ? sw_xasprintf("%s:%s#%d", workload, base, i) : sw_xasprintf("%s:%s", workload, base);
    }
    return n;
}

static int same_id(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

char *sw_watch_hash(const char *path, struct stat *id) {
    char hex[65];
    struct stat before, after;
    for (int tries = 0;; tries++) {
        if (stat(path, &before) != 0 || sw_sha256_file(path, hex) != 0)
            return sw_xasprintf("none (%s: %s)", path, strerror(errno));
        /* Written to while it was read: read it again, once it holds still. */
        if (stat(path, &after) != 0)
            return sw_xasprintf("none (%s: %s)", path, strerror(errno));
        if (same_id(&before, &after) || tries == 3)
            break;
    }
    if (id)
        *id = before;
    return ct_xstrdup(hex);
}

void sw_watch_init(sw_watch *w) {
    memset(w, 0, sizeof *w);
    pthread_mutex_init(&w->lock, NULL);
}

void sw_watch_add(sw_watch *w, const char *key, const char *workload, const char *path, const char *recorded,
                  const struct stat *id) {
    if (strlen(recorded) != 64 || recorded[strspn(recorded, "0123456789abcdef")])
        return; /* "none (...)": nothing to compare with */
    w->files = ct_xrealloc(w->files, (size_t)(w->n + 1) * sizeof *w->files);
    sw_watch_file *f = &w->files[w->n++];
    f->key = ct_xstrdup(key);
    f->workload = workload ? ct_xstrdup(workload) : NULL;
    f->path = ct_xstrdup(path);
    memcpy(f->hex, recorded, 65);
    f->id = *id;
}

/* Is f as recorded?  Hashes it only when its identity changed. */
static int unchanged(sw_watch *w, sw_watch_file *f) {
    struct stat now;
    if (stat(f->path, &now) == 0 && same_id(&now, &f->id))
        return 1;
    char *hex = sw_watch_hash(f->path, &now);
    int same = !strcmp(hex, f->hex);
    if (same)
        f->id = now; /* touched, or replaced by the same content */
    else
        w->changed = sw_xasprintf("%s (%s): sha256 %s when the sweep started, %s now", f->path, f->key, f->hex, hex);
    free(hex);
    return same;
}

int sw_watch_check(sw_watch *w, const char *workload) {
    pthread_mutex_lock(&w->lock);
    int ok = !w->changed;
    for (int i = 0; ok && i < w->n; i++) {
        sw_watch_file *f = &w->files[i];
        if (!f->workload || (workload && !strcmp(f->workload, workload)))
            ok = unchanged(w, f);
    }
    pthread_mutex_unlock(&w->lock);
    return ok ? 0 : -1;
}

const char *sw_watch_changed(sw_watch *w) { return w->changed; }

void sw_watch_free(sw_watch *w) {
    for (int i = 0; i < w->n; i++) {
        free(w->files[i].key);
        free(w->files[i].workload);
        free(w->files[i].path);
    }
    free(w->files);
    free(w->changed);
    pthread_mutex_destroy(&w->lock);
    memset(w, 0, sizeof *w);
}
