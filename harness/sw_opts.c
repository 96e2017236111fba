/* sw_opts.c - command-line options, config files and the stored config. */
#include "sw_opts.h"
#include "../contracts/sgc_settings_table.h"
#include "sw_util.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *default_counters[] = {
    "cycles",           "instructions",      "branch-misses",          "cache-misses",
    "perf::task-clock", "perf::page-faults", "perf::context-switches", "perf::cpu-migrations",
};

/* Sets the plan-shaping defaults of the full or the quick plan. */
static void plan_defaults(sw_opts *o, int quick) {
    o->quick = quick;
    o->n_periods = 0;
    if (quick) {
        o->periods[o->n_periods++] = 32u << 10;
        o->periods[o->n_periods++] = 1u << 20;
        o->periods[o->n_periods++] = 32u << 20;
        o->n_time_hz = 1;
        o->time_hz[0] = 1000;
        o->runs = 5;
        o->target = 0.1;
        o->sim_target = 0.3;
        o->n_depths = 0;
    } else {
        for (uint64_t p = 32u << 10; p <= 32u << 20; p *= 4)
            o->periods[o->n_periods++] = p;
        o->n_time_hz = 3;
        o->time_hz[0] = 100;
        o->time_hz[1] = 1000;
        o->time_hz[2] = 2000;
        o->runs = 30;
        o->target = 0.28; /* the timed part took 30.6-30.8 min at 0.3 s: within 30 at 0.28 */
        o->sim_target = 2;
        static const unsigned depths[] = {1, 16, 256, 1024};
        o->n_depths = 0;
        for (size_t i = 0; i < sizeof depths / sizeof *depths; i++)
            o->depths[o->n_depths++] = depths[i];
    }
    o->warmup = 1;
    o->max_runs = 200;
    o->replicates = 1;
}

const char *sw_design_name(sw_design d) {
    switch (d) {
    case SW_DESIGN_BLOCKED: return "blocked";
    case SW_DESIGN_INDEPENDENT: return "independent";
    case SW_DESIGN_INPROCESS: return "inprocess";
    }
    return "?";
}

int sw_design_parse(const char *s) {
    for (int d = SW_DESIGN_BLOCKED; d <= SW_DESIGN_INPROCESS; d++)
        if (!strcmp(s, sw_design_name((sw_design)d)))
            return d;
    return -1;
}

const char *sw_reporder_name(sw_reporder r) {
    switch (r) {
    case SW_REPORDER_UNSET: break;
    case SW_REPORDER_SEQUENTIAL: return "sequential";
    case SW_REPORDER_INTERLEAVED: return "interleaved";
    }
    return "sequential";
}

int sw_reporder_parse(const char *s) {
    for (int r = SW_REPORDER_SEQUENTIAL; r <= SW_REPORDER_INTERLEAVED; r++)
        if (!strcmp(s, sw_reporder_name((sw_reporder)r)))
            return r;
    return -1;
}

sw_reporder sw_opts_reporder(const sw_opts *o) {
    return o->reporder == SW_REPORDER_UNSET ? SW_REPORDER_SEQUENTIAL : o->reporder;
}

void sw_opts_stored_defaults(sw_opts *o) {
    if (o->replicates > 1 && o->reporder == SW_REPORDER_UNSET)
        o->reporder = SW_REPORDER_INTERLEAVED;
}

/* A seed nobody chose: from the kernel's generator, else the clocks. */
static uint64_t fresh_seed(void) {
    uint64_t s = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &s, sizeof s) != (ssize_t)sizeof s)
            s = 0;
        close(fd);
    }
    if (!s)
        s = sw_mix64(sw_wallclock_ns(), (uint64_t)getpid());
    /* Keep seeds below 2^63 so they survive SQLite's signed integers. */
    return s >> 1;
}

void sw_opts_defaults(sw_opts *o) {
    memset(o, 0, sizeof *o);
    plan_defaults(o, 0);
    o->list_file = ct_xstrdup("workloads/workloads.list");
    o->modes = 1u << 0;  /* the first mode of sgc_modes.h (fixed) */
    o->clocks = 1u << 0; /* the first clock (wall) */
    o->depth_period = 64u << 10;
    o->depth_hz = 2000;
    o->seed = fresh_seed();
    o->cpu = -1;
    o->out_root = ct_xstrdup("results");
    const char *tmp = getenv("TMPDIR");
    o->tmp_dir = ct_xstrdup(tmp && *tmp ? tmp : "/tmp");
    for (size_t i = 0; i < sizeof default_counters / sizeof *default_counters; i++)
        o->counters[o->n_counters++] = ct_xstrdup(default_counters[i]);
    o->progress = -1;
    o->backend_native = o->backend_sim = 1;
    o->sim_runs = 2;
    o->valgrind = ct_xstrdup("valgrind");
}

void sw_opts_free(sw_opts *o) {
    for (int i = 0; i < o->n_workloads; i++)
        free(o->workloads[i]);
    for (int i = 0; i < o->n_sizes; i++)
        free(o->sizes[i].workload);
    for (int i = 0; i < o->n_counters; i++)
        free(o->counters[i]);
    for (int i = 0; i < o->n_env; i++)
        free(o->env[i]);
    for (int i = 0; i < o->n_sim_sizes; i++)
        free(o->sim_sizes[i].workload);
    free(o->valgrind);
    free(o->list_file);
    free(o->bin_dir);
    free(o->out_root);
    free(o->tmp_dir);
    free(o->resume_dir);
    free(o->config_text);
    free(o->from_dir);
    free(o->levels_from);
    free(o->sizes_from);
    memset(o, 0, sizeof *o);
}

/* Splits a list on commas and white space into at most SW_MAX_LIST fresh
 * strings; "none" (alone) is the empty list.  Returns the count. */
static int split_list(const char *name, const char *value, const char *origin, char **out) {
    int n = 0;
    char *copy = ct_xstrdup(value);
    for (char *save, *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        if (n == SW_MAX_LIST)
            sw_usage_error("%s: %s: more than %d items", origin, name, SW_MAX_LIST);
        out[n++] = ct_xstrdup(tok);
    }
    free(copy);
    if (n == 0)
        sw_usage_error("%s: %s: empty list (write 'none' for no items)", origin, name);
    /* An item twice is refused in every list, never merged: a list that
     * means less than it says is a mistake to point out. */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(out[i], out[j]))
                sw_usage_error("%s: %s: '%s' is listed twice (name each item once)", origin, name, out[i]);
    if (n == 1 && strcmp(out[0], "none") == 0) {
        free(out[0]);
        n = 0;
    }
    return n;
}

static void free_list(char **items, int n) {
    for (int i = 0; i < n; i++)
        free(items[i]);
}

/* Parses a flag value for config files: yes/no, true/false, 1/0. */
static int parse_flag(const char *name, const char *value, const char *origin) {
    if (!value)
        return 1;
    if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1"))
        return 1;
    if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0"))
        return 0;
    sw_usage_error("%s: %s: expected yes or no, got '%s'", origin, name, value);
}

static int valid_workload_name(const char *s) {
    if (!*s || *s == '.')
        return 0;
    for (; *s; s++)
        if (!(*s == '-' || *s == '_' || *s == '.' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
              (*s >= 'A' && *s <= 'Z')))
            return 0;
    return 1;
}

/* --help's list of the settings --env may pass breaks before a name that
 * would take its line past this many characters. */
#define SW_HELP_WRAP 60

/* The settings --env may pass (SGC_SETTINGS's rows with an ENV rank, in
 * that order), ", " between them; with wrap, a line break instead of the
 * blank before a name that would take a line past wrap characters.
 * Returns buf. */
