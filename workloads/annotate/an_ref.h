/* an_ref.h - annotate's reference solution: the same abstract
 * interpretation computed without the garbage-collected heap, by a
 * different algorithm (round-robin passes over every function until nothing
 * changes, with malloc'd sets updated in place, instead of a
 * dependency-driven worklist over immutable sets on the heap).  Both reach the unique least fixpoint
 * (an_gen.h), so their checksums must be equal.
 */
#ifndef AN_REF_H
#define AN_REF_H

#include <stdint.h>
#include "an_gen.h"

/* The checksum of the least fixpoint of program p, in the order
 * documented in annotate.c: for each function its variables then its
 * result, then for each container site its element, key and value
 * annotations; each annotation as kinds, number of sites, sites ascending. */
uint64_t an_ref_checksum(const an_program *p);

#endif /* AN_REF_H */
