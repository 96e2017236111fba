/* sgcprof_main.c - build/bin/sgcprof: reads a freecheck profile (dump,
 * report, folded, speedscope, pprof).  Exit status: 0 done, 2 bad arguments or a
 * corrupt/truncated file (the message names the byte offset), 1 failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgcprof_pprof.h"
#include "sgcprof_accuracy.h"
#include "sgcprof_report.h"
#include "sgcprof_io.h"

static const char usage[] = "usage: sgcprof COMMAND [OPTIONS] FILE\n"
                            "Reads a profile written by a freecheck program run with SGC_PROFILE=FILE.\n"
                            "\n"
                            "commands:\n"
                            "  dump FILE                 every record as one line of text\n"
                            "  report [--top N] [--bytes] FILE\n"
                            "                            top allocation sites (self, inclusive) by estimated\n"
                            "                            bytes, types with survival rates, the time profile\n"
                            "                            with GC phases, both side by side, GC events;\n"
                            "                            --bytes: byte figures exact, not in KiB/MiB\n"
                            "  folded [--time|--alloc] FILE\n"
                            "                            collapsed stacks for flame graphs (flamegraph.pl,\n"
                            "                            speedscope, inferno): time samples (default) or\n"
                            "                            estimated allocated bytes\n"
                            "  speedscope FILE           speedscope JSON (https://www.speedscope.app) with the\n"
                            "                            time profile (in ns) and the allocation profile\n"
                            "  pprof FILE -o OUT.pb.gz   pprof's format (go tool pprof, Pyroscope, Parca):\n"
                            "                            allocation samples, estimated objects and bytes,\n"
                            "                            survived bytes, time samples and ns, with labels\n"
                            "  accuracy [--top N] [--csv] TRUTH [SAMPLED...]\n"
                            "                            sampled profiles against an exact one (period 8):\n"
                            "                            distance and top-N errors by site, function, type\n"
                            "                            and survival (docs/SAMPLING.md)\n"
                            "  --help                    this text\n"
                            "\n"
                            "A profile that ends early (the run was killed, or the file cut) or has a\n"
                            "corrupt block is read up to its last whole record before the damage, with a\n"
                            "warning naming the byte offset and what is missing.  --strict (any command)\n"
                            "refuses it instead.\n"
                            "\n"
                            "Exit status: 0 success (also for a salvaged profile); 2 bad arguments, an\n"
                            "unreadable file or header, or with --strict a corrupt or truncated file (the\n"
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

/* A profile read up to a failure: says where it stopped, why, and what the
 * output therefore lacks. */
static void salvage_warning(const char *path, const sgc_pr_reader *r) {
    fprintf(stderr, "sgcprof: %s: warning: incomplete profile, read up to byte offset %llu of %zu: %s\n", path,
            (unsigned long long)r->good_end, r->size, r->err);
    double t = (double)(r->max_ts - r->base_ts) / 1e9;
    fprintf(stderr,
            "sgcprof: %s: warning: using the %llu records before that (up to t=%.3f s); missing: the end record "
            "and everything recorded after it (samples, GC events, allocation samples still waiting for their "
            "survival, the final dropped/missed time-sample counts), so totals, the GC summary and rates cover "
            "t=0..%.3f s only; --strict refuses such a file\n",
            path, (unsigned long long)r->records, t, t);
    if (r->unverified)
        fprintf(stderr,
                "sgcprof: %s: warning: the records after byte offset %llu come from a block cut short by the end "
                "of the file: complete, but its checksum could not be checked\n",
                path, (unsigned long long)r->unverified);
}

/* A command's options and file. */
typedef struct args {
    const char *cmd, *path, *out; /* the command; FILE; pprof's -o */
    unsigned top;                 /* report --top */
    int time, strict, exact;      /* folded --time (1) or --alloc (0); --strict; report --bytes */
} args;

/* Parses the options after the command (not accuracy's) into a: -1 to go
 * on, else the exit status (2) with the message printed. */