static const char *env_allowed(char *buf, size_t len, size_t wrap) {
    size_t n = 0, line = 0;
    buf[0] = '\0';
    for (int rank = 1; sgc_setting_env_rank(rank); rank++) {
        const char *name = sgc_setting_env_rank(rank)->name;
        int last = !sgc_setting_env_rank(rank + 1);
        size_t w = strlen(name) + !last; /* the name and its comma */
        const char *sep = rank == 1 ? "" : wrap && line + 1 + w > wrap ? "\n" : " ";
        line = *sep == '\n' || rank == 1 ? w : line + 1 + w;
        int k = snprintf(buf + n, len - n, "%s%s%s", sep, name, last ? "" : ",");
        if (k < 0 || (size_t)k >= len - n)
            break;
        n += (size_t)k;
    }
    return buf;
}

/* Validates one --env item: NAME=VALUE with NAME a runtime setting the
 * cells do not control (SGC_SETTINGS's ENV column).  Exits 2 otherwise. */
static void check_env_item(const char *item, const char *origin) {
    const char *eq = strchr(item, '=');
    if (!eq || eq == item)
        sw_usage_error("%s: env: expected NAME=VALUE (e.g. SGC_NURSERY=256K), got '%s'", origin, item);
    size_t len = (size_t)(eq - item);
    const sgc_setting_row *row = sgc_setting_find(item, len);
    if (row && row->env > 0)
        return;
    char allowed[512];
    env_allowed(allowed, sizeof allowed, 0);
    if (row && row->env == SGC_SETTING_OWNED)
        sw_usage_error("%s: env: %.*s is set by the sweep for each cell and run, not by --env "
                       "(allowed: %s)",
                       origin, (int)len, item, allowed);
    if (len > 4 && !strncmp(item, "SGC_", 4))
        sw_usage_error("%s: env: %.*s is not a runtime setting --env may pass (allowed: %s)", origin, (int)len, item,
                       allowed);
    sw_usage_error("%s: env: %.*s is not a runtime setting (SGC_*); the sweep passes only these: %s", origin, (int)len,
                   item, allowed);
}

int sw_opts_parse_shard(const char *s, int *k, int *n) {
    uint64_t a, b;
    const char *slash = s ? strchr(s, '/') : NULL;
    if (!slash)
        return -1;
    char *left = sw_xasprintf("%.*s", (int)(slash - s), s);
    int bad = sw_parse_uint(left, SW_SHARD_MAX, &a) || sw_parse_uint(slash + 1, SW_SHARD_MAX, &b);
    free(left);
    if (bad || a < 1 || b < 1 || a > b)
        return -1;
    *k = (int)a;
    *n = (int)b;
    return 0;
}

const char *sw_opts_env(const sw_opts *o, const char *name) {
    size_t len = strlen(name);
    for (int i = 0; i < o->n_env; i++)
        if (!strncmp(o->env[i], name, len) && o->env[i][len] == '=')
            return o->env[i] + len + 1;
    return NULL;
}

/* Adds a [WORKLOAD=]N size (--size, --sim-size); "none" clears the list. */
static void add_size(sw_size_override *sizes, int *n_sizes, const char *name, const char *value, const char *origin) {
    uint64_t v;
    if (!strcmp(value, "none")) {
        for (int i = 0; i < *n_sizes; i++)
            free(sizes[i].workload);
        *n_sizes = 0;
        return;
    }
    const char *eq = strchr(value, '=');
    char *w = eq ? strndup(value, (size_t)(eq - value)) : ct_xstrdup("*");
    const char *num = eq ? eq + 1 : value;
    if (!w || (strcmp(w, "*") && !valid_workload_name(w)) || sw_parse_uint(num, INT64_MAX, &v) || v == 0)
        sw_usage_error("%s: %s: expected N or WORKLOAD=N with N >= 1, got '%s'", origin, name, value);
    if (*n_sizes == SW_MAX_LIST)
        sw_usage_error("%s: %s: more than %d sizes", origin, name, SW_MAX_LIST);
    sizes[*n_sizes].workload = w;
    sizes[(*n_sizes)++].size = v;
}

/* ---- The settings ------------------------------------------------------
 *
 * One table (options[] below) holds every setting: its name (the same on the
 * command line, in config files and in the stored config), how its value is
 * read (a kind with a target field of sw_opts, or a function), where it may
 * be given, and its --help text.  Parsing, the config-file keys and --help
 * all come from it. */

typedef struct opt opt;
typedef void opt_set_fn(sw_opts *o, const opt *d, const char *value, const char *origin);

typedef enum opt_kind {
    OPT_FN,    /* set(): anything the kinds below cannot say */
    OPT_STR,   /* char *: replaced by the value */
    OPT_INT,   /* int: an integer from lo to hi, else "is not <what> (lo..hi)" */
    OPT_SECS,  /* double: seconds from 0 up to hi, else "is not a number of seconds (up to hi)" */
    OPT_BOOL,  /* int: yes/no, true/false, 1/0; alone (a flag) = yes */
    OPT_CONST, /* int: set to lo, whatever the value */
} opt_kind;

/* Where a setting may be given. */
enum {
    OPT_FLAG = 1 << 0,        /* takes no value on the command line */
    OPT_CMDLINE = 1 << 1,     /* command line only (not in config files; handled by sw_opts_parse_args) */
    OPT_RESUMABLE = 1 << 2,   /* may be added to --resume */
    OPT_FIRST = 1 << 3,       /* read in the command line's first pass (before --config files) */
    OPT_CONFIG_PASS = 1 << 4, /* read in its second pass (--config), before the other options */
    OPT_INVOCATION = 1 << 5,  /* how this invocation behaves: not in the stored config */
    OPT_REPEAT = 1 << 6       /* accumulates: may be given more than once in one config file */
};

/* --help substitutes the names of the modes (clocks) and the first one for
 * the two %s of these entries' text. */
enum { HELP_PLAIN, HELP_MODES, HELP_CLOCKS, HELP_ENV };

/* The sections of --help, in order. */
enum { SEC_PLAN, SEC_MEASURE, SEC_OUTPUT };

struct opt {
    const char *name; /* without the leading -- */
    opt_kind kind;
    size_t target;     /* offsetof(sw_opts, field) for the kinds other than OPT_FN */
    long long lo, hi;  /* OPT_INT's range (OPT_SECS: hi; OPT_CONST: lo is the value) */
    const char *what;  /* OPT_INT: "a number of runs" */
    opt_set_fn *set;   /* OPT_FN */
    int where;         /* OPT_FLAG | ... */
    int section;       /* SEC_* of --help */
    const char *shown; /* --help's left column ("--runs N"); NULL: not listed on its own */
    int help_args;     /* HELP_* */
    const char *help;  /* --help's text; lines after the first are indented under it */
};

#define FIELD(f) offsetof(sw_opts, f)

static void set_quick(sw_opts *o, const opt *d, const char *value, const char *origin) {
    if (parse_flag(d->name, value, origin))
        plan_defaults(o, 1);
    else
        o->quick = 0;
}

static void set_workloads(sw_opts *o, const opt *d, const char *value, const char *origin) {
    free_list(o->workloads, o->n_workloads);
    o->n_workloads = split_list(d->name, value, origin, o->workloads);
    if (o->n_workloads == 0)
        sw_usage_error("%s: workloads: 'none' would run nothing (leave the option out for every workload in "
                       "the list file)",
                       origin);
    for (int i = 0; i < o->n_workloads; i++)
        if (!valid_workload_name(o->workloads[i]))
            sw_usage_error("%s: workloads: '%s' is not a workload name (letters, digits, - _ .)", origin,
                           o->workloads[i]);
}

