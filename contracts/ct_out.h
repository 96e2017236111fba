/* ct_out.h - the atomic writer the stages share: the output files of the statistics programs (analyze, compare,
 * validation, peers-report): each written under a temporary name next to its
 * target, and all of a set renamed over their targets together once every
 * one is complete.
 *
 * Invariants:
 *  - A target that exists and is not a regular file (a device, a FIFO, a
 *    directory, a socket, a symbolic link) is refused, with status 2 (bad
 *    input), when its file is opened: before anything of it is written and
 *    before any target of the set is touched.  Renaming over it would
 *    replace it (a device node by a plain file) or the link instead of what
 *    it names.  Each target is checked again just before the renames.
 *  - A target that another output of the same program already names (the
 *    same file in the same directory, however the path is spelled: the
 *    directory is resolved with realpath, and an existing file by device and
 *    inode) is refused with status 2: one output would silently replace the
 *    other.  The claim lasts for the life of the process.
 *  - A temporary is created with mkstemp (O_EXCL: it never opens an
 *    existing file, device or link) in the target's directory, so the
 *    rename stays on one file system, with mode 0666 less the umask, as
 *    fopen would create the target.
 *  - ct_outs_commit renames every file of the set only when every one was
 *    written and closed without error; otherwise, and in ct_outs_abort,
 *    every temporary is removed and no target changes: nothing already
 *    recorded is lost.  A failure to write is status 1.
 *  - Messages name the file, what is wrong with it and what to do.
 */
#ifndef CT_OUT_H
#define CT_OUT_H

#include <stddef.h>
#include <stdio.h>

typedef struct ct_outfile {
    char *path; /* the target */
    char *tmp;  /* its temporary */
    FILE *f;    /* open on tmp until the set is committed or aborted */
} ct_outfile;

/* A set of output files (zero-initialised: ct_outs s = {0}). */
typedef struct ct_outs {
    ct_outfile *v;
    size_t n, cap;
} ct_outs;

/* Checks that path may be written (absent or a regular file, not claimed by
 * another output of this program) and claims it.  Returns 0, or 2 with the
 * reason in err. */
int ct_out_claim(const char *path, char *err, size_t errlen);

/* Claims path (ct_out_claim) and opens its temporary for writing.  Returns
 * the stream, or NULL with *status 2 (refused) or 1 (cannot create the
 * temporary) and the reason in err; the set is left as it was. */
FILE *ct_outs_open(ct_outs *s, const char *path, int *status, char *err, size_t errlen);

/* Closes every file of s and, if all were written without error, renames
 * each over its target.  Returns 0, or 1 (a write or rename failed) / 2 (a
 * target became something other than a regular file) with the reason in
 * err.  On failure no target has changed, except that a rename failing
 * midway leaves the targets renamed before it (the message names the first
 * one not written).  The set is emptied in every case. */
int ct_outs_commit(ct_outs *s, char *err, size_t errlen);

/* Closes and removes every temporary of s; no target changes. */
void ct_outs_abort(ct_outs *s);

#endif /* CT_OUT_H */
