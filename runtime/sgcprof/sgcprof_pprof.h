/* sgcprof_pprof.h - `sgcprof pprof`: a profile in pprof's format
 * (profile.proto from github.com/google/pprof, gzip-compressed), for
 * `go tool pprof`, Pyroscope, Parca and the other pprof viewers.
 *
 * Invariants:
 *  - The encoding is protobuf-c's, from the published profile.proto
 *    (compiled by protoc-c at build time), and the compression zlib's gzip.
 *  - Values per sample (sample_type, in this order): alloc_samples/count
 *    (sampled objects), alloc_objects/count and alloc_space/bytes
 *    (estimated: sample points x the period in force, the estimate
 *    sgcprof report uses; objects = that / the object's size),
 *    survived_space/bytes (the part of alloc_space whose object survived
 *    its first minor collection), time_samples/count and time/nanoseconds
 *    (samples x sgcprof_ns_per_time_sample).  An allocation sample has 0
 *    time values and a time sample 0 allocation values.
 *  - A location is a function (one Line, no address, in the one mapping,
 *    named after the profile file, with has_functions set): the CCT's frames,
 *    leaf first, with "[minor GC]" / "[major GC]" on top of a time sample
 *    taken during a collection and "(no frame)" for the empty stack, as in
 *    sgcprof report, so pprof's flat and cum equal the report's self and
 *    inclusive figures.
 *  - Labels: allocation samples carry "type" (its name), "object" ("large"
 *    or "small"), "survival" ("survived", "died", "unknown") and "bytes"
 *    (the object's footprint, unit bytes); time samples carry "gc_phase"
 *    ("mutator", "minor GC", "major GC").  Records with equal stacks and
 *    labels are one pprof sample with summed values.
 *  - Names are escaped as sgcprof_names.h says (valid UTF-8).
 */
#ifndef SGCPROF_PPROF_H
#define SGCPROF_PPROF_H

#include "sgc_profread.h"

/* Writes the pprof profile of r (loaded) to path, through a temporary
 * renamed over it (sgcprof_io.h; the caller checked path with
 * sgcprof_check_output).  0, or -1 with a message on stderr (the file could
 * not be written; path is as it was). */
int sgcprof_pprof(const sgc_pr_reader *r, const char *path, const char *source);

#endif /* SGCPROF_PPROF_H */