/* The numbers the options take: a byte count (K/M/G suffixes) or a plain
 * decimal, from 1 to max; what the message says a bad one is not. */
typedef struct num_kind {
    int bytes;        /* a byte count, else a plain decimal */
    uint64_t max;     /* the largest allowed */
    const char *what; /* "'<item>' is not <what>" */
} num_kind;

#define NUM_STR_(x) #x
#define NUM_STR(x) NUM_STR_(x)
static const num_kind NUM_PERIOD = {1, SW_MAX_PERIOD, "a period in bytes from 1 to 256T (e.g. 4M, 65536)"};
static const num_kind NUM_DEPTH_PERIOD = {1, SW_MAX_PERIOD, "a period in bytes from 1 to 256T (e.g. 64K)"};
static const num_kind NUM_RATE = {0, SW_MAX_TIME_HZ,
                                  "a rate in Hz (1.." NUM_STR(SW_MAX_TIME_HZ) ", the runtime's range)"};
static const num_kind NUM_DEPTH = {0, SW_MAX_DEPTH, "a stack depth (1.." NUM_STR(SW_MAX_DEPTH) ")"};

/* One number of kind k for option name; bad input exits 2. */
static uint64_t parse_num(const num_kind *k, const char *name, const char *item, const char *origin) {
    uint64_t v;
    int bad = k->bytes ? sw_parse_bytes(item, &v) || v > k->max : sw_parse_uint(item, k->max, &v);
    if (bad || v == 0)
        sw_usage_error("%s: %s: '%s' is not %s", origin, name, item, k->what);
    return v;
}

/* A list of numbers of kind k into v; returns how many. */
static int num_list(const num_kind *k, const char *name, const char *value, const char *origin, uint64_t *v) {
    char *items[SW_MAX_LIST];
    int n = split_list(name, value, origin, items);
    for (int i = 0; i < n; i++)
        v[i] = parse_num(k, name, items[i], origin);
    free_list(items, n);
    return n;
}

/* A list of names (modes, clocks) as a set of bits of their numbers, parse
 * giving a name's number (-1: none) and label a number's name. */
static unsigned name_set(const char *name, const char *value, const char *origin, int (*parse)(const char *),
                         const char *(*label)(int)) {
    char *items[SW_MAX_LIST];
    char tmp[256];
    int n = split_list(name, value, origin, items);
    unsigned bits = 0;
    for (int i = 0; i < n; i++) {
        int b = parse(items[i]);
        if (b < 0)
            sw_usage_error("%s: %s: '%s' is not %s", origin, name, items[i],
                           sgc_names_join(tmp, sizeof tmp, label, ", ", " or "));
        bits |= 1u << b;
    }
    free_list(items, n);
    return bits;
}

static void set_periods(sw_opts *o, const opt *d, const char *value, const char *origin) {
    o->n_periods = num_list(&NUM_PERIOD, d->name, value, origin, o->periods);
}

static void set_modes(sw_opts *o, const opt *d, const char *value, const char *origin) {
    o->modes = name_set(d->name, value, origin, sgc_alloc_mode_parse, sgc_alloc_mode_name);
}

static void set_time_hz(sw_opts *o, const opt *d, const char *value, const char *origin) {
    uint64_t v[SW_MAX_LIST];
    o->n_time_hz = num_list(&NUM_RATE, d->name, value, origin, v);
    for (int i = 0; i < o->n_time_hz; i++)
        o->time_hz[i] = (unsigned)v[i];
}

static void set_time_clock(sw_opts *o, const opt *d, const char *value, const char *origin) {
    char tmp[256];
    o->clocks = name_set(d->name, value, origin, sgc_clock_parse, sgc_clock_name);
    if (!o->clocks)
        sw_usage_error("%s: time-clock: name at least one clock (%s)", origin,
                       sgc_names_join(tmp, sizeof tmp, sgc_clock_name, ", ", ", "));
}

static void set_time_modes(sw_opts *o, const opt *d, const char *value, const char *origin) {
    char tmp[256];
    o->time_modes = name_set(d->name, value, origin, sgc_time_mode_parse, sgc_time_mode_name);
    if (!o->time_modes)
        sw_usage_error("%s: time-modes: name at least one mode of the time sampler (%s)", origin,
                       sgc_names_join(tmp, sizeof tmp, sgc_time_mode_name, ", ", ", "));
}

static void set_combined(sw_opts *o, const opt *d, const char *value, const char *origin) {
    char *items[SW_MAX_LIST];
    uint64_t v;
    int n = split_list(d->name, value, origin, items);
    for (int i = 0; i < n; i++) {
        char *at = strchr(items[i], '@');
        uint64_t hz;
        if (at)
            *at = '\0';
        if (!at || sw_parse_bytes(items[i], &v) || v == 0 || v > SW_MAX_PERIOD ||
            sw_parse_uint(at + 1, SW_MAX_TIME_HZ, &hz) || hz == 0)
            sw_usage_error("%s: combined: expected PERIOD@HZ (e.g. 4M@1000; a period up to 256T, a rate up to "
                           "%d Hz), got '%s%s%s'",
                           origin, SW_MAX_TIME_HZ, items[i], at ? "@" : "", at ? at + 1 : "");
        o->combined[i].period = v;
        o->combined[i].hz = (unsigned)hz;
    }
    free_list(items, n);
    o->n_combined = n;
}

static void set_depths(sw_opts *o, const opt *d, const char *value, const char *origin) {
    uint64_t v[SW_MAX_LIST];
    o->n_depths = num_list(&NUM_DEPTH, d->name, value, origin, v);
    for (int i = 0; i < o->n_depths; i++)
        o->depths[i] = (unsigned)v[i];
}

static void set_depth_period(sw_opts *o, const opt *d, const char *value, const char *origin) {
    o->depth_period = parse_num(&NUM_DEPTH_PERIOD, d->name, value, origin);
}

static void set_depth_hz(sw_opts *o, const opt *d, const char *value, const char *origin) {
    o->depth_hz = (unsigned)parse_num(&NUM_RATE, d->name, value, origin);
}

static void set_design(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    int design = sw_design_parse(value);
    if (design < 0)
        sw_usage_error("%s: design: '%s' is not a design (blocked, independent, inprocess)", origin, value);
    o->design = (sw_design)design;
}

static void set_reporder(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    int r = sw_reporder_parse(value);
    if (r < 0)
        sw_usage_error("%s: replicate-order: '%s' is not an order (sequential, interleaved)", origin, value);
    o->reporder = (sw_reporder)r;
}

static void set_halfwidth(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    char *end;
    double h = strtod(value, &end);
    if (end == value || (*end && strcmp(end, "%")) || !(h >= 0 && h < 100))
        sw_usage_error("%s: halfwidth: '%s' is not a percentage from 0 (off) to 100, e.g. 2%%", origin, value);
    o->halfwidth = h / 100;
}

static void set_max_time(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    if (!strcmp(value, "none"))
        o->max_time = 0;
    else if (sw_parse_seconds(value, &o->max_time))
        sw_usage_error("%s: max-time: '%s' is not a number of seconds (or none)", origin, value);
}

static void set_seed(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    uint64_t v;
    if (sw_parse_uint(value, INT64_MAX, &v))
        sw_usage_error("%s: seed: '%s' is not a number (0..2^63-1)", origin, value);
    o->seed = v;
    o->seed_given = 1;
}

