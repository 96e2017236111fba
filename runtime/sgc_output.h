/* sgc_output.h - the files a run writes: the profile (SGC_PROFILE), the stats
 * record (SGC_STATS) and the segment series (SGC_ALT_OUT).  Every writer of
 * the runtime opens or replaces its path only through this module.
 *
 * Invariants:
 *  - Checked at start-up.  sgc__outputs_check runs in sgc_init before the
 *    heap exists and before any output is opened.  It exits with status 2
 *    (bad input: nothing has run, nothing is lost) when a path exists and is
 *    not a regular file (a device such as /dev/null, a FIFO, a socket, a
 *    directory), when a file replaced by rename cannot be created next to
 *    its path, when two outputs name the same file (however spelt: relative
 *    or absolute, through symbolic links or "..", as hard links of one
 *    existing file), or when an output is the file the program's standard
 *    output or error already goes to.  Each message names the variable and
 *    the path: "freecheck: SGC_X=<path>: <why>".
 *  - Never anything but a regular file.  The profile is opened without
 *    blocking and checked after the open (a FIFO put there after the check
 *    neither blocks the program nor receives the profile); the stats record
 *    and the series are written with the atomic writer every stage shares
 *    (contracts/ct_out.h: a temporary file next to their path, renamed over
 *    it only if the path is still a regular file or absent at that moment),
 *    so a special file is never replaced.  A symbolic link at their path is
 *    refused at start-up (the rename would replace the link); the start-up
 *    check creates and removes their temporary file.
 */
#ifndef SGC_OUTPUT_H
#define SGC_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

/* The outputs: X(ID, variable, what the messages call it, written to a
 * temporary file and renamed over the path (1) or written in place (0)).
 * The order is the order of the messages about two outputs. */
#define SGC_OUTPUTS(X)                           \
    X(PROFILE, "SGC_PROFILE", "the profile", 0)  \
    X(STATS, "SGC_STATS", "the stats record", 1) \
    X(SERIES, "SGC_ALT_OUT", "the segment series", 1)

#define SGC__OUTPUT_ENUM(id, var, what, renamed) SGC_OUT_##id,
typedef enum sgc_output { SGC_OUTPUTS(SGC__OUTPUT_ENUM) SGC_NOUTPUTS } sgc_output;
#undef SGC__OUTPUT_ENUM

/* The path the settings give output o, or NULL when it is not written. */
const char *sgc__output_path(sgc_output o);

/* At start-up, after the settings are loaded: the checks above, for every
 * output that is set.  Returns only if all pass. */
void sgc__outputs_check(void);

/* Opens the path of output o for writing in place (created, truncated),
 * refusing anything but a regular file.  Returns the descriptor, or -1
 * with why (at least 128 bytes) saying what is wrong. */
int sgc__output_open(sgc_output o, char *why, size_t whylen);

/* Writes output o atomically: fill(f, ctx) writes the content into a
 * temporary file next to the path (and returns 0, or -1 on an error of its
 * own), which is then renamed over the path, unless the path has meanwhile
 * become something other than a regular file.  Returns 0, or -1 with why
 * saying what failed (the temporary file is removed). */
int sgc__output_replace(sgc_output o, int (*fill)(FILE *f, void *ctx), void *ctx, char *why, size_t whylen);

#endif /* SGC_OUTPUT_H */