static int parse_args(int argc, char **argv, args *a) {
    const char *cmd = a->cmd;
    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--top") && !strcmp(cmd, "report")) {
            if (i + 1 >= argc)
                return bad_usage("%s needs a number", o);
            char *end;
            errno = 0;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || v == 0 || v > 100000)
                return bad_usage("--top %s: not a number between 1 and 100000", argv[i]);
            a->top = (unsigned)v;
        } else if (!strcmp(o, "--bytes") && !strcmp(cmd, "report")) {
            a->exact = 1;
        } else if (!strcmp(o, "--time") && !strcmp(cmd, "folded")) {
            a->time = 1;
        } else if (!strcmp(o, "--alloc") && !strcmp(cmd, "folded")) {
            a->time = 0;
        } else if (!strcmp(o, "-o") && !strcmp(cmd, "pprof")) {
            if (i + 1 >= argc || !argv[i + 1][0])
                return bad_usage("%s needs an output file", o);
            a->out = argv[++i];
        } else if (!strcmp(o, "--strict")) {
            a->strict = 1;
        } else if (o[0] == '-' && o[1]) {
            return bad_usage("unknown option %s for this command", o);
        } else if (a->path) {
            return bad_usage("more than one file given (%s)", o);
        } else {
            a->path = o;
        }
    }
    if (strcmp(cmd, "dump") && strcmp(cmd, "report") && strcmp(cmd, "folded") && strcmp(cmd, "speedscope") &&
        strcmp(cmd, "pprof"))
        return bad_usage("unknown command '%s'", cmd);
    if (!a->path)
        return bad_usage("%s: missing FILE", cmd);
    if (!strcmp(cmd, "pprof") && !a->out)
        return bad_usage("%s: missing -o OUT.pb.gz", cmd);
    return -1;
}

/* The command on the opened profile r: dump reads it record by record, the
 * others load it whole (a damaged one salvaged with a warning, or with
 * --strict refused).  The exit status. */
static int run_command(const args *a, sgc_pr_reader *r) {
    int rc = 0;
    if (!strcmp(a->cmd, "dump")) {
        if (sgcprof_dump(r, stdout) != 0) {
            fflush(stdout);
            if (a->strict)
                rc = corrupt(a->path, r);
            else
                salvage_warning(a->path, r);
        }
        return rc;
    }
    if (sgc_pr_load(r) != 0) {
        if (a->strict)
            return corrupt(a->path, r);
        salvage_warning(a->path, r);
    }
    if (!strcmp(a->cmd, "report"))
        sgcprof_report(r, stdout, a->top, a->exact);
    else if (!strcmp(a->cmd, "folded"))
        sgcprof_folded(r, stdout, a->time);
    else if (!strcmp(a->cmd, "speedscope"))
        sgcprof_speedscope(r, stdout, a->path);
    else if (sgcprof_pprof(r, a->out, a->path) != 0)
        rc = 1;
    return rc;
}

/* 0 when stdout was written whole, else 1 with the message (prefix: the
 * command's, "" for none). */
static int check_stdout(const char *prefix) {
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sgcprof: %swriting the output failed: %s\n", prefix, strerror(errno));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2)
        return bad_usage("%s", "missing command");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "accuracy")) {
        int rc = sgcprof_accuracy_main(argc - 2, argv + 2);
        return check_stdout("accuracy: ") ? 1 : rc;
    }
    args a = {.cmd = cmd, .top = 20, .time = 1};
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (a.out) {
        char err[4200];
        const char *inputs[1] = {a.path};
        if (sgcprof_check_output(a.out, inputs, 1, err, sizeof err) != 0) {
            fprintf(stderr, "sgcprof: pprof -o: %s\n", err);
            return 2;
        }
    }
    sgc_pr_reader r;
    if (sgcprof_open_input(&r, a.path) != 0) {
        rc = corrupt(a.path, &r);
        sgc_pr_close(&r);
        return rc;
    }
    r.salvage = !a.strict;
    rc = run_command(&a, &r);
    sgc_pr_close(&r);
    return check_stdout("") ? 1 : rc;
}