static void set_cpu(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    uint64_t v;
    if (!strcmp(value, "auto"))
        o->cpu = -1;
    else if (sw_parse_uint(value, 4095, &v))
        sw_usage_error("%s: cpu: '%s' is not a CPU number", origin, value);
    else
        o->cpu = (int)v;
}

static void set_timeout(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    if (!strcmp(value, "auto"))
        o->timeout = 0;
    else if (sw_parse_seconds(value, &o->timeout))
        sw_usage_error("%s: timeout: '%s' is not a number of seconds", origin, value);
}

static void set_size(sw_opts *o, const opt *d, const char *value, const char *origin) {
    add_size(o->sizes, &o->n_sizes, d->name, value, origin);
}

static void set_sim_size(sw_opts *o, const opt *d, const char *value, const char *origin) {
    add_size(o->sim_sizes, &o->n_sim_sizes, d->name, value, origin);
}

static void set_backends(sw_opts *o, const opt *d, const char *value, const char *origin) {
    char *items[SW_MAX_LIST];
    int n = split_list(d->name, value, origin, items);
    o->backend_native = o->backend_sim = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(items[i], "native"))
            o->backend_native = 1;
        else if (!strcmp(items[i], "sim"))
            o->backend_sim = 1;
        else
            sw_usage_error("%s: backends: '%s' is not native or sim", origin, items[i]);
    }
    free_list(items, n);
    if (!o->backend_native && !o->backend_sim)
        sw_usage_error("%s: backends: name at least one backend (native, sim)", origin);
}

static void set_sim_runs(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    uint64_t v;
    if (sw_parse_uint(value, 1000, &v) || v < 2)
        sw_usage_error("%s: sim-runs: '%s' is not a number of runs (2..1000: two at least, so that "
                       "determinism is checked)",
                       origin, value);
    o->sim_runs = (int)v;
}

static void set_sim_jobs(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    uint64_t v;
    if (!strcmp(value, "auto"))
        o->sim_jobs = 0;
    else if (sw_parse_uint(value, 1024, &v) || v == 0)
        sw_usage_error("%s: sim-jobs: '%s' is not a number of parallel runs (1..1024, or auto)", origin, value);
    else
        o->sim_jobs = (int)v;
}

static void set_valgrind(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    if (!*value)
        sw_usage_error("%s: valgrind: expected a program name or path", origin);
    free(o->valgrind);
    o->valgrind = ct_xstrdup(value);
}

/* "shard": K/N, or none (not sharded). */
static void set_shard(sw_opts *o, const opt *d, const char *value, const char *origin) {
    (void)d;
    if (!strcmp(value, "none"))
        o->shard_k = o->shard_n = 0;
    else if (sw_opts_parse_shard(value, &o->shard_k, &o->shard_n))
        sw_usage_error("%s: shard: '%s' is not K/N with 1 <= K <= N <= %d (the K-th of N parts of the plan)", origin,
                       value, SW_SHARD_MAX);
}

/* "env" accumulates (a later value of a variable replaces it); "none" clears. */
static void set_env(sw_opts *o, const opt *d, const char *value, const char *origin) {
    char *items[SW_MAX_LIST];
    int n = split_list(d->name, value, origin, items);
    if (!n) {
        free_list(o->env, o->n_env);
        o->n_env = 0;
        return;
    }
    for (int i = 0; i < n; i++) {
        check_env_item(items[i], origin);
        size_t len = (size_t)(strchr(items[i], '=') - items[i]) + 1;
        for (int j = 0; j < i; j++)
            if (!strncmp(items[i], items[j], len))
                sw_usage_error("%s: env: %.*s is set twice in one list ('%s', '%s'); give each setting once", origin,
                               (int)len - 1, items[i], items[j], items[i]);
    }
    for (int i = 0; i < n; i++) {
        size_t len = (size_t)(strchr(items[i], '=') - items[i]) + 1;
        int j = 0;
        while (j < o->n_env && strncmp(o->env[j], items[i], len))
            j++;
        if (j == o->n_env) {
            if (o->n_env == SW_MAX_LIST)
                sw_usage_error("%s: env: more than %d settings", origin, SW_MAX_LIST);
            o->n_env++;
        } else {
            free(o->env[j]);
        }
        o->env[j] = items[i];
    }
}

static void set_counters(sw_opts *o, const opt *d, const char *value, const char *origin) {
    free_list(o->counters, o->n_counters);
    o->n_counters = split_list(d->name, value, origin, o->counters);
}

