/* replay_main.c - sgc-replay: runs an allocation trace (docs/FORMATS.md) on the real
 * runtime and prints, per allocation, how many samples it took, and per
 * sampled object whether it survived its next minor collection.
 *
 * The whole trace is read and checked before anything runs, so bad input
 * (exit status 2, a message naming the line) never leaves partial output.
 * Output lines appear in the order the events happen: a collection that an
 * allocation's slow path runs settles earlier samples before that
 * allocation's own "alloc" line.  A sampled object whose fate never becomes
 * known (sampling stopped or restarted first, or no minor collection before
 * the end) gets no "survived" line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "sgc_internal.h"
#include "sgc_sample.h"

/* Largest payload a trace may ask for: larger is surely a typo. */
#define REPLAY_MAX_PAYLOAD ((uint64_t)1 << 32)
/* A line is a command of a few words: anything longer is not a trace, and
 * reading it whole would take unbounded memory. */
#define REPLAY_MAX_LINE 1024
/* Commands read before anything runs (40 bytes each): 640 MiB at most. */
#define REPLAY_MAX_OPS ((size_t)1 << 24)

enum replay_kind { OP_NURSERY, OP_PERIOD, OP_POISSON, OP_ALLOC, OP_MINOR, OP_MAJOR };

typedef struct replay_op {
    enum replay_kind kind; /* what to do */
    uint64_t line;         /* 1-based input line */
    uint64_t a;            /* nursery bytes, period, payload */
    uint64_t b;            /* poisson seed */
    int keep;              /* alloc: keep reachable until the end */
} replay_op;

static replay_op *ops;
static size_t nops, ops_cap;

static void bad_input(uint64_t line, const char *what, const char *text) {
    fprintf(stderr, "sgc-replay: line %llu: %s%s%s%s\n", (unsigned long long)line, what, text ? ": \"" : "",
            text ? text : "", text ? "\"" : "");
    exit(2);
}

