/* sw_meta.h - what is known about the machine and the build, for the meta
 * table of results.db.
 *
 * Invariants: every value is a string, never NULL; what cannot be found out
 * is stored as "unknown (<why>)" rather than left out, so a reader can tell
 * "not recorded" from "not available".
 */
#ifndef SW_META_H
#define SW_META_H

#include "sw_db.h"

/* Stores host, CPU, kernel, governor, ASLR, load, virtualization,
 * perf_event_paranoid, compiler and flags, git revision and dirty flag,
 * library versions.  cpu is the CPU the runs are pinned to. */
void sw_meta_store_host(sw_db *d, int cpu);
/* The 1/5/15 minute load averages as "a b c". */
char *sw_meta_loadavg(void);
/* The highest-numbered CPU this process may run on (the default run CPU). */
int sw_meta_default_cpu(void);
/* 1 if the process may run on cpu. */
int sw_meta_cpu_allowed(int cpu);

#endif /* SW_META_H */