/* Every setting, in --help order. */
static const opt options[] = {
    /* Plan */
    {"quick", OPT_FN, 0, 0, 0, NULL, set_quick, OPT_FLAG | OPT_FIRST, SEC_PLAN, "--quick", HELP_PLAIN,
     "the smoke plan: 2 workloads, periods 32K,1M,32M, time 1000 Hz,\n"
     "5 runs, target 0.1 s (other options still override it)"},
    {"workloads", OPT_FN, 0, 0, 0, NULL, set_workloads, 0, SEC_PLAN, "--workloads LIST", HELP_PLAIN,
     "workloads to run (default: every name in the list file)"},
    {"list", OPT_STR, FIELD(list_file), 0, 0, NULL, NULL, 0, SEC_PLAN, "--list FILE", HELP_PLAIN,
     "workload list file (default workloads/workloads.list)"},
    {"bin-dir", OPT_STR, FIELD(bin_dir), 0, 0, NULL, NULL, 0, SEC_PLAN, "--bin-dir DIR", HELP_PLAIN,
     "where the workload programs are (default: sweep's own dir)"},
    {"periods", OPT_FN, 0, 0, 0, NULL, set_periods, 0, SEC_PLAN, "--periods LIST", HELP_PLAIN,
     "allocation sampling periods, bytes with K/M/G\n"
     "(default 32K,128K,512K,2M,8M,32M)"},
    {"modes", OPT_FN, 0, 0, 0, NULL, set_modes, 0, SEC_PLAN, "--modes LIST", HELP_MODES,
     "allocation sampling modes: %s (default %s)"},
    {"time-hz", OPT_FN, 0, 0, 0, NULL, set_time_hz, 0, SEC_PLAN, "--time-hz LIST", HELP_PLAIN,
     "time sampling rates (default 100,1000,2000)"},
    {"time-clock", OPT_FN, 0, 0, 0, NULL, set_time_clock, 0, SEC_PLAN, "--time-clock LIST", HELP_CLOCKS,
     "time sampling clocks: %s (default %s)"},
    {"time-modes", OPT_FN, 0, 0, 0, NULL, set_time_modes, 0, SEC_PLAN, "--time-modes LIST", HELP_PLAIN,
     "time sampler's modes, each time cell once per mode:\n"
     "signal, thread (default: thread when the sweep may use 2+\n"
     "CPUs and every time cell is on the wall clock, else\n"
     "signal; the choice and why go into meta)"},
    {"combined", OPT_FN, 0, 0, 0, NULL, set_combined, 0, SEC_PLAN, "--combined LIST", HELP_PLAIN,
     "alloc+time cells as PERIOD@HZ, e.g. 4M@1000 (default none)"},
    {"depths", OPT_FN, 0, 0, 0, NULL, set_depths, 0, SEC_PLAN, "--depths LIST", HELP_PLAIN,
     "deepstack --depth values: a baseline, an alloc cell and a time\n"
     "cell at each (default 1,16,256,1024; --quick: none)"},
    {"depth-period", OPT_FN, 0, 0, 0, NULL, set_depth_period, 0, SEC_PLAN, "--depth-period BYTES", HELP_PLAIN,
     "allocation sampling period of the depth cells (default 64K)"},
    {"depth-hz", OPT_FN, 0, 0, 0, NULL, set_depth_hz, 0, SEC_PLAN, "--depth-hz HZ", HELP_PLAIN,
     "time sampling rate of the depth cells (default 2000)"},
    {"design", OPT_FN, 0, 0, 0, NULL, set_design, 0, SEC_PLAN, "--design D", HELP_PLAIN,
     "blocked: every run of a cell next to a run of its baseline,\n"
     "in blocks of two of random order, plus A/A blocks of two\n"
     "baseline runs (default); independent: every cell once per\n"
     "round in a shuffled order; inprocess: scheduled as\n"
     "independent, and every run alternates its cell's sampling\n"
     "on and off in ABBA blocks inside the process (baselines:\n"
     "A/A), its segment series stored (docs/HARNESS.md)"},
    {"halfwidth", OPT_FN, 0, 0, 0, NULL, set_halfwidth, 0, SEC_PLAN, "--halfwidth X%", HELP_PLAIN,
     "blocked design: after the --runs rounds, more rounds for the\n"
     "cells whose paired interval is wider than +-X% (default 0: off)"},
    {"max-runs", OPT_INT, FIELD(max_runs), 1, 100000, "a number of rounds", NULL, 0, SEC_PLAN, "--max-runs N",
     HELP_PLAIN, "at most N measured rounds, adaptive ones included (200)"},
    {"max-time", OPT_FN, 0, 0, 0, NULL, set_max_time, 0, SEC_PLAN, "--max-time SEC", HELP_PLAIN,
     "at most SEC seconds of adaptive rounds per invocation (none)"},
    {"replicates", OPT_INT, FIELD(replicates), 1, 1000, "a number of replicates", NULL, 0, SEC_PLAN, "--replicates K",
     HELP_PLAIN,
     "K replicates of the plan, each with its own seed, schedule and\n"
     "block order, in the order --replicate-order says; sizes\n"
     "calibrated once for all (default 1; docs/HARNESS.md)"},
    {"replicate-order", OPT_FN, 0, 0, 0, NULL, set_reporder, 0, SEC_PLAN, "--replicate-order O", HELP_PLAIN,
     "sequential: each replicate whole (warm-up and rounds) before\n"
     "the next (default); interleaved: round p of every replicate\n"
     "before round p + 1 (docs/HARNESS.md)"},
    {"levels-from", OPT_STR, FIELD(levels_from), 0, 0, NULL, NULL, OPT_INVOCATION, SEC_PLAN, "--levels-from DIR",
     HELP_PLAIN,
     "design inprocess: --runs (processes) and --target (blocks a\n"
     "process) from the components measured by the analysed\n"
     "in-process sweep in DIR, within --runs x --target of CPU a cell\n"
     "(docs/HARNESS.md)"},
    {"runs", OPT_INT, FIELD(runs), 1, 100000, "a number of runs", NULL, 0, SEC_PLAN, "--runs N", HELP_PLAIN,
     "measured rounds, each runs every block (blocked) or every\n"
     "cell (independent) once (default 30)"},
    {"warmup", OPT_INT, FIELD(warmup), 0, 1000, "a number of rounds", NULL, 0, SEC_PLAN, "--warmup N", HELP_PLAIN,
     "discarded warm-up rounds before them (default 1)"},
    {"seed", OPT_FN, 0, 0, 0, NULL, set_seed, 0, SEC_PLAN, "--seed N", HELP_PLAIN,
     "seed of the shuffles and of SGC_SEED (default: random, recorded)"},
    {"target", OPT_SECS, FIELD(target), 0, 600, NULL, NULL, 0, SEC_PLAN, "--target SEC", HELP_PLAIN,
     "calibrate each workload's --size to this baseline CPU time (0.28)"},
    {"sizes-from", OPT_STR, FIELD(sizes_from), 0, 0, NULL, NULL, 0, SEC_PLAN, "--sizes-from DIR", HELP_PLAIN,
     "every workload's --size (the depth cells' and the simulated\n"
     "part's too) from the calibration of the sweep in DIR, instead\n"
     "of calibrating: a rerun, or the other side of a compare, does\n"
     "the same work (--size still wins for its workloads)"},
    {"size", OPT_FN, 0, 0, 0, NULL, set_size, OPT_REPEAT, SEC_PLAN, "--size [WORKLOAD=]N", HELP_PLAIN,
     "use this --size instead of calibrating (repeatable)"},
    {"env", OPT_FN, 0, 0, 0, NULL, set_env, OPT_REPEAT, SEC_PLAN, "--env NAME=VALUE", HELP_ENV,
     "runtime setting for every run (repeatable, or a list):\n"
     "%s\n"
     "(default none)"},
    /* Measurement */
    {"cpu", OPT_FN, 0, 0, 0, NULL, set_cpu, 0, SEC_MEASURE, "--cpu N", HELP_PLAIN,
     "pin every run to CPU N (default: the last CPU allowed)"},
    {"timeout", OPT_FN, 0, 0, 0, NULL, set_timeout, 0, SEC_MEASURE, "--timeout SEC", HELP_PLAIN,
     "per-run timeout (default auto: 20 x calibrated CPU time + 5 s;\n"
     "simulated runs 100 x + 600 s)"},
    {"counters", OPT_FN, 0, 0, 0, NULL, set_counters, 0, SEC_MEASURE, "--counters LIST", HELP_PLAIN,
     "libpfm4 events (default cycles,instructions,branch-misses,\n"
     "cache-misses,perf::task-clock,perf::page-faults,\n"
     "perf::context-switches,perf::cpu-migrations); 'none' for no counters"},
    {"keep-profiles", OPT_BOOL, FIELD(keep_profiles), 0, 0, NULL, NULL, OPT_FLAG, SEC_MEASURE, "--keep-profiles",
     HELP_PLAIN, "keep each run's profile in <sweep>/profiles/"},
    {"backends", OPT_FN, 0, 0, 0, NULL, set_backends, 0, SEC_MEASURE, "--backends LIST", HELP_PLAIN,
     "native (runs timed natively), sim (runs counted exactly under\n"
     "valgrind's cachegrind); default native,sim"},
    {"sim-target", OPT_SECS, FIELD(sim_target), 0, 600, NULL, NULL, 0, SEC_MEASURE, "--sim-target SEC", HELP_PLAIN,
     "calibrate the simulated cells' --size to this CPU time under\n"
     "valgrind (default 2; --quick: 0.3)"},
    {"sim-runs", OPT_FN, 0, 0, 0, NULL, set_sim_runs, 0, SEC_MEASURE, "--sim-runs N", HELP_PLAIN,
     "runs per simulated cell, 2 or more (default 2)"},
    {"sim-jobs", OPT_FN, 0, 0, 0, NULL, set_sim_jobs, 0, SEC_MEASURE, "--sim-jobs N", HELP_PLAIN,
     "simulated runs at once (default auto: one per CPU allowed)"},
    {"sim-size", OPT_FN, 0, 0, 0, NULL, set_sim_size, OPT_REPEAT, SEC_MEASURE, "--sim-size [WORKLOAD=]N", HELP_PLAIN,
     "the simulated cells' --size instead of calibrating"},
    {"valgrind", OPT_FN, 0, 0, 0, NULL, set_valgrind, 0, SEC_MEASURE, "--valgrind PATH", HELP_PLAIN,
     "the valgrind program (default valgrind, from PATH)"},
    {"tmp", OPT_STR, FIELD(tmp_dir), 0, 0, NULL, NULL, 0, SEC_MEASURE, "--tmp DIR", HELP_PLAIN,
     "directory for temporary files (default $TMPDIR or /tmp)"},
    /* Output and control */
    {"out", OPT_STR, FIELD(out_root), 0, 0, NULL, NULL, 0, SEC_OUTPUT, "--out DIR", HELP_PLAIN,
     "results root (default results); results/latest is updated"},
    {"config", OPT_FN, 0, 0, 0, NULL, NULL, OPT_CMDLINE | OPT_CONFIG_PASS | OPT_INVOCATION, SEC_OUTPUT, "--config FILE",
     HELP_PLAIN, "read settings from FILE ('name = value' lines, # comments)"},
    {"shard", OPT_FN, 0, 0, 0, NULL, set_shard, 0, SEC_OUTPUT, "--shard K/N", HELP_PLAIN,
     "run only the K-th of N parts of the plan (whole workloads with\n"
     "their baselines; --seed required); sweep --merge OUT DIR...\n"
     "merges the shards (docs/HARNESS.md \"Sharding and Slurm\")"},
    {"plan", OPT_CONST, FIELD(plan_only), 1, 0, NULL, NULL, OPT_FLAG | OPT_INVOCATION, SEC_OUTPUT, "--plan", HELP_PLAIN,
     "print the plan (cells and run count) and exit"},
    {"from", OPT_STR, FIELD(from_dir), 0, 0, NULL, NULL, OPT_INVOCATION, SEC_OUTPUT, "--from DIR", HELP_PLAIN,
     "with --plan: estimate the duration from the run times stored by\n"
     "the sweep in DIR (a sweep directory or its results.db)"},
    {"estimate", OPT_CONST, FIELD(estimate), 1, 0, NULL, NULL, OPT_FLAG | OPT_INVOCATION, SEC_OUTPUT, "--estimate",
     HELP_PLAIN,
     "with --plan: estimate the duration by calibrating now (runs\n"
     "the workloads' calibration, pinned, as a sweep would)"},
    {"progress", OPT_CONST, FIELD(progress), 1, 0, NULL, NULL, OPT_FLAG | OPT_RESUMABLE | OPT_INVOCATION, SEC_OUTPUT,
     "--progress, --no-progress", HELP_PLAIN, "live progress line (default: when stderr is a terminal)"},
    {"no-progress", OPT_CONST, FIELD(progress), 0, 0, NULL, NULL, OPT_FLAG | OPT_RESUMABLE | OPT_INVOCATION, SEC_OUTPUT,
     NULL, HELP_PLAIN, NULL},
    {"help", OPT_FN, 0, 0, 0, NULL, NULL, OPT_FLAG | OPT_CMDLINE | OPT_FIRST | OPT_INVOCATION, SEC_OUTPUT, "--help",
     HELP_PLAIN, "this text"},
    {"resume", OPT_FN, 0, 0, 0, NULL, NULL, OPT_CMDLINE | OPT_FIRST | OPT_INVOCATION, SEC_OUTPUT, NULL, HELP_PLAIN,
     NULL},
};

