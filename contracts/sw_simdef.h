/* sw_simdef.h - the simulated metrics: their stored names and meanings, one
 * table read by the harness (which stores them) and the statistics (which
 * read them back).  No code, only the table.
 *
 * Invariants:
 *  - Every simulated metric is stored per run in run_counters under its
 *    name (event), with raw = scaled = the exact count; the events table
 *    lists each one as supported, its encoding naming the simulator.
 *  - The first nine are cachegrind's own event counts (valgrind
 *    --tool=cachegrind --cache-sim=yes), in the order of its "events:" line;
 *    the last, sim::est-cycles, is computed from them (SW_SIM_EST_CYCLES
 *    below): L1 hits + 5 x LL hits + 35 x RAM accesses.
 *  - The names never change: CSV columns (ctr_sim__Ir ...) and other tools
 *    rely on them (docs/HARNESS.md, "The simulated part").
 *
 * X(ID, stored name, cachegrind event or NULL, meaning)
 */
#ifndef SW_SIMDEF_H
#define SW_SIMDEF_H

#define SW_SIM_METRICS(X)                                                                    \
    X(IR, "sim::Ir", "Ir", "instructions executed")                                          \
    X(I1MR, "sim::I1mr", "I1mr", "instruction fetches that missed the L1 instruction cache") \
    X(ILMR, "sim::ILmr", "ILmr", "instruction fetches that missed the last-level cache")     \
    X(DR, "sim::Dr", "Dr", "data reads")                                                     \
    X(D1MR, "sim::D1mr", "D1mr", "data reads that missed the L1 data cache")                 \
    X(DLMR, "sim::DLmr", "DLmr", "data reads that missed the last-level cache")              \
    X(DW, "sim::Dw", "Dw", "data writes")                                                    \
    X(D1MW, "sim::D1mw", "D1mw", "data writes that missed the L1 data cache")                \
    X(DLMW, "sim::DLmw", "DLmw", "data writes that missed the last-level cache")             \
    X(CYCLES, "sim::est-cycles", NULL, "estimated cycles: L1 hits + 5 x LL hits + 35 x RAM accesses")

enum {
#define SW_SIM_ENUM(id, name, cg, meaning) SW_SIM_##id,
    SW_SIM_METRICS(SW_SIM_ENUM)
#undef SW_SIM_ENUM
        SW_SIM_N
};

/* The cost model of sim::est-cycles (the one iai-callgrind and CodSpeed
 * report): an access that hits L1 costs 1, one that misses L1 and hits the
 * last-level cache 5, one that misses both 35. */
#define SW_SIM_LL_HIT_CYCLES 5
#define SW_SIM_RAM_CYCLES 35

/* The simulated caches, fixed so counts do not depend on the host's caches:
 * valgrind options (size in bytes, associativity, line size). */
#define SW_SIM_CACHES "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"
#define SW_SIM_CACHES_TEXT "I1 32 KiB 8-way, D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines"

#endif /* SW_SIMDEF_H */
