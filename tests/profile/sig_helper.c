/* sig_helper.c - test helper: writes a profile to argv[1] and records
 * samples under ever-changing stacks (new names, new nodes) until a signal
 * ends it.  It writes one byte to stdout once argv[3] samples are recorded,
 * so the test knows the file holds several blocks.  argv[2] says how
 * SIGTERM/SIGINT are set before the runtime starts: "default" (left alone:
 * the runtime finishes the profile), "own" (a handler of the program's own
 * that exits with status 7: the runtime must leave it in place), "ignore",
 * or "thread" (as "default", and a thread of its own raises SIGTERM in
 * itself once ready). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sgc_internal.h"
#include "sgc_profile.h"

/* Mode "thread": a thread of the program's own, which does not block the
 * signals, sends SIGTERM to itself once the file holds several blocks: the
 * runtime must finish the profile on the thread that runs it. */
static volatile int go;
static void *self_terminator(void *arg) {
    (void)arg;
    while (!go)
        usleep(1000);
    syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid), (long)SIGTERM);
    for (;;)
        pause();
    return NULL;
}

static void own_handler(int sig) {
    (void)sig;
    _exit(7);
}

#define NFUNCS 4096
static sgc_func funcs[NFUNCS];

int main(int argc, char **argv) {
    if (argc != 4)
        return 2;
    if (!strcmp(argv[2], "own")) {
        signal(SIGTERM, own_handler);
        signal(SIGINT, own_handler);
    } else if (!strcmp(argv[2], "ignore")) {
        signal(SIGTERM, SIG_IGN);
        signal(SIGINT, SIG_IGN);
    } else if (!strcmp(argv[2], "default") || !strcmp(argv[2], "thread")) {
        /* As a program started from a terminal has them: a shell without
         * job control starts background commands with SIGINT ignored. */
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
    } else {
        return 2;
    }
    long ready = atol(argv[3]);
    pthread_t th;
    if (!strcmp(argv[2], "thread") && pthread_create(&th, NULL, self_terminator, NULL) != 0)
        return 1;
    setenv("SGC_PROFILE", argv[1], 1);
    unsetenv("SGC_ALLOC_PERIOD");
    unsetenv("SGC_TIME_HZ");
    sgc_init();
    for (int i = 0; i < NFUNCS; i++) {
        char *name = malloc(32);
        snprintf(name, 32, "f%d", i);
        funcs[i] = (sgc_func){name, 0};
    }
    uint32_t t = sgc_type_register(&(sgc_type){"cell", 8, 0, SGC_VAR_NONE});
    sgc__profile_sampling_config(sgc__now_ns(), 512, 0);
    static sgc_func fmain = {"main", 0};
    SGC_FRAME_FN(&fmain);
    for (unsigned long i = 0;; i++) {
        SGC_FRAME_FN(&funcs[i % NFUNCS]);
        uint32_t node;
        {
            SGC_FRAME_FN(&funcs[(i * 7) % NFUNCS]);
            node = sgc__profile_stack_current();
        }
        sgc__profile_time_sample(sgc__now_ns(), node, (int)(i % 3));
        sgc__profile_alloc_sample(&(sgc_alloc_sample){sgc__now_ns(), 16, node, t, 1, (uint8_t)(i % 3), 0});
        if ((long)i == ready) {
            if (write(1, "r", 1) != 1)
                return 1;
            go = 1;
        }
    }
}