#undef FIELD

const char *sw_opts_setting(int i, int *stored) {
    if (i < 0 || (size_t)i >= sizeof options / sizeof *options)
        return NULL;
    *stored = !(options[i].where & OPT_INVOCATION);
    return options[i].name;
}

static const opt *find_opt(const char *name) {
    for (size_t i = 0; i < sizeof options / sizeof *options; i++)
        if (!strcmp(name, options[i].name))
            return &options[i];
    return NULL;
}

/* Applies one setting.  value is NULL for a flag given without a value. */
static void apply(sw_opts *o, const char *name, const char *value, const char *origin) {
    const opt *d = find_opt(name);
    if (d && !(d->where & OPT_FLAG) && !value)
        sw_usage_error("%s: %s needs a value (see sweep --help)", origin, name);
    if (!d || (d->where & OPT_CMDLINE))
        sw_usage_error("%s: unknown setting '%s' (see sweep --help)", origin, name);
    char *p = (char *)o + d->target;
    uint64_t v;
    switch (d->kind) {
    case OPT_FN: d->set(o, d, value, origin); break;
    case OPT_STR:
        free(*(char **)p);
        *(char **)p = ct_xstrdup(value);
        break;
    case OPT_INT:
        if (sw_parse_uint(value, (uint64_t)d->hi, &v) || (long long)v < d->lo)
            sw_usage_error("%s: %s: '%s' is not %s (%lld..%lld)", origin, name, value, d->what, d->lo, d->hi);
        *(int *)p = (int)v;
        break;
    case OPT_SECS:
        if (sw_parse_seconds(value, (double *)p) || *(double *)p > (double)d->hi)
            sw_usage_error("%s: %s: '%s' is not a number of seconds (up to %lld)", origin, name, value, d->hi);
        break;
    case OPT_BOOL: *(int *)p = parse_flag(name, value, origin); break;
    case OPT_CONST: *(int *)p = (int)d->lo; break;
    }
}

void sw_opts_parse_config(sw_opts *o, const char *text, const char *origin) {
    char *copy = ct_xstrdup(text);
    int lineno = 0;
    /* The line each setting was given on: a second line of one that does not
     * accumulate would silently undo the first. */
    int seen[sizeof options / sizeof *options] = {0};
    for (char *line = copy, *next; line; line = next) {
        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        char *end = p + strlen(p);
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = '\0';
        if (!*p)
            continue;
        char where[512];
        snprintf(where, sizeof where, "%s line %d", origin, lineno);
        char *eq = strchr(p, '=');
        if (!eq) {
            const opt *d = find_opt(p);
            if (!d || !(d->where & OPT_FLAG))
                sw_usage_error("%s: expected 'name = value', got '%s'", where, p);
            if (seen[d - options])
                sw_usage_error("%s: '%s' is set again (first on line %d); a config file sets each setting once", where,
                               p, seen[d - options]);
            seen[d - options] = lineno;
            apply(o, p, NULL, where);
            continue;
        }
        char *name_end = eq;
        while (name_end > p && (name_end[-1] == ' ' || name_end[-1] == '\t'))
            name_end--;
        *name_end = '\0';
        char *value = eq + 1;
        while (*value == ' ' || *value == '\t')
            value++;
        const opt *d = find_opt(p);
        if (d && (d->where & OPT_CMDLINE))
            sw_usage_error("%s: '%s' is not allowed in a config file", where, p);
        if (d && !(d->where & OPT_REPEAT)) {
            int *line_of = &seen[d - options];
            if (*line_of)
                sw_usage_error("%s: '%s' is set again (first on line %d); a config file sets each setting once", where,
                               p, *line_of);
            *line_of = lineno;
        }
        apply(o, p, value, where);
    }
    free(copy);
}

/* One entry of --help: the left column, then the text, its later lines
 * indented under the first. */
static void usage_entry(FILE *f, const opt *d, const char *modes, const char *clocks) {
    int len = (int)strlen(d->shown);
    fprintf(f, "  %s%*s", d->shown, len <= 20 ? 22 - len : 3, "");
    char text[1024];
    if (d->help_args == HELP_MODES)
        snprintf(text, sizeof text, d->help, modes, sgc_alloc_mode_name(0));
    else if (d->help_args == HELP_CLOCKS)
        snprintf(text, sizeof text, d->help, clocks, sgc_clock_name(0));
    else if (d->help_args == HELP_ENV) {
        char allowed[512];
        snprintf(text, sizeof text, d->help, env_allowed(allowed, sizeof allowed, SW_HELP_WRAP));
    } else
        snprintf(text, sizeof text, "%s", d->help);
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        fprintf(f, "%s%.*s\n", line == text ? "" : "                        ", (int)n, line);
        line += n + (line[n] == '\n');
    }
}

