/* sgcprof_main.c - build/bin/sgcprof: reads a freecheck profile (dump,
 * report, folded, speedscope).  Exit status: 0 done, 2 bad arguments or a
 * corrupt/truncated file (the message names the byte offset), 1 failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgcprof_report.h"

static const char usage[] =
    "usage: sgcprof COMMAND [OPTIONS] FILE\n"
    "Reads a profile written by a freecheck program run with SGC_PROFILE=FILE.\n"
    "\n"
    "commands:\n"
    "  dump FILE                 every record as one line of text\n"
    "  report [--top N] FILE     top allocation sites (self, inclusive) by estimated\n"
    "                            bytes, types with survival rates, the time profile\n"
    "                            with GC phases, both side by side, GC events\n"
    "  folded [--time|--alloc] FILE\n"
    "                            collapsed stacks for flame graphs (flamegraph.pl,\n"
    "                            speedscope, inferno): time samples (default) or\n"
    "                            estimated allocated bytes\n"
    "  speedscope FILE           speedscope JSON (https://www.speedscope.app) with the\n"
    "                            time profile and the allocation profile\n"
    "  --help                    this text\n"
    "\n"
    "Exit status: 0 success; 2 bad arguments, or a corrupt or truncated file (the\n"
    "message names the byte offset); 1 other failures.\n";

static int bad_usage(const char *fmt, const char *arg) {
    fprintf(stderr, "sgcprof: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'sgcprof --help'.\n");
    return 2;
}

static int corrupt(const char *path, const sgc_pr_reader *r) {
    fprintf(stderr, "sgcprof: %s: %s\n", path, r->err);
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2)
        return bad_usage("%s", "missing command");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    unsigned top = 20;
    int time = 1;
    const char *path = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--top") && !strcmp(cmd, "report")) {
            if (i + 1 >= argc)
                return bad_usage("%s needs a number", a);
            char *end;
            errno = 0;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || v == 0 || v > 100000)
                return bad_usage("--top %s: not a number between 1 and 100000", argv[i]);
            top = (unsigned)v;
        } else if (!strcmp(a, "--time") && !strcmp(cmd, "folded")) {
            time = 1;
        } else if (!strcmp(a, "--alloc") && !strcmp(cmd, "folded")) {
            time = 0;
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("unknown option %s for this command", a);
        } else if (path) {
            return bad_usage("more than one file given (%s)", a);
        } else {
            path = a;
        }
    }
    if (strcmp(cmd, "dump") && strcmp(cmd, "report") && strcmp(cmd, "folded") && strcmp(cmd, "speedscope"))
        return bad_usage("unknown command '%s'", cmd);
    if (!path)
        return bad_usage("%s: missing FILE", cmd);

    sgc_pr_reader r;
    int rc = 0;
    if (sgc_pr_open(&r, path) != 0) {
        rc = corrupt(path, &r);
    } else if (!strcmp(cmd, "dump")) {
        if (sgcprof_dump(&r, stdout) != 0) {
            fflush(stdout);
            rc = corrupt(path, &r);
        }
    } else if (sgc_pr_load(&r) != 0) {
        rc = corrupt(path, &r);
    } else if (!strcmp(cmd, "report")) {
        sgcprof_report(&r, stdout, top);
    } else if (!strcmp(cmd, "folded")) {
        sgcprof_folded(&r, stdout, time);
    } else {
        sgcprof_speedscope(&r, stdout, path);
    }
    sgc_pr_close(&r);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sgcprof: writing the output failed: %s\n", strerror(errno));
        return 1;
    }
    return rc;
}
