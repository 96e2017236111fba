/* ip_ref.h - the expected checksums of interp's built-in guest programs,
 * computed without the interpreter or the garbage-collected heap.
 *
 * Each function feeds into a wl_checksum exactly the sequence of values the
 * guest program passes to mix(), derived from the program's algorithm: a
 * closed form where the program's values are known (pystone, richards) and
 * a plain C implementation of the same arithmetic in the same order where
 * they are not (nbody).  size >= 1.
 */
#ifndef IP_REF_H
#define IP_REF_H

#include <stdint.h>

uint64_t ip_ref_pystone(int64_t loops);
uint64_t ip_ref_richards(int64_t runs);
uint64_t ip_ref_nbody(int64_t steps);

#endif /* IP_REF_H */