/* A whole decimal number, or a byte count with a K/M/G suffix when sizes. */
static int parse_number(const char *t, int sizes, uint64_t *out) {
    if (!t || !*t)
        return -1;
    if (sizes)
        return sgc__parse_size(t, out);
    if (*t < '0' || *t > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(t, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static void push_op(replay_op op) {
    if (nops == ops_cap) {
        ops_cap = ops_cap ? 2 * ops_cap : 256;
        ops = realloc(ops, ops_cap * sizeof *ops);
        if (!ops) {
            fprintf(stderr, "sgc-replay: out of memory reading the trace\n");
            exit(1);
        }
    }
    ops[nops++] = op;
}

/* Reads one line of at most REPLAY_MAX_LINE bytes (its newline included)
 * into buf (REPLAY_MAX_LINE + 1 bytes), without the newline.  Returns 1, or
 * 0 at the end of the input; a longer line or a NUL byte is bad input. */
static int read_line(FILE *in, char *buf, uint64_t line) {
    size_t n = 0;
    int c;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (c == '\0')
            bad_input(line, "contains a NUL byte", NULL);
        if (n + 1 >= REPLAY_MAX_LINE) {
            char what[64];
            snprintf(what, sizeof what, "longer than %d bytes", REPLAY_MAX_LINE);
            bad_input(line, what, NULL);
        }
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    return c != EOF || n > 0;
}

/* Cuts a trace line into at most 4 words (words[]), up to a comment; returns
 * their number. */
static int split_words(char *buf, uint64_t line, char **words) {
    int nw = 0;
    for (char *save = NULL, *w = strtok_r(buf, " \t\r\v\f", &save); w; w = strtok_r(NULL, " \t\r\v\f", &save)) {
        if (w[0] == '#')
            break; /* the rest of the line is a comment */
        if (strchr(w, '#'))
            bad_input(line, "a comment starts with # at the start of a word", w);
        if (nw == 4)
            bad_input(line, "too many words", NULL);
        words[nw++] = w;
    }
    return nw;
}

/* The nursery size of a "nursery" line (the line's nw words), checked: one
 * such line (nursery_line: the earlier one, 0 if none), before the first
 * alloc, in range, not also set by SGC_NURSERY, mappable. */
static uint64_t parse_nursery(char **words, int nw, uint64_t line, uint64_t nursery_line, int seen_alloc) {
    uint64_t bytes;
    if (nw != 2)
        bad_input(line, "expected \"nursery <bytes>\"", NULL);
    if (nursery_line) {
        char what[80];
        snprintf(what, sizeof what, "a second nursery line (the first is line %llu)", (unsigned long long)nursery_line);
        bad_input(line, what, NULL);
    }
    if (seen_alloc)
        bad_input(line, "\"nursery\" must come before the first alloc", NULL);
    if (parse_number(words[1], 1, &bytes))
        bad_input(line, "not a byte count", words[1]);
    if (bytes < 4096 || bytes > ((uint64_t)1 << 36))
        bad_input(line, "the nursery must be between 4K and 64G", words[1]);
    const char *env = getenv("SGC_NURSERY");
    if (env) {
        char what[200];
        snprintf(what, sizeof what,
                 "the trace sets the nursery (nursery %.40s) and so does SGC_NURSERY=%.40s; give one of them", words[1],
                 env);
        bad_input(line, what, NULL);
    }
    /* A size in range that this machine cannot map is still the
         * trace's fault: say which line, as for any other bad value
         * (the runtime would name only SGC_NURSERY). */
    size_t map = (size_t)bytes * (getenv("SGC_POISON") && !strcmp(getenv("SGC_POISON"), "1") ? 2 : 1);
    void *m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        bad_input(line, "the system refused to map a nursery of this size", words[1]);
    munmap(m, map);
    return bytes;
}

/* A command line other than "nursery" into *op (its kind and operands);
 * *seen_alloc is set by an alloc. */
static void parse_op(char **words, int nw, uint64_t line, replay_op *op, int *seen_alloc) {
    const char *kw = words[0];
    if (!strcmp(kw, "period")) {
        op->kind = OP_PERIOD;
        if (nw != 2)
            bad_input(line, "expected \"period <P>\"", NULL);
        if (parse_number(words[1], 1, &op->a))
            bad_input(line, "not a period in bytes", words[1]);
        if (op->a > SGC_SAMPLE_MAX_PERIOD)
            bad_input(line, "the period must be at most 256T (2^48 bytes)", words[1]);
    } else if (!strcmp(kw, "poisson")) {
        op->kind = OP_POISSON;
        if (nw != 3)
            bad_input(line, "expected \"poisson <P> <seed>\"", NULL);
        if (parse_number(words[1], 1, &op->a))
            bad_input(line, "not a period in bytes", words[1]);
        if (op->a < 1 || op->a > SGC_SAMPLE_MAX_PERIOD)
            bad_input(line, "the mean period must be between 1 and 256T (2^48 bytes)", words[1]);
        if (parse_number(words[2], 0, &op->b))
            bad_input(line, "not a seed (a decimal number below 2^64)", words[2]);
    } else if (!strcmp(kw, "alloc")) {
        op->kind = OP_ALLOC;
        if (nw != 2 && nw != 3)
            bad_input(line, "expected \"alloc <payload> [keep]\"", NULL);
        if (parse_number(words[1], 1, &op->a))
            bad_input(line, "not a payload size in bytes", words[1]);
        if (op->a > REPLAY_MAX_PAYLOAD)
            bad_input(line, "the payload must be at most 4G", words[1]);
        if (nw == 3) {
            if (strcmp(words[2], "keep"))
                bad_input(line, "expected \"keep\" or nothing after the payload", words[2]);
            op->keep = 1;
        }
        *seen_alloc = 1;
    } else if (!strcmp(kw, "minor") || !strcmp(kw, "major")) {
        op->kind = kw[1] == 'i' ? OP_MINOR : OP_MAJOR;
        if (nw != 1)
            bad_input(line, "expected nothing after the command", words[1]);
    } else {
        bad_input(line, "unknown command (expected nursery, period, poisson, alloc, minor or major)", kw);
    }
}

/* Reads and checks the whole trace; returns the nursery size asked for, or
 * 0 (then *nursery_line is 0).  Every word of every line is accounted for:
 * a command's words, or a comment from a word that starts with #. */
static uint64_t read_trace(FILE *in, uint64_t *nursery_line) {
    char buf[REPLAY_MAX_LINE + 1];
    uint64_t line = 0, nursery = 0;
    int seen_alloc = 0;
    *nursery_line = 0;
    while (read_line(in, buf, line + 1)) {
        line++;
        char *words[4];
        int nw = split_words(buf, line, words);
        if (nw == 0)
            continue;
        replay_op op = {.line = line};
        if (!strcmp(words[0], "nursery")) {
            nursery = parse_nursery(words, nw, line, *nursery_line, seen_alloc);
            *nursery_line = line;
            continue; /* applied before the runtime starts */
        }
        parse_op(words, nw, line, &op, &seen_alloc);
        if (nops == REPLAY_MAX_OPS) {
            char what[80];
            snprintf(what, sizeof what, "more than %zu commands; split the trace", REPLAY_MAX_OPS);
            bad_input(line, what, NULL);
        }
        push_op(op);
    }
    if (ferror(in)) {
        fprintf(stderr, "sgc-replay: error reading the trace: %s\n", strerror(errno));
        exit(1);
    }
    return nursery;
}

/* The trace alone decides the sampling: a setting that would start,
 * restart or shape it from the environment is refused, not overridden. */
static void refuse_sampling_settings(void) {
    static const char *const owned[] = {"SGC_ALLOC_PERIOD", "SGC_ALLOC_MODE", "SGC_ALLOC_OFFSET", "SGC_SEED",
                                        "SGC_ALTERNATE"};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++) {
        const char *v = getenv(owned[i]);
        if (v) {
            fprintf(stderr,
                    "sgc-replay: %s=%s: the trace alone controls sampling (its period and poisson lines); unset %s\n",
                    owned[i], v, owned[i]);
            exit(2);
        }
    }
}

/* ---- Running ------------------------------------------------------------- */

/* Input line of each sampled object, indexed by serial - serial_base. */
static uint64_t *sample_lines;
static size_t nsample_lines, sample_lines_cap;
static uint64_t serial_base;

/* Kept objects: the roots of one frame, grown as needed. */
static sgc_obj *kept;
static void **kept_slots;
static size_t nkept, kept_cap;
static sgc_frame root_frame;
static sgc_func replay_func = {"sgc-replay", 0};

static void keep(sgc_obj obj) {
    if (nkept == kept_cap) {
        /* Outside any collection, so moving the slots is safe; the frame is
         * repointed before the next allocation. */
        kept_cap = kept_cap ? 2 * kept_cap : 256;
        kept = realloc(kept, kept_cap * sizeof *kept);
        kept_slots = realloc(kept_slots, kept_cap * sizeof *kept_slots);
        if (!kept || !kept_slots) {
            fprintf(stderr, "sgc-replay: out of memory keeping objects\n");
            exit(1);
        }
        for (size_t i = 0; i < nkept; i++)
            kept_slots[i] = &kept[i];
        root_frame.roots = kept_slots;
    }
    kept[nkept] = obj;
    kept_slots[nkept] = &kept[nkept];
    nkept++;
    root_frame.nroots = (uint32_t)nkept;
}

static void on_sample(void *ctx, const sgc_alloc_sample *rec, uint64_t serial) {
    (void)ctx;
    if (rec->survival == SGC_SURVIVAL_UNKNOWN)
        return;
    uint64_t i = serial - serial_base - 1;
    if (i >= nsample_lines) {
        fprintf(stderr, "sgc-replay: internal error: sample %llu was never recorded\n", (unsigned long long)serial);
        exit(1);
    }
    printf("survived %llu %d\n", (unsigned long long)sample_lines[i], rec->survival == SGC_SURVIVED);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
        fprintf(help ? stdout : stderr,
                "usage: sgc-replay < TRACE\n"
                "Runs an allocation trace (see docs/FORMATS.md, docs/SAMPLING.md) and prints\n"
                "\"alloc <line> <footprint> <samples>\" per allocation, \"survived <line> <0|1>\"\n"
                "per sampled object whose fate becomes known, and \"total <bytes> <samples>\".\n");
        return help ? 0 : 2;
    }
    /* The trace alone decides the sampling; other settings (stress mode,
     * verification, a profile) still apply. */
    refuse_sampling_settings();
    uint64_t nursery_line;
    uint64_t nursery = read_trace(stdin, &nursery_line);
    if (nursery) {
        char text[32];
        snprintf(text, sizeof text, "%llu", (unsigned long long)nursery);
        setenv("SGC_NURSERY", text, 1);
    }
    sgc_init();
    static const sgc_type bytes_type = {"replay_bytes", 0, 0, SGC_VAR_BYTES};
    uint32_t tid = sgc_type_register(&bytes_type);
    root_frame.func = &replay_func;
    root_frame.roots = NULL;
    root_frame.nroots = 0;
    sgc_frame_push(&root_frame);
    serial_base = sgc__stats.alloc_samples;
    sgc__sample_set_observer(on_sample, NULL);

    sgc_stats st;
    sgc_get_stats(&st);
    uint64_t bytes0 = st.sampled_bytes, points0 = st.alloc_sample_points;
    for (size_t i = 0; i < nops; i++) {
        replay_op *op = &ops[i];
        switch (op->kind) {
        case OP_PERIOD: sgc_sampling_start(op->a, SGC_SAMPLE_FIXED, 0); break;
        case OP_POISSON: sgc_sampling_start(op->a, SGC_SAMPLE_POISSON, op->b); break;
        case OP_MINOR: sgc_collect_minor(); break;
        case OP_MAJOR: sgc_collect_major(); break;
        case OP_ALLOC: {
            uint64_t before = sgc__stats.alloc_sample_points;
            uint64_t serial_before = sgc__stats.alloc_samples;
            sgc_obj obj = sgc_alloc(tid, (size_t)op->a);
            uint64_t points = sgc__stats.alloc_sample_points - before;
            if (sgc__stats.alloc_samples != serial_before) {
                if (nsample_lines == sample_lines_cap) {
                    sample_lines_cap = sample_lines_cap ? 2 * sample_lines_cap : 256;
                    sample_lines = realloc(sample_lines, sample_lines_cap * sizeof *sample_lines);
                    if (!sample_lines) {
                        fprintf(stderr, "sgc-replay: out of memory\n");
                        return 1;
                    }
                }
                sample_lines[nsample_lines++] = op->line;
            }
            if (op->keep)
                keep(obj);
            printf("alloc %llu %llu %llu\n", (unsigned long long)op->line, (unsigned long long)SGC_FOOTPRINT(op->a),
                   (unsigned long long)points);
            break;
        }
        case OP_NURSERY: break;
        }
    }
    sgc_get_stats(&st);
    printf("total %llu %llu\n", (unsigned long long)(st.sampled_bytes - bytes0),
           (unsigned long long)(st.alloc_sample_points - points0));
    /* Samples still pending have no known fate: no more lines from here. */
    sgc__sample_set_observer(NULL, NULL);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "sgc-replay: error writing the output: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