void sw_opts_usage(void *stream) {
    static const char *const sections[] = {
        [SEC_PLAN] = "Plan (lists are comma or space separated; 'none' = empty list):\n",
        [SEC_MEASURE] = "Measurement:\n",
        [SEC_OUTPUT] = "Output and control:\n",
    };
    FILE *f = stream;
    char modes[256], clocks[256];
    sgc_names_join(modes, sizeof modes, sgc_alloc_mode_name, ", ", ", ");
    sgc_names_join(clocks, sizeof clocks, sgc_clock_name, ", ", ", ");
    fputs("usage: sweep [options]            run a sweep into <out>/<sweep-id>/\n"
          "       sweep --resume DIR          run exactly the missing runs of an interrupted sweep\n",
          f);
    for (int sec = SEC_PLAN; sec <= SEC_OUTPUT; sec++) {
        fprintf(f, "\n%s", sections[sec]);
        for (size_t i = 0; i < sizeof options / sizeof *options; i++)
            if (options[i].section == sec && options[i].shown)
                usage_entry(f, &options[i], modes, clocks);
    }
    fputs("\n"
          "Exit status: 0 when the sweep completed (failed runs are recorded and listed),\n"
          "1 when it could not go on, 2 for bad arguments or an unusable output directory.\n"
          "See docs/HARNESS.md.\n",
          f);
}

void sw_opts_parse_args(sw_opts *o, int argc, char **argv) {
    /* Pass 0: --help, --resume, --quick; pass 1: --config files; pass 2:
     * everything else, so the precedence does not depend on the order. */
    for (int pass = 0; pass <= 2; pass++) {
        for (int i = 1; i < argc; i++) {
            const char *arg = argv[i];
            if (strncmp(arg, "--", 2) != 0 || !arg[2])
                sw_usage_error("unexpected argument '%s' (options start with --; see sweep --help)", arg);
            char name[64];
            const char *value = NULL;
            const char *eq = strchr(arg + 2, '=');
            size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
            if (len >= sizeof name)
                sw_usage_error("unknown option '%s' (see sweep --help)", arg);
            memcpy(name, arg + 2, len);
            name[len] = '\0';
            const opt *d = find_opt(name);
            if (!d)
                sw_usage_error("unknown option '%s' (see sweep --help)", arg);
            if (eq)
                value = eq + 1;
            else if (!(d->where & OPT_FLAG)) {
                if (i + 1 >= argc)
                    sw_usage_error("option --%s needs a value (see sweep --help)", name);
                value = argv[++i];
            }
            int my_pass = d->where & OPT_FIRST ? 0 : d->where & OPT_CONFIG_PASS ? 1 : 2;
            if (pass != my_pass)
                continue;
            if (!strcmp(name, "quick")) {
                if (o->resume_dir)
                    sw_usage_error("--resume replays the stored plan; --quick cannot change it");
                plan_defaults(o, 1);
                continue;
            }
            if (!strcmp(name, "help")) {
                sw_opts_usage(stdout);
                exit(0);
            } else if (!strcmp(name, "resume")) {
                free(o->resume_dir);
                o->resume_dir = ct_xstrdup(value);
            } else if (!strcmp(name, "config")) {
                if (o->resume_dir)
                    sw_usage_error("--resume replays the stored plan; --config cannot change it");
                char *text = sw_read_file(value);
                if (!text)
                    sw_usage_error("cannot read config file '%s': %s", value, sw_read_error(errno));
                sw_opts_parse_config(o, text, value);
                free(text);
            } else {
                if (o->resume_dir && !(d->where & OPT_RESUMABLE))
                    sw_usage_error("--resume replays the stored plan; --%s cannot change it", name);
                char origin[80];
                snprintf(origin, sizeof origin, "option --%s", name);
                apply(o, name, value, origin);
            }
        }
    }
    if (o->resume_dir && o->quick)
        sw_usage_error("--resume replays the stored plan; --quick cannot change it");
    /* The sampler thread takes wall-clock samples only (docs/RUNTIME.md):
     * CPU-clock cells in thread mode would all fail. */
    const char *tm = sw_opts_env(o, "SGC_TIME_MODE");
    if (tm && o->time_modes)
        sw_usage_error("--time-modes and --env SGC_TIME_MODE both set the time sampler's mode: give --time-modes "
                       "alone (it makes every time cell once per mode)");
    if (tm && !strcmp(tm, sgc_time_mode_name(SGC_TIME_THREAD)) && o->n_time_hz && (o->clocks & (1u << SGC_CLOCK_CPU)))
        sw_usage_error("--env SGC_TIME_MODE=thread: the sampler thread samples the wall clock only; "
                       "drop cpu from --time-clock");
    if ((o->time_modes & (1u << SGC_TIME_THREAD)) && o->n_time_hz && (o->clocks & (1u << SGC_CLOCK_CPU)))
        sw_usage_error("--time-modes thread: the sampler thread samples the wall clock only, so the cpu clock's "
                       "time cells cannot be made in thread mode; drop cpu from --time-clock, or thread from "
                       "--time-modes");
}

unsigned sw_opts_time_modes(const sw_opts *o) {
    if (o->time_modes)
        return o->time_modes;
    int m = sgc_time_mode_parse(sw_opts_env(o, "SGC_TIME_MODE"));
    return 1u << (m >= 0 ? m : SGC_TIME_SIGNAL);
}

int sw_opts_time_modes_legacy(const sw_opts *o) { return o->time_modes == 0; }

char *sw_opts_time_mode_list(unsigned bits) {
    sw_buf b = {0};
    sw_buf_puts(&b, "");
    for (int m = 0, n = 0; m < SGC_NTIME_MODES; m++)
        if (bits & (1u << m))
            sw_buf_printf(&b, "%s%s", n++ ? "," : "", sgc_time_mode_name(m));
    return b.data;
}

void sw_opts_default_time_modes(sw_opts *o, int cpus, char **why) {
    const char *tm = sw_opts_env(o, "SGC_TIME_MODE");
    if (o->time_modes) {
        *why = ct_xstrdup("given (--time-modes)");
    } else if (tm) {
        *why = sw_xasprintf("given (--env SGC_TIME_MODE=%s: the older form, one mode for the whole sweep)", tm);
    } else if (o->n_time_hz && (o->clocks & (1u << SGC_CLOCK_CPU))) {
        o->time_modes = 1u << SGC_TIME_SIGNAL;
        *why = ct_xstrdup("default: signal, since --time-clock has cpu and the sampler thread samples the wall "
                          "clock only");
    } else if (cpus >= 2) {
        o->time_modes = 1u << SGC_TIME_THREAD;
        *why = sw_xasprintf("default: thread, since the sweep may use %d CPUs (its CPU affinity, "
                            "sched_getaffinity): the sampler thread runs on another CPU than the run's",
                            cpus);
    } else {
        o->time_modes = 1u << SGC_TIME_SIGNAL;
        *why = sw_xasprintf("default: signal, since the sweep may use %d CPU (its CPU affinity, "
                            "sched_getaffinity): a sampler thread would share the run's CPU",
                            cpus);
    }
}

static void put_list(sw_buf *b, const char *name, char *const *items, int n) {
    sw_buf_printf(b, "%s = ", name);
    if (!n)
        sw_buf_puts(b, "none");
    for (int i = 0; i < n; i++)
        sw_buf_printf(b, "%s%s", i ? "," : "", items[i]);
    sw_buf_puts(b, "\n");
}

