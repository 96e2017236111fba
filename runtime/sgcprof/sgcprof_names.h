/* sgcprof_names.h - how sgcprof writes function and type names in its
 * exports (folded, speedscope, pprof): one escaping for all of them.
 *
 * Invariants:
 *  - The result is valid UTF-8 with no control characters, and the escaping
 *    is reversible: "\\" stands for a backslash, "\n" "\t" "\r" for those
 *    bytes, "\xHH" (two lowercase hex digits) for any other byte below 0x20,
 *    0x7f, and every byte that is not part of a valid UTF-8 sequence
 *    (overlong forms, surrogates and code points above U+10FFFF count as
 *    invalid).  Everything else is copied as it is.
 *  - In folded output (folded = 1), ';' (the frame separator) is written
 *    "\x3b" and ' ' (the weight separator) "\x20"; elsewhere they stay.
 *  - A name without any of these bytes is written unchanged.
 */
#ifndef SGCPROF_NAMES_H
#define SGCPROF_NAMES_H

#include <stddef.h>

/* The escaped form of raw (malloc'd; the caller frees it). */
char *sgcprof_escape(const char *raw, int folded);

#endif /* SGCPROF_NAMES_H */
