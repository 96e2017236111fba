/* ct_out.h - the atomic writer every stage shares: each output file is
 * written under a temporary name next to its target and renamed over it
 * once complete, so a reader sees the old file or the new one, never a
 * part.  Its users: the runtime's stats record and segment series
 * (runtime/sgc_output.c), the peers' records (workloads/peers/), sgcprof's
 * pprof export, the harness's runs.csv, moved run files and results/latest,
 * and the statistics programs' output sets (analyze, compare, validation,
 * peers-report).
 *
 * Two layers: one file (ct_out_begin ... ct_out_commit), which allocates
 * nothing and runs the same instructions for every process (the runtime and
 * the peers write their records with it at exit, under the simulated
 * part's instruction counts and after an allocator's sample count is
 * read); and a set of files renamed together (ct_outs_open ...
 * ct_outs_commit), built on it, for the programs that write several.
 *
 * Invariants:
 *  - A target that exists and is not a regular file (a device, a FIFO, a
 *    directory, a socket, a symbolic link) is refused, with status 2 (bad
 *    input), when its file is opened: before anything of it is written and
 *    before any target of a set is touched.  Renaming over it would replace
 *    it (a device node by a plain file) or the link instead of what it
 *    names.  Each target is checked again just before its rename.
 *  - A temporary is "<target>.tmp.<pid in 8 hex digits>" (a fixed length
 *    whatever the pid), created with O_CREAT | O_EXCL (it never opens an
 *    existing file, device or link) in the target's directory, so the
 *    rename stays on one file system, with mode 0666 less the umask, as
 *    fopen would create the target.  No two live processes share a pid, and
 *    one process writes a target once at a time (a set claims it), so a
 *    temporary that exists was left by a process that stopped while
 *    writing: it is named in the refusal (status 1), never removed.
 *  - The one-file layer calls no allocator (a target's path is at most
 *    CT_OUT_PATH_MAX bytes); ct_out_stream's stdio stream does (fdopen).
 *  - A target that another output of the same program already names (the
 *    same file in the same directory, however the path is spelled: the
 *    directory is resolved with realpath, and an existing file by device and
 *    inode) is refused with status 2 by ct_out_claim and ct_outs_open: one
 *    output would silently replace the other.  The claim lasts for the life
 *    of the process.
 *  - A commit renames only a file written and closed without error (a set:
 *    only when every one was); otherwise, and in an abort, every temporary
 *    is removed and no target changes: nothing already recorded is lost.  A
 *    failure to write is status 1.
 *  - Messages name the file, what is wrong with it and what to do.
 */
#ifndef CT_OUT_H
#define CT_OUT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The longest target path the one-file layer takes (PATH_MAX). */
#define CT_OUT_PATH_MAX 4096

/* ---- One file ------------------------------------------------------------- */

/* A file being written. */
typedef struct ct_out {
    const char *path; /* the target: the caller's string, kept until commit or abort */
    char tmp[CT_OUT_PATH_MAX + sizeof ".tmp.12345678"]; /* its temporary */
    int fd;     /* open on tmp for writing; -1 once closed (a writer that closes it itself sets -1) */
    FILE *f;    /* a stream on fd (ct_out_stream), or NULL */
    int failed; /* the errno of the first failed write (ct_out_write, or a writer of its own), or 0 */
} ct_out;

/* What a file of mode m is when not a regular file ("a FIFO", "a directory",
 * "a symbolic link", ...), for messages. */
const char *ct_out_kind(mode_t m);

/* 0 if path is absent or a regular file; 2 (it is something else) or 1
 * (it cannot be examined) with the reason in err. */
int ct_out_check(const char *path, char *err, size_t errlen);

/* Checks path (ct_out_check) and creates its temporary, open on o->fd.
 * Returns 0, or 2 (refused) / 1 (the temporary cannot be created) with the
 * reason in err and nothing left behind.  Allocates nothing. */
int ct_out_begin(ct_out *o, const char *path, char *err, size_t errlen);

/* Writes all n bytes at o->fd (again after EINTR).  0, or -1 with errno
 * set and kept in o->failed (the commit then refuses).  Allocates nothing. */
int ct_out_write(ct_out *o, const void *data, size_t n);

/* A stdio stream on the temporary (the commit closes it), or NULL with
 * errno set (abort then). */
FILE *ct_out_stream(ct_out *o);

/* Closes the temporary (its stream if one was made) and, if everything was
 * written without error and the target is still absent or a regular file,
 * renames it over the target.  Returns 0, or 1 (a write, the close or the
 * rename failed) / 2 (the target became something other than a regular
 * file) with the reason in err and the temporary removed.  Allocates
 * nothing (beyond what fclose frees). */
int ct_out_commit(ct_out *o, char *err, size_t errlen);

/* Closes and removes the temporary; the target does not change. */
void ct_out_abort(ct_out *o);

/* Points the symbolic link path at target, atomically: a link made under
 * path's temporary name and renamed over path.  A path that exists and is
 * not a symbolic link is refused (2) and left alone.  0, or 1/2 with the
 * reason in err. */
int ct_out_link(const char *target, const char *path, char *err, size_t errlen);

/* ---- A set of files, renamed together ------------------------------------- */

typedef struct ct_outfile {
    char *path; /* the target (a copy) */
    ct_out o;   /* its temporary; o.f open until the set is committed or aborted */
} ct_outfile;

/* A set of output files (zero-initialised: ct_outs s = {0}). */
typedef struct ct_outs {
    ct_outfile **v;
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
