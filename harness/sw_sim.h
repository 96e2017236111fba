/* sw_sim.h - the simulated backend's pieces: the valgrind command line of a
 * run, and the reading of cachegrind's output into the simulated metrics
 * (sw_simdef.h).
 *
 * Invariants:
 *  - A simulated run is `valgrind -q --tool=cachegrind --cache-sim=yes
 *    --branch-sim=no` with the fixed caches of SW_SIM_CACHES,
 *    --trace-children=yes (a launcher that execs its runtime is counted in
 *    the program it execs) and its own --cachegrind-out-file, followed by
 *    the workload's own argv; the
 *    harness starts it with address space randomization off
 *    (personality(ADDR_NO_RANDOMIZE), inherited through valgrind's exec),
 *    in the private temporary directory, with an environment of the plan
 *    alone (SW_SIM_PATH, SW_SIM_TUNABLES, SW_SIM_CLOCK and the settings,
 *    harness/sw_run.h).
 *  - The counts are read from the output file's "events:" and "summary:"
 *    lines (the totals over the whole program), never from valgrind's
 *    messages; every one of the nine cachegrind events must be there, as a
 *    decimal integer, or the output is malformed (with the reason in words).
 *  - sim::est-cycles = L1 hits + 5 x LL hits + 35 x RAM accesses, where
 *    accesses = Ir + Dr + Dw, L1 misses = I1mr + D1mr + D1mw, LL misses =
 *    ILmr + DLmr + DLmw, L1 hits = accesses - L1 misses, LL hits = L1 misses -
 *    LL misses, RAM accesses = LL misses.
 */
#ifndef SW_SIM_H
#define SW_SIM_H

#include <stdint.h>
#include "../contracts/sw_simdef.h"

/* SGC_SEED of every simulated run: the runtime's default seed, so a run is
 * repeated by hand without setting it. */
#define SW_SIM_SEED 1592652782u

/* Set in every simulated run's environment: cachegrind counts each iteration of a rep-prefixed string
 * instruction as one instruction, so glibc's "rep stosb" memset of a large
 * block counts one instruction per byte; with these thresholds glibc uses
 * its vector loops instead, whose counts reflect the work done. */
#define SW_SIM_TUNABLES                                                    \
    "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=0xffffffffffffffff:" \
    "glibc.cpu.x86_rep_movsb_threshold=0xffffffffffffffff"

/* PATH of every simulated run: a fixed value, not the harness's own (a
 * simulated run's environment is built from the plan alone, sw_run.h). */
#define SW_SIM_PATH "PATH=/usr/local/bin:/usr/bin:/bin"

/* Set in every simulated run's environment: the runtime records the times
 * of a virtual clock that advances 1000 ns per reading (docs/RUNTIME.md,
 * "The virtual clock") instead of CLOCK_MONOTONIC, so that the stats
 * record's times and the profile's timestamps, and with them the work of
 * formatting, encoding and checksumming them, repeat from run to run.  The
 * time sampler's timers keep real time. */
#define SW_SIM_CLOCK "SGC_VIRTUAL_CLOCK=1000"

/* The metrics' stored names, cachegrind event names (NULL for computed
 * ones) and meanings, indexed by SW_SIM_*. */
extern const char *const sw_sim_names[SW_SIM_N];
extern const char *const sw_sim_events[SW_SIM_N];
extern const char *const sw_sim_meanings[SW_SIM_N];

/* How the runs are simulated, in words (stored in the events table and meta). */
extern const char sw_sim_description[];

/* Parses a cachegrind output file's text into v[0..SW_SIM_N), est-cycles
 * included.  Returns 0, or -1 with the reason in *why (static text). */
int sw_sim_parse(const char *text, uint64_t v[SW_SIM_N], const char **why);

/* sim::est-cycles from the nine counts of v (SW_SIM_CYCLES is ignored). */
uint64_t sw_sim_est_cycles(const uint64_t v[SW_SIM_N]);

/* The argv of a simulated run: valgrind and its options, the output file,
 * then the workload's argv (not copied: the array points into it and into
 * the fresh string *outopt, both freed by the caller along with the array). */
char **sw_sim_argv(const char *valgrind, const char *outfile, char *const *argv, char **outopt);

/* Looks up a program in PATH (or takes a path with a '/'): a fresh absolute
 * or relative path to an executable, or NULL. */
char *sw_sim_find_program(const char *name);

#endif /* SW_SIM_H */
