/* sgcprof_accuracy.h - `sgcprof accuracy TRUTH [SAMPLED...]`: how far sampled
 * allocation profiles are from the exact one (docs/SAMPLING.md, "How accurate
 * is a sampled profile").
 *
 * Invariants:
 *  - TRUTH is an exact profile: taken with SGC_ALLOC_PERIOD=8 in fixed mode
 *    from the start.  Every footprint is a multiple of 8 and at least 8 and
 *    the byte count B is always a multiple of 8, so by the sampling rule
 *    every allocation covers size/8 sample points and is recorded with its
 *    stack, type, size and survival.  This is checked record by record (the
 *    only period ever in force is 8, fixed; points == size / 8; no sample
 *    before the first configuration); anything else is an error (exit 2).
 *  - The truth's bytes of a key are the sum of the recorded sizes; objects
 *    are the number of records.  A sampled profile's estimate of a key is
 *    sum(points x the period in force), in either mode (in poisson mode that
 *    is the unbiased estimate).
 *  - Four dimensions: "site" (the calling context: the whole stack, root
 *    to leaf), "leaf" (the innermost function), "type" (the type name) and
 *    "survival" (died, survived, unknown at its next minor collection).
 *    Keys are names, not ids, so profiles of different runs compare:
 *    stacks are interned as (parent context, function name) pairs.
 *  - Distances compare shares: truth p_k = bytes_k / total bytes, sampled
 *    q_k = estimate_k / total estimate; TVD = 1/2 sum |p_k - q_k| over every
 *    key of either (0 identical, 1 disjoint).  A sampled profile with no
 *    sample has TVD 1.  Relative errors compare bytes: (estimate - truth) /
 *    truth for each of the truth's top N keys (N = 10 by default; ties by
 *    name).  The top-N set / order is recovered when the sampled profile's
 *    top N (by estimate, ties by name) is the same set / the same sequence.
 *  - Nothing is written into the profiles; both are only read.
 */
#ifndef SGCPROF_ACCURACY_H
#define SGCPROF_ACCURACY_H

/* Runs the command on argv (the arguments after "accuracy").  Prints the
 * table (or CSV with --csv) on stdout.  Returns the exit status: 0, 2 for bad
 * arguments, a corrupt file or a TRUTH that is not exact (message on
 * stderr naming the file), 1 for other failures. */
int sgcprof_accuracy_main(int argc, char **argv);

#endif /* SGCPROF_ACCURACY_H */
