/* sw_pool.h - runs independent jobs on several threads (the simulated
 * backend's parallel runs).
 *
 * Invariants:
 *  - Jobs 0..n-1 are started in index order, at most `threads` at once;
 *    work(ctx, i) runs in a worker thread, concurrently with other jobs'
 *    work, and must touch only job i's own state and thread-safe calls.
 *  - done(ctx, i) is called once per finished job, in completion order, one
 *    call at a time (under one lock), so it may use the database and
 *    stderr; it runs in the thread that ran the job.
 *  - Once *stop is non-zero no further job is started; jobs in flight finish
 *    their work and their done.  sw_pool_run returns when every started job
 *    is done, with the number of jobs started.
 */
#ifndef SW_POOL_H
#define SW_POOL_H

#include <signal.h>

int sw_pool_run(int n, int threads, void (*work)(void *ctx, int i), void (*done)(void *ctx, int i), void *ctx,
                volatile sig_atomic_t *stop);

/* The number of CPUs this process may run on (at least 1). */
int sw_pool_cpus(void);

#endif /* SW_POOL_H */
