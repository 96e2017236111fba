/* sw_watch.h - the files a sweep runs, by content: recorded when the sweep
 * starts (meta sha256:<key>), checked before every run and on --resume, so
 * that a rebuild while a sweep runs, or between an interruption and its
 * --resume, cannot mix two builds in one sweep's numbers.
 *
 * Invariants:
 *  - A watched file has the SHA-256 the sweep recorded for it; a file that
 *    could not be hashed when it was recorded ("none (...)") is not watched.
 *  - sw_watch_check passes only when every file of the workload (and every
 *    file of all workloads, such as the runtime library) has its recorded
 *    content; a missing file has none.
 *  - Cheap when nothing changed: a file whose device, inode, size,
 *    modification and status-change times are those seen when it last had
 *    its recorded content is not read; any change of those makes it hashed
 *    again, and a file touched but with the same content passes (and its
 *    new identity is remembered).
 *  - The first change found is kept (sw_watch_changed) and every later check
 *    fails: once a change is found the sweep must stop.
 *  - Thread-safe: the simulated runs check from the pool's threads.
 */
#ifndef SW_WATCH_H
#define SW_WATCH_H

#include <pthread.h>
#include <sys/stat.h>

typedef struct sw_watch_file {
    char *key;      /* the meta key's suffix: "gcbench", "gcbench-hotspot:GCBench.class", "libsgc.a" */
    char *workload; /* the workload whose runs need it; NULL: every run */
    char *path;     /* where it is */
    char hex[65];   /* the recorded SHA-256 */
    struct stat id; /* its identity when it last had that content */
} sw_watch_file;

typedef struct sw_watch {
    sw_watch_file *files;
    int n;
    char *changed;        /* the first change found, in words, or NULL */
    pthread_mutex_t lock; /* guards the identities and changed */
} sw_watch;

/* The files of one workload of the sweep, as the sweep records them: for a
 * command workload (harness/sw_cmd.h) its program and every needs= path, for
 * any other the program <bin>/<name>.  keys[i] is the meta key's suffix
 * ("<name>" for the program, "<name>:<basename>" for a needs= path, with
 * "#<i>" added when two have the same basename).  Returns the number; both
 * arrays and their strings are fresh. */
int sw_watch_files_of(const char *workload, const char *bin, char ***keys, char ***paths);

/* The content of the file at path now: 64 hex digits, or "none (<path>:
 * <why>)" when it cannot be read.  Fresh.  When id is not NULL it gets the
 * file's identity from just before reading it, and the reading is repeated
 * (a few times) if the identity changed meanwhile. */
char *sw_watch_hash(const char *path, struct stat *id);

void sw_watch_init(sw_watch *w);
/* Watches path (key and workload as in sw_watch_file; workload NULL for
 * every run) whose recorded content is recorded (a value of
 * sw_watch_hash); a "none (...)" value is not watched.  id is the identity
 * the file had when it was found with that content (from sw_watch_hash). */
void sw_watch_add(sw_watch *w, const char *key, const char *workload, const char *path, const char *recorded,
                  const struct stat *id);
/* Before a run of workload: 0 if its files and the files of every run have
 * their recorded content; else -1, and the change (the file, its key and
 * both hashes) is kept for sw_watch_changed. */
int sw_watch_check(sw_watch *w, const char *workload);
/* The first change found, "<path> (<key>): sha256 <recorded> when the sweep
 * started, <now> now", or NULL. */
const char *sw_watch_changed(sw_watch *w);
void sw_watch_free(sw_watch *w);

#endif /* SW_WATCH_H */
