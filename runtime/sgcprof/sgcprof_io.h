/* sgcprof_io.h - how sgcprof opens the profiles it reads and replaces the
 * files it writes (docs/PROFILE.md, "sgcprof").
 *
 * Invariants:
 *  - An input is read whole into memory (the reader's design,
 *    runtime/sgc_profread.h), at most SGCPROF_MAX_INPUT bytes.  The bound is
 *    checked before reading: by its size for a regular file, while reading
 *    for anything else (a pipe).  Its first 8 bytes must be the profile's
 *    magic before anything more is read, so a device, a directory or a file
 *    of another kind is refused at once instead of being read to its end.
 *  - An output path (pprof -o) is refused before the profile is read when it
 *    exists and is not a regular file (ct_out_check, contracts/ct_out.h:
 *    renaming over it would replace it), or when it is one of the command's
 *    inputs (the same file by device and inode, or the same directory and
 *    name): the output would replace the profile it is made from.
 *  - An output is written with the atomic writer (contracts/ct_out.h): a
 *    temporary next to its target renamed over it when complete, after the
 *    target is checked again; on any failure the temporary is removed and
 *    the target is as it was.
 */
#ifndef SGCPROF_IO_H
#define SGCPROF_IO_H

#include <stddef.h>

#include "sgc_profread.h"

/* The largest profile sgcprof reads: 4 GiB. */
#define SGCPROF_MAX_INPUT (4ull << 30)

/* sgc_pr_open with the checks above.  0, or -1 with r->err set (call
 * sgc_pr_close in both cases). */
int sgcprof_open_input(sgc_pr_reader *r, const char *path);

/* Is path a place an output may be written, given the command's inputs?
 * 0, or 2 (refused) / 1 (it cannot be examined) with the reason in err. */
int sgcprof_check_output(const char *path, const char *const *inputs, size_t ninputs, char *err, size_t errlen);

#endif /* SGCPROF_IO_H */