/* "name = w1,w2" for the words whose bits are set in mask ("none" if none). */
static void put_words(sw_buf *b, const char *name, unsigned mask, const char *(*word)(int)) {
    sw_buf_printf(b, "%s = ", name);
    if (!mask)
        sw_buf_puts(b, "none");
    for (int i = 0, n = 0; word(i); i++)
        if (mask & (1u << i))
            sw_buf_printf(b, "%s%s", n++ ? "," : "", word(i));
    sw_buf_puts(b, "\n");
}

char *sw_opts_to_config(const sw_opts *o) {
    sw_buf b = {0};
    char tmp[32];
    sw_buf_printf(&b, "quick = %s\n", o->quick ? "yes" : "no");
    if (o->n_workloads) /* absent: every workload of the list file ('none' is refused) */
        put_list(&b, "workloads", o->workloads, o->n_workloads);
    sw_buf_printf(&b, "list = %s\n", o->list_file);
    if (o->bin_dir)
        sw_buf_printf(&b, "bin-dir = %s\n", o->bin_dir);
    sw_buf_puts(&b, "periods = ");
    for (int i = 0; i < o->n_periods; i++)
        sw_buf_printf(&b, "%s%s", i ? "," : "", sw_format_bytes(o->periods[i], tmp, sizeof tmp));
    sw_buf_puts(&b, o->n_periods ? "\n" : "none\n");
    put_words(&b, "modes", o->modes, sgc_alloc_mode_name);
    sw_buf_puts(&b, "time-hz = ");
    for (int i = 0; i < o->n_time_hz; i++)
        sw_buf_printf(&b, "%s%u", i ? "," : "", o->time_hz[i]);
    sw_buf_puts(&b, o->n_time_hz ? "\n" : "none\n");
    put_words(&b, "time-clock", o->clocks, sgc_clock_name);
    if (o->time_modes) /* absent: the older form (a config stored before the setting, or --env SGC_TIME_MODE) */
        put_words(&b, "time-modes", o->time_modes, sgc_time_mode_name);
    sw_buf_puts(&b, "combined = ");
    for (int i = 0; i < o->n_combined; i++)
        sw_buf_printf(&b, "%s%s@%u", i ? "," : "", sw_format_bytes(o->combined[i].period, tmp, sizeof tmp),
                      o->combined[i].hz);
    sw_buf_puts(&b, o->n_combined ? "\n" : "none\n");
    sw_buf_puts(&b, "depths = ");
    for (int i = 0; i < o->n_depths; i++)
        sw_buf_printf(&b, "%s%u", i ? "," : "", o->depths[i]);
    sw_buf_puts(&b, o->n_depths ? "\n" : "none\n");
    sw_buf_printf(&b, "depth-period = %s\ndepth-hz = %u\n", sw_format_bytes(o->depth_period, tmp, sizeof tmp),
                  o->depth_hz);
    sw_buf_printf(&b, "runs = %d\nwarmup = %d\nseed = %llu\n", o->runs, o->warmup, (unsigned long long)o->seed);
    sw_buf_printf(&b, "design = %s\n", sw_design_name(o->design));
    sw_buf_printf(&b, "halfwidth = %.17g%%\nmax-runs = %d\n", o->halfwidth * 100, o->max_runs);
    if (o->replicates > 1) /* absent: one replicate (the configs stored before the setting) */
        sw_buf_printf(&b, "replicates = %d\nreplicate-order = %s\n", o->replicates,
                      sw_reporder_name(sw_opts_reporder(o)));
    if (o->max_time > 0)
        sw_buf_printf(&b, "max-time = %.17g\n", o->max_time);
    else
        sw_buf_puts(&b, "max-time = none\n");
    if (o->cpu >= 0)
        sw_buf_printf(&b, "cpu = %d\n", o->cpu);
    else
        sw_buf_puts(&b, "cpu = auto\n");
    sw_buf_printf(&b, "out = %s\n", o->out_root);
    if (o->timeout > 0)
        sw_buf_printf(&b, "timeout = %.17g\n", o->timeout);
    else
        sw_buf_puts(&b, "timeout = auto\n");
    sw_buf_printf(&b, "target = %.17g\n", o->target);
    if (o->sizes_from) /* absent: calibrated (the configs stored before the setting) */
        sw_buf_printf(&b, "sizes-from = %s\n", o->sizes_from);
    sw_buf_puts(&b, "size = none\n");
    for (int i = 0; i < o->n_sizes; i++)
        sw_buf_printf(&b, "size = %s=%llu\n", o->sizes[i].workload, (unsigned long long)o->sizes[i].size);
    sw_buf_printf(&b, "backends = %s%s%s\n", o->backend_native ? "native" : "",
                  o->backend_native && o->backend_sim ? "," : "", o->backend_sim ? "sim" : "");
    sw_buf_printf(&b, "sim-target = %.17g\nsim-runs = %d\n", o->sim_target, o->sim_runs);
    if (o->sim_jobs)
        sw_buf_printf(&b, "sim-jobs = %d\n", o->sim_jobs);
    else
        sw_buf_puts(&b, "sim-jobs = auto\n");
    sw_buf_puts(&b, "sim-size = none\n");
    for (int i = 0; i < o->n_sim_sizes; i++)
        sw_buf_printf(&b, "sim-size = %s=%llu\n", o->sim_sizes[i].workload, (unsigned long long)o->sim_sizes[i].size);
    sw_buf_printf(&b, "valgrind = %s\n", o->valgrind);
    sw_buf_printf(&b, "keep-profiles = %s\n", o->keep_profiles ? "yes" : "no");
    put_list(&b, "env", o->env, o->n_env);
    put_list(&b, "counters", o->counters, o->n_counters);
    sw_buf_printf(&b, "tmp = %s\n", o->tmp_dir);
    if (o->shard_n)
        sw_buf_printf(&b, "shard = %d/%d\n", o->shard_k, o->shard_n);
    else
        sw_buf_puts(&b, "shard = none\n");
    return b.data;
}

void sw_opts_check_sizes(const sw_opts *o, char *const *workloads, int n_workloads) {
    for (int sim = 0; sim < 2; sim++) {
        const sw_size_override *sizes = sim ? o->sim_sizes : o->sizes;
        for (int i = 0; i < (sim ? o->n_sim_sizes : o->n_sizes); i++) {
            const char *w = sizes[i].workload;
            int found = !strcmp(w, "*");
            for (int k = 0; k < n_workloads && !found; k++)
                found = !strcmp(w, workloads[k]);
            if (!found)
                sw_usage_error("%s: %s=%llu names no workload of the plan (the plan's workloads: see --plan)",
                               sim ? "sim-size" : "size", w, (unsigned long long)sizes[i].size);
        }
    }
}

static uint64_t fixed_size(const sw_size_override *sizes, int n, const char *workload) {
    uint64_t size = 0;
    /* The last matching one wins; a named one beats "*" given earlier. */
    for (int i = 0; i < n; i++)
        if (!strcmp(sizes[i].workload, "*") || !strcmp(sizes[i].workload, workload))
            size = sizes[i].size;
    return size;
}

uint64_t sw_opts_fixed_size(const sw_opts *o, const char *workload) {
    return fixed_size(o->sizes, o->n_sizes, workload);
}

uint64_t sw_opts_fixed_sim_size(const sw_opts *o, const char *workload) {
    return fixed_size(o->sim_sizes, o->n_sim_sizes, workload);
}
