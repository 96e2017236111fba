/* sw_pool.c - a fixed set of worker threads over a list of jobs. */
#define _GNU_SOURCE
#include "sw_pool.h"
#include "sw_util.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef struct pool {
    pthread_mutex_t next_lock; /* guards next */
    pthread_mutex_t done_lock; /* one done() at a time */
    int next, n;
    void (*work)(void *, int);
    void (*done)(void *, int);
    void *ctx;
    volatile sig_atomic_t *stop;
} pool;

static void *worker(void *arg) {
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->next_lock);
        int i = p->stop && *p->stop ? p->n : p->next;
        if (i < p->n)
            p->next++;
        pthread_mutex_unlock(&p->next_lock);
        if (i >= p->n)
            return NULL;
        p->work(p->ctx, i);
        pthread_mutex_lock(&p->done_lock);
        p->done(p->ctx, i);
        pthread_mutex_unlock(&p->done_lock);
    }
}

int sw_pool_run(int n, int threads, void (*work)(void *ctx, int i), void (*done)(void *ctx, int i), void *ctx,
                volatile sig_atomic_t *stop) {
    pool p = {.n = n, .work = work, .done = done, .ctx = ctx, .stop = stop};
    pthread_mutex_init(&p.next_lock, NULL);
    pthread_mutex_init(&p.done_lock, NULL);
    if (threads < 1)
        threads = 1;
    if (threads > n)
        threads = n ? n : 1;
    pthread_t *t = ct_xcalloc((size_t)threads, sizeof *t);
    int started = 0;
    for (int k = 0; k < threads; k++) {
        if (pthread_create(&t[k], NULL, worker, &p) != 0) {
            if (k == 0)
                worker(&p); /* no thread could be made: run them here */
            break;
        }
        started++;
    }
    for (int k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    free(t);
    pthread_mutex_destroy(&p.next_lock);
    pthread_mutex_destroy(&p.done_lock);
    return p.next;
}

int sw_pool_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? n : 1;
}
