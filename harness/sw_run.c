/* sw_run.c - environment, execution and judgement of one run. */
#define _GNU_SOURCE
#include "sw_run.h"
#include "../contracts/ct_out.h"
#include "../contracts/sgc_settings_table.h"
#include "sgc_statsrec.h"
#include "sw_cmd.h"
#include "st_segcheck.h"
#include "sw_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void sw_runner_init(sw_runner *r) {
    int n = 0;
    for (char **e = environ; *e; e++)
        n++;
    r->base_env = ct_xcalloc((size_t)n + 1, sizeof *r->base_env);
    r->n_base_env = 0;
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "SGC_", 4) != 0)
            r->base_env[r->n_base_env++] = *e;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char *sw_run_dropped_settings(void) {
    int n = 0;
    for (char **e = environ; *e; e++)
        n += !strncmp(*e, "SGC_", 4);
    char **names = ct_xcalloc((size_t)(n ? n : 1), sizeof *names);
    n = 0;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "SGC_", 4))
            names[n++] = strndup(*e, strcspn(*e, "="));
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    sw_buf b = {0};
    for (int i = 0; i < n; i++) {
        sw_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
        free(names[i]);
    }
    free(names);
    return b.data;
}

/* Does extra set the variable of the NAME=VALUE item e? */
static int overridden(const char *e, char **extra, int n_extra) {
    size_t len = strcspn(e, "=");
    for (int i = 0; i < n_extra; i++)
        if (!strncmp(extra[i], e, len) && extra[i][len] == '=')
            return 1;
    return 0;
}

/* A fresh environment.  A timed run's: the base (without the variables
 * extra sets) plus the settings, then --env's.  A simulated run's is built
 * from the plan alone (sw_run.h): SW_SIM_PATH, SW_SIM_TUNABLES, SW_SIM_CLOCK,
 * the settings, then --env's, nothing of the harness's own. */
static char **make_env(const sw_runner *r, char **extra, int n_extra) {
    char **env = ct_xcalloc((size_t)(r->n_base_env + n_extra + r->n_env + 4), sizeof *env);
    int n = 0;
    if (r->sim) {
        env[n++] = SW_SIM_PATH;
        env[n++] = SW_SIM_TUNABLES;
        env[n++] = SW_SIM_CLOCK;
    } else {
        for (int i = 0; i < r->n_base_env; i++)
            if (!overridden(r->base_env[i], extra, n_extra))
                env[n++] = r->base_env[i];
    }
    memcpy(env + n, extra, (size_t)n_extra * sizeof *env);
    n += n_extra;
    if (r->n_env)
        memcpy(env + n, r->env, (size_t)r->n_env * sizeof *env);
    return env;
}

/* A file of the run in the private temporary directory, "<name>-<seq>" with
 * seq in 8 digits: for a simulated run relative to that directory (where it
 * starts), so that nothing of where the sweep runs reaches it; else the
 * whole path, of a fixed width (the directory's is, sw_run.h). */
static char *run_file(const sw_runner *r, const char *name, int seq) {
    return r->sim ? sw_xasprintf("%s-%08d", name, seq) : sw_xasprintf("%s/%s-%08d", r->tmp_dir, name, seq);
}

/* The path of a run's file as the harness opens it (its cwd is not the
 * run's); fresh. */
static char *harness_path(const sw_runner *r, const char *run_path) {
    return run_path[0] == '/' ? ct_xstrdup(run_path) : sw_xasprintf("%s/%s", r->tmp_dir, run_path);
}

/* Moves a file to another path, across file systems too (a copy through
 * the atomic writer, contracts/ct_out.h, then the original removed); a
 * path that exists and is not a regular file is refused, not replaced.
 * 0, or -1 with the reason in err. */
static int move_file(const char *from, const char *to, char *err, size_t errlen) {
    if (ct_out_check(to, err, errlen) != 0)
        return -1;
    if (rename(from, to) == 0)
        return 0;
    if (errno != EXDEV) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    FILE *in = fopen(from, "rbe");
    if (!in) {
        snprintf(err, errlen, "cannot read %s: %s", from, strerror(errno));
        return -1;
    }
    ct_out out;
    if (ct_out_begin(&out, to, err, errlen) != 0) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0 && ct_out_write(&out, buf, n) == 0)
        ;
    int bad = ferror(in), e = errno;
    fclose(in);
    if (bad) {
        snprintf(err, errlen, "cannot read %s: %s", from, strerror(e ? e : EIO));
        ct_out_abort(&out);
        return -1;
    }
    if (ct_out_commit(&out, err, errlen) != 0)
        return -1;
    if (unlink(from) != 0) {
        snprintf(err, errlen, "cannot remove %s: %s", from, strerror(errno));
        return -1;
    }
    return 0;
}

uint64_t sw_run_nursery_bytes(const char *value) {
    uint64_t v;
    char *copy = ct_xstrdup(value);
    size_t len = strlen(copy);
    /* The runtime also takes 256KB and 256KiB. */
    if (len > 3 && !strcmp(copy + len - 2, "iB") && strchr("kKmMgG", copy[len - 3]))
        copy[len - 2] = '\0';
    else if (len > 2 && copy[len - 1] == 'B' && strchr("kKmMgG", copy[len - 2]))
        copy[len - 1] = '\0';
    int bad = sw_parse_bytes(copy, &v);
    free(copy);
    return bad ? 0 : v & ~(uint64_t)7;
}

char *sw_run_find_checksum(const char *text) {
    if (!text)
        return NULL;
    const char *found = NULL;
    for (const char *line = text; line && *line;) {
        if (strncmp(line, "checksum ", 9) == 0)
            found = line + 9;
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    if (!found)
        return NULL;
    size_t len = strcspn(found, "\n");
    while (len && (found[len - 1] == ' ' || found[len - 1] == '\r' || found[len - 1] == '\t'))
        len--;
    while (len && *found == ' ')
        found++, len--;
    return strndup(found, len);
}

int sw_run_parse_stats(const char *text, unsigned flags, char ***keys, char ***values, char **why) {
    *keys = *values = NULL;
    *why = NULL;
    sgc_statsrec_line *lines = ct_xmalloc(SGC_STATSREC_MAX_KEYS * sizeof *lines);
    sgc_statsrec_error err;
    char msg[512];
    int n = sgc_statsrec_split(text, strlen(text), lines, SGC_STATSREC_MAX_KEYS, &err);
    if (n >= 0) {
        *keys = ct_xcalloc((size_t)(n ? n : 1), sizeof **keys);
        *values = ct_xcalloc((size_t)(n ? n : 1), sizeof **values);
        int *line_of = ct_xcalloc((size_t)(n ? n : 1), sizeof *line_of);
        for (int i = 0; i < n; i++) {
            (*keys)[i] = strndup(lines[i].key, lines[i].key_len);
            (*values)[i] = strndup(lines[i].value, lines[i].value_len);
            line_of[i] = lines[i].line;
        }
        if (sgc_statsrec_judge((const char *const *)*keys, (const char *const *)*values, line_of, n, flags, &err) !=
            0) {
            for (int i = 0; i < n; i++)
                free((*keys)[i]), free((*values)[i]);
            free(*keys), free(*values);
            *keys = *values = NULL;
            n = -1;
        }
        free(line_of);
    }
    free(lines);
    if (n < 0) {
        sgc_statsrec_describe(&err, msg, sizeof msg);
        *why = ct_xstrdup(msg);
    }
    return n;
}

/* argv for path --size SIZE, then the words of args (split on blanks), then
 * extra if not NULL.  The words live in *words (free both arrays after). */
static char **make_argv(char *path, char *size, const char *args, const char *extra, char **words) {
    *words = ct_xstrdup(args ? args : "");
    size_t n = 0, cap = 8;
    char **argv = ct_xcalloc(cap, sizeof *argv);
    argv[n++] = path;
    argv[n++] = "--size";
    argv[n++] = size;
    for (char *save, *tok = strtok_r(*words, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (n + 3 > cap)
            argv = ct_xrealloc(argv, (cap *= 2) * sizeof *argv);
        argv[n++] = tok;
    }
    if (extra)
        argv[n++] = (char *)extra;
    argv[n] = NULL;
    return argv;
}

static const char *stat_value(const sw_run_result *res, const char *key) {
    for (int i = 0; i < res->n_stats; i++)
        if (!strcmp(res->stat_keys[i], key))
            return res->stat_values[i];
    return NULL;
}

/* The value --env gives the setting name (r->env), or NULL. */
static const char *env_value(const sw_runner *r, const char *name) {
    size_t len = strlen(name);
    for (int i = 0; i < r->n_env; i++)
        if (!strncmp(r->env[i], name, len) && r->env[i][len] == '=')
            return r->env[i] + len + 1;
    return NULL;
}

/* Does the record's value v say what --env gave: as numbers for UINT and
 * SWITCH, in thousandths for DEC3 (the record writes three decimals, --env
 * may give fewer: 1.5 is 1.500), as words otherwise?  (A value the runtime
 * cannot read never reaches a record: it refuses it at start-up.) */
static int same_value(sgc_setting_kind kind, const char *v, const char *given) {
    switch (kind) {
    case SGC_KIND_UINT:
    case SGC_KIND_SWITCH: return strtoull(v, NULL, 10) == strtoull(given, NULL, 10);
    case SGC_KIND_DEC3: return llround(strtod(v, NULL) * 1000) == llround(strtod(given, NULL) * 1000);
    default: return !strcmp(v, given);
    }
}

/* How the stats record confirms an --env setting (its row's CONFIRM,
 * contracts/sgc_settings_table.h): the mismatch in words (fresh), or NULL. */
static char *env_mismatch(const sgc_setting_row *row, const char *given, const sw_run_result *res) {
    const char *v = stat_value(res, row->key);
    switch (row->confirm) {
    case SGC_CONFIRM_ROUND8: {
        /* The runtime's rounding (an unreadable value is the runtime's to refuse). */
        uint64_t want = sw_run_nursery_bytes(given);
        if (want && v && strtoull(v, NULL, 10) != want)
            return sw_xasprintf("the stats record says %s %s but --env %s set %llu", row->key, v, row->name,
                                (unsigned long long)want);
        return NULL;
    }
    case SGC_CONFIRM_EQUAL:
        if (!v || !same_value(row->kind, v, given))
            return sw_xasprintf("the stats record says %s %s but --env %s set %s", row->key, v ? v : "nothing",
                                row->name, given);
        return NULL;
    /* Huge pages asked for and not had (no THP on the machine) would pass
     * a run on normal pages off as one on huge pages. */
    case SGC_CONFIRM_ONE:
        if (!strcmp(given, "1") && v && strcmp(v, "1"))
            return sw_xasprintf("the stats record says %s %s but --env %s=1 asked for %s", row->key, v, row->name,
                                row->note);
        return NULL;
    default: return NULL; /* NONE; CELL: the cell's, below */
    }
}

/* A settings mismatch between the cell and the stats record, or NULL: the
 * --env settings in their order, then the cell's. */
static char *settings_mismatch(const sw_runner *r, const sw_run_result *res, const sw_cell *c) {
    const char *v;
    char *why = NULL;
    for (int rank = 1; !why && sgc_setting_env_rank(rank); rank++) {
        const sgc_setting_row *row = sgc_setting_env_rank(rank);
        const char *given = env_value(r, row->name);
        if (given)
            why = env_mismatch(row, given, res);
    }
    if (why)
        return why;
    const char *env_mode = env_value(r, "SGC_TIME_MODE");
    /* The cell's mode, however it reached the run (its own SGC_TIME_MODE, or
     * --env's in the older form): a run of the other sampler cannot pass. */
    if (c->time_hz && c->time_mode[0] && (!(v = stat_value(res, "time_mode")) || strcmp(v, c->time_mode))) {
        if (env_mode)
            return sw_xasprintf("the stats record says time_mode %s but --env SGC_TIME_MODE set %s", v ? v : "nothing",
                                env_mode);
        return sw_xasprintf("the stats record says time_mode %s but the cell set %s", v ? v : "nothing", c->time_mode);
    }
    if ((v = stat_value(res, "alloc_period")) && strtoull(v, NULL, 10) != c->alloc_period)
        return sw_xasprintf("the stats record says alloc_period %s but the cell set %llu", v,
                            (unsigned long long)c->alloc_period);
    if (c->alloc_period && (v = stat_value(res, "alloc_mode")) && strcmp(v, c->alloc_mode))
        return sw_xasprintf("the stats record says alloc_mode %s but the cell set %s", v, c->alloc_mode);
    if ((v = stat_value(res, "time_hz")) && strtoul(v, NULL, 10) != c->time_hz)
        return sw_xasprintf("the stats record says time_hz %s but the cell set %u", v, c->time_hz);
    if (c->time_hz && (v = stat_value(res, "time_clock")) && strcmp(v, c->time_clock))
        return sw_xasprintf("the stats record says time_clock %s but the cell set %s", v, c->time_clock);
    return NULL;
}

/* The first rule of the segment series contract (docs/FORMATS.md) the
 * series breaks, with its stats record and its cell's mode, system and
 * period (stats/st_segcheck.h), in words (fresh), or NULL. */
typedef struct first_violation {
    char first[512];
    size_t n;
} first_violation;
static void keep_first(void *ctx, const char *msg) {
    first_violation *v = ctx;
    if (!v->n++)
        snprintf(v->first, sizeof v->first, "%s", msg);
}
static char *series_violation(const char *series, const char *stats, const sw_cell *cell, const sw_command *cmd) {
    st_segcheck_opts o = {.stats = stats,
                          .mode = sw_alt_mode(cell),
                          .system = cmd ? cmd->system->name : "freecheck",
                          .alloc_period = (int64_t)cell->alloc_period};
    first_violation v = {.n = 0};
    st_segcheck(series, strlen(series), &o, keep_first, &v, NULL);
    if (!v.n)
        return NULL;
    char more[96] = "";
    if (v.n > 1)
        snprintf(more, sizeof more, " (and %zu more; inproc-estimate --check shows them all)", v.n - 1);
    return sw_xasprintf("the segment series (SGC_ALT_OUT) breaks the contract of docs/FORMATS.md: %s%s", v.first, more);
}

/* A command's program by an absolute path (a simulated run starts in the
 * private temporary directory); fresh. */
static char *absolute_path(char *path) {
    if (path[0] == '/')
        return path;
    char cwd[4096];
    char *abs = getcwd(cwd, sizeof cwd) ? sw_xasprintf("%s/%s", cwd, path) : ct_xstrdup(path);
    free(path);
    return abs;
}

/* One run of a cell being made: its files (as the run names them, and
 * where the harness finds them), its environment and command line, and the
 * process's request. */
typedef struct run_setup {
    const sw_command *cmd; /* a command workload, or NULL */
    int foreign;           /* of another system: its own settings (sw_cmd.h) */
    sw_cmd_ctx ctx;
    char **extra; /* the settings added to the environment (fresh strings) */
    int n_extra;
    char size[32];                     /* --size's value (argv points to it) */
    char *path;                        /* the program */
    char *stats_path, *stats_file;     /* SGC_STATS */
    char *cg_path, *cg_file;           /* valgrind's cachegrind output (simulated runs) */
    char *profile_path, *profile_file; /* SGC_PROFILE (cells that sample, freecheck's runtime) */
    char *kept_path;                   /* where a kept profile goes, or NULL */
    char *series_path, *series_file;   /* SGC_ALT_OUT (the in-process design) */
    char **env, **argv, *words;
    char **sim_argv, *sim_opt, *argv0;
    sw_exec_req req;
} run_setup;

/* Environment: the run's files and the settings of its cell (sw_run.h),
 * its environment and its command line. */
static void run_environment(const sw_runner *r, const sw_cell *cell, int seq, int round, uint64_t sgc_seed,
                            run_setup *u) {
    memset(u, 0, sizeof *u);
    u->cmd = sw_cmd_find(cell->workload);
    u->foreign = u->cmd && !u->cmd->system->native;
    u->ctx = r->sim ? SW_CTX_SIM : r->alternate ? SW_CTX_INPROCESS : SW_CTX_TIMED;
    char **cmd_env =
        u->foreign ? sw_cmd_env_ctx(u->cmd->system, r->bin_dir, cell->alloc_period, cell->alloc_mode, u->ctx) : NULL;
    int n_cmd_env = 0;
    while (cmd_env && cmd_env[n_cmd_env])
        n_cmd_env++;
    u->extra = ct_xcalloc((size_t)(12 + n_cmd_env), sizeof *u->extra);
    u->path = u->cmd ? NULL : sw_xasprintf("%s/%s", r->bin_dir, cell->workload);
    u->stats_path = run_file(r, "stats", seq);
    u->stats_file = harness_path(r, u->stats_path);
    u->cg_path = r->sim ? run_file(r, "cachegrind", seq) : NULL;
    u->cg_file = u->cg_path ? harness_path(r, u->cg_path) : NULL;
    if ((cell->alloc_period || cell->time_hz) && !u->foreign) {
        u->profile_path = run_file(r, "profile", seq);
        u->profile_file = harness_path(r, u->profile_path);
        /* A kept profile is written where every other is and moved to the
         * profiles directory after the run: its name's width varies (the
         * round), the run's environment must not. */
        if (r->profile_dir) {
            char *flat = ct_xstrdup(cell->label);
            for (char *p = flat; *p; p++)
                if (*p == '/' || *p == '+')
                    *p = '_';
            u->kept_path = sw_xasprintf("%s/%06d-%s-r%d.prof", r->profile_dir, seq, flat, round);
            free(flat);
        }
    }
    char **extra = u->extra;
    int n = 0;
    if (!u->foreign) {
        extra[n++] = sw_xasprintf("SGC_ALLOC_PERIOD=%llu", (unsigned long long)cell->alloc_period);
        if (cell->alloc_period)
            extra[n++] = sw_xasprintf("SGC_ALLOC_MODE=%s", cell->alloc_mode);
        extra[n++] = sw_xasprintf("SGC_TIME_HZ=%u", cell->time_hz);
        if (cell->time_hz)
            extra[n++] = sw_xasprintf("SGC_TIME_CLOCK=%s", cell->time_clock);
        /* The older form passes the mode through --env. */
        if (cell->time_hz && cell->time_mode[0] && !env_value(r, "SGC_TIME_MODE"))
            extra[n++] = sw_xasprintf("SGC_TIME_MODE=%s", cell->time_mode);
    }
    for (int i = 0; i < n_cmd_env; i++)
        extra[n++] = ct_xstrdup(cmd_env[i]);
    sw_cmd_free_strv(cmd_env);
    /* 19 digits whatever the seed (2^63 has 19): the environment's size,
     * and with it where the stack starts, is the same for every run. */
    extra[n++] = sw_xasprintf("SGC_SEED=%0" SW_RUN_SEED_DIGITS "llu", (unsigned long long)sgc_seed);
    extra[n++] = sw_xasprintf("SGC_STATS=%s", u->stats_path);
    if (u->profile_path)
        extra[n++] = sw_xasprintf("SGC_PROFILE=%s", u->profile_path);
    if (r->alternate) {
        u->series_path = run_file(r, "segments", seq);
        u->series_file = harness_path(r, u->series_path);
        extra[n++] = sw_xasprintf("SGC_ALTERNATE=%s", sw_alt_mode(cell));
        extra[n++] = sw_xasprintf("SGC_ALT_OUT=%s", u->series_path);
        /* A system's own segment length (segment=, sw_cmd.h) before the sweep's. */
        const char *segment = u->foreign && u->cmd->system->segment ? u->cmd->system->segment : r->alt_segment;
        if (segment)
            extra[n++] = sw_xasprintf("SGC_ALT_SEGMENT=%s", segment);
    }
    u->n_extra = n;
    u->env = make_env(r, extra, n);
    snprintf(u->size, sizeof u->size, "%llu", (unsigned long long)cell->size);
    u->argv = u->cmd ? sw_cmd_argv_ctx(u->cmd, r->bin_dir, cell->size, cell->alloc_period, cell->alloc_mode, NULL,
                                       u->ctx, &u->path)
                     : make_argv(u->path, u->size, cell->args, NULL, &u->words);
}

/* Run: the run's files removed, the process started (under valgrind for a
 * simulated runner, by the program's absolute path from the private
 * directory) and waited for. */
static void run_execute(const sw_runner *r, double timeout, run_setup *u, sw_run_result *out) {
    if (u->series_file)
        unlink(u->series_file);
    unlink(u->stats_file);
    if (u->profile_file)
        unlink(u->profile_file);
    u->req = (sw_exec_req){.path = u->path,
                           .argv = u->argv,
                           .envp = u->env,
                           .cpu = r->cpu,
                           .timeout = timeout,
                           .counters = r->counters,
                           .stop = r->stop};
    if (r->sim) {
        unlink(u->cg_file);
        if (u->cmd) {
            u->path = absolute_path(u->path);
            u->req.path = u->path;
            u->argv0 = u->argv[0];
            u->argv[0] = u->path;
        }
        u->sim_argv = sw_sim_argv(r->valgrind, u->cg_path, u->argv, &u->sim_opt);
        u->req.path = r->valgrind;
        u->req.argv = u->sim_argv;
        u->req.cpu = -1;
        u->req.counters = NULL;
        u->req.no_aslr = 1;
        u->req.cwd = r->tmp_dir;
    }
    out->started_ns = sw_wallclock_ns();
    out->ran = sw_exec_run(&u->req, &out->exec) == 0;
    out->interrupted = out->exec.interrupted;
    if (u->argv0)
        u->argv[0] = u->argv0;
}

/* Judgement of the stats record (read, bounded; judged by the rules every
 * reader uses, sgc_statsrec.h): its keys into out, or the failure. */
static void judge_stats(const char *stats_text, int stats_errno, const run_setup *u, sw_run_result *out) {
    if (stats_text) {
        /* Every key of the table from freecheck's runtime, the core ones
         * from another system's. */
        char *why = NULL;
        int n = sw_run_parse_stats(stats_text, u->foreign ? SGC_STATSREC_REQUIRE_CORE : SGC_STATSREC_ALL_KEYS,
                                   &out->stat_keys, &out->stat_values, &why);
        if (n < 0 && !out->failure)
            out->failure = sw_xasprintf("the stats record (SGC_STATS) is malformed: %s", why);
        out->n_stats = n > 0 ? n : 0;
        free(why);
    } else if (!out->failure) {
        out->failure = stats_errno == ENOENT ? ct_xstrdup("no stats record was written (SGC_STATS)")
                       : stats_errno == EFBIG
                           ? sw_xasprintf("the stats record (SGC_STATS) is longer than %d bytes: not a stats record",
                                          SW_RUN_STATS_MAX)
                       : stats_errno == EILSEQ
                           ? ct_xstrdup("the stats record (SGC_STATS) holds a NUL byte: not a stats record")
                           : sw_xasprintf("the stats record (SGC_STATS) cannot be read: %s", strerror(stats_errno));
    }
}

/* Judgement of the segment series (the in-process design): its segments
 * into out, or the failure. */
static void judge_series(const sw_cell *cell, const char *stats_text, const run_setup *u, sw_run_result *out) {
    char *series = sw_read_file_max(u->series_file, SW_RUN_SERIES_MAX);
    int series_errno = errno;
    unlink(u->series_file);
    const char *why = NULL;
    int n = series ? sw_alt_parse_series(series, &out->segs, &out->series, &why) : -1;
    if (n >= 0)
        out->n_segs = n;
    if (n >= 0 && !out->failure)
        out->failure = series_violation(series, stats_text, cell, u->cmd);
    else if (!out->failure)
        out->failure = series ? sw_xasprintf("the segment series (SGC_ALT_OUT) is malformed: %s", why)
                       : series_errno == EFBIG
                           ? sw_xasprintf("the segment series (SGC_ALT_OUT) is longer than %d bytes", SW_RUN_SERIES_MAX)
                           : ct_xstrdup("no segment series was written (SGC_ALT_OUT)");
    free(series);
}

/* Judgement of valgrind's counts (a simulated run): into out->sim, or the
 * failure. */
static void judge_sim(const run_setup *u, sw_run_result *out) {
    char *cg = sw_read_file_max(u->cg_file, SW_RUN_CACHEGRIND_MAX);
    int cg_errno = errno;
    unlink(u->cg_file);
    uint64_t v[SW_SIM_N];
    const char *why = NULL;
    if (!cg) {
        if (!out->failure)
            out->failure = cg_errno == EFBIG ? sw_xasprintf("the cachegrind output %s is longer than %d bytes",
                                                            u->cg_file, SW_RUN_CACHEGRIND_MAX)
                                             : sw_xasprintf("valgrind wrote no cachegrind output (%s)", u->cg_file);
    } else if (sw_sim_parse(cg, v, &why) != 0) {
        if (!out->failure)
            out->failure = sw_xasprintf("the cachegrind output is malformed: %s", why);
    } else {
        for (int m = 0; m < SW_SIM_N; m++)
            out->sim[m] = (sw_reading){.raw = v[m],
                                       .time_enabled = out->exec.wall_ns,
                                       .time_running = out->exec.wall_ns,
                                       .scaled = (double)v[m],
                                       .ok = 1};
    }
    free(cg);
}

/* Judgement (sw_run.h): the files the run left read and removed (a kept
 * profile moved), then the first failure of: the process, its checksum,
 * the stats record, its settings, keeping the profile, the series, the
 * simulated counts. */
static void run_judge(const sw_runner *r, const sw_cell *cell, const char *reference, const run_setup *u,
                      sw_run_result *out) {
    char *stats_text = sw_read_file_max(u->stats_file, SW_RUN_STATS_MAX);
    int stats_errno = errno;
    unlink(u->stats_file);
    char *kept_failure = NULL;
    if (u->profile_file) {
        struct stat st;
        if (stat(u->profile_file, &st) == 0) {
            out->profile_bytes = (int64_t)st.st_size;
            char err[CT_OUT_PATH_MAX + 256];
            if (u->kept_path && move_file(u->profile_file, u->kept_path, err, sizeof err) != 0)
                kept_failure = sw_xasprintf("the profile could not be kept: moving %s to %s: %s", u->profile_file,
                                            u->kept_path, err);
        }
        unlink(u->profile_file);
    }
    out->checksum = sw_run_find_checksum(out->exec.out.data);
    out->failure = sw_exec_failure(&u->req, &out->exec);
    if (!out->failure && !out->checksum && !(u->cmd && u->cmd->check == SW_CHECK_NONE))
        out->failure = ct_xstrdup("no 'checksum <value>' line on stdout");
    if (!out->failure && reference && out->checksum && strcmp(out->checksum, reference))
        out->failure = sw_xasprintf("wrong checksum: printed %s, --check run printed %s", out->checksum, reference);
    judge_stats(stats_text, stats_errno, u, out);
    if (!out->failure)
        out->failure = settings_mismatch(r, out, cell);
    if (!out->failure && kept_failure)
        out->failure = kept_failure, kept_failure = NULL;
    free(kept_failure);
    if (u->series_file)
        judge_series(cell, stats_text, u, out);
    if (r->sim)
        judge_sim(u, out);
    if (out->failure)
        out->tail = sw_exec_tail(&out->exec, 15);
    free(stats_text);
}

static void run_setup_free(run_setup *u) {
    free(u->sim_argv);
    free(u->sim_opt);
    free(u->cg_path);
    free(u->cg_file);
    if (u->cmd)
        sw_cmd_free_strv(u->argv);
    else
        free(u->argv);
    free(u->words);
    free(u->env);
    for (int i = 0; i < u->n_extra; i++)
        free(u->extra[i]);
    free(u->extra);
    free(u->path);
    free(u->stats_path);
    free(u->stats_file);
    free(u->profile_path);
    free(u->profile_file);
    free(u->kept_path);
    free(u->series_path);
    free(u->series_file);
}

void sw_run_cell(const sw_runner *r, const sw_cell *cell, int seq, int round, const char *reference, double timeout,
                 sw_run_result *out) {
    memset(out, 0, sizeof *out);
    out->profile_bytes = -1;
    out->sgc_seed = r->sim ? r->sim_seed : sw_mix64(r->seed, (uint64_t)seq) >> 1;
    run_setup u;
    run_environment(r, cell, seq, round, out->sgc_seed, &u);
    run_execute(r, timeout, &u, out);
    run_judge(r, cell, reference, &u, out);
    run_setup_free(&u);
}

/* sw_run_plain and sw_run_probe: aa adds the in-process design's A/A
 * alternation (runner.alternate, not simulated): the run as the design's
 * baseline cell makes it, its series written and removed. */
static int run_plain(const sw_runner *r, const char *workload, const char *args, uint64_t size, const char *extra,
                     double timeout, int aa, sw_exec_res *res, char **checksum) {
    char sz[32];
    snprintf(sz, sizeof sz, "%llu", (unsigned long long)size);
    const sw_command *cmd = sw_cmd_find(workload);
    char *path = cmd ? NULL : sw_xasprintf("%s/%s", r->bin_dir, workload);
    char *words = NULL;
    char **argv =
        cmd ? sw_cmd_argv(cmd, r->bin_dir, size, 0, NULL, extra, &path) : make_argv(path, sz, args, extra, &words);
    aa = aa && r->alternate && !r->sim;
    /* Another system's runs without sampling get its off-* settings (and in
     * the A/A alternation its in-process ones). */
    int foreign = cmd && !cmd->system->native;
    char **cmd_env = foreign ? sw_cmd_env_ctx(cmd->system, r->bin_dir, 0, NULL,
                                              r->sim ? SW_CTX_SIM
                                              : aa   ? SW_CTX_INPROCESS
                                                     : SW_CTX_TIMED)
                             : NULL;
    int n_cmd_env = 0;
    while (cmd_env && cmd_env[n_cmd_env])
        n_cmd_env++;
    char **extra_env = ct_xcalloc((size_t)n_cmd_env + 8, sizeof *extra_env);
    int n_env = 0;
    if (!foreign) {
        extra_env[n_env++] = ct_xstrdup("SGC_ALLOC_PERIOD=0");
        extra_env[n_env++] = ct_xstrdup("SGC_TIME_HZ=0");
    }
    for (int i = 0; i < n_cmd_env; i++)
        extra_env[n_env++] = ct_xstrdup(cmd_env[i]);
    char *series_path = NULL;
    if (aa) {
        series_path = sw_xasprintf("%s/probe-segments", r->tmp_dir);
        extra_env[n_env++] = ct_xstrdup("SGC_ALTERNATE=none");
        extra_env[n_env++] = sw_xasprintf("SGC_ALT_OUT=%s", series_path);
        const char *segment = foreign && cmd->system->segment ? cmd->system->segment : r->alt_segment;
        if (segment)
            extra_env[n_env++] = sw_xasprintf("SGC_ALT_SEGMENT=%s", segment);
        unlink(series_path);
    }
    char **env = make_env(r, extra_env, n_env); /* points into extra_env: freed after the run */
    sw_exec_req req = {
        .path = path, .argv = argv, .envp = env, .cpu = r->cpu, .timeout = timeout, .counters = NULL, .stop = r->stop};
    char **sim_argv = NULL, *sim_opt = NULL, *argv0 = NULL;
    if (r->sim) {
        /* A probe: the counts are not wanted, so they go nowhere.  Started
         * as every simulated run is (sw_run_cell). */
        if (cmd) {
            path = absolute_path(path);
            req.path = path;
            argv0 = argv[0];
            argv[0] = path;
        }
        sim_argv = sw_sim_argv(r->valgrind, "/dev/null", argv, &sim_opt);
        req.path = r->valgrind;
        req.argv = sim_argv;
        req.cpu = -1;
        req.no_aslr = 1;
        req.cwd = r->tmp_dir;
    }
    int rc = sw_exec_run(&req, res);
    if (argv0)
        argv[0] = argv0;
    *checksum = sw_run_find_checksum(res->out.data);
    free(sim_argv);
    free(sim_opt);
    if (cmd)
        sw_cmd_free_strv(argv);
    else
        free(argv);
    sw_cmd_free_strv(cmd_env);
    free(words);
    free(env);
    free(path);
    for (int i = 0; i < n_env; i++)
        free(extra_env[i]);
    free(extra_env);
    if (series_path) {
        unlink(series_path);
        free(series_path);
    }
    if (rc == 0 && !res->timed_out && !res->interrupted && WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0)
        return 0;
    return -1;
}

int sw_run_plain(const sw_runner *r, const char *workload, const char *args, uint64_t size, const char *extra,
                 double timeout, sw_exec_res *res, char **checksum) {
    return run_plain(r, workload, args, size, extra, timeout, 0, res, checksum);
}

int sw_run_probe(const sw_runner *r, const char *workload, const char *args, uint64_t size, double timeout,
                 sw_exec_res *res, char **checksum) {
    return run_plain(r, workload, args, size, NULL, timeout, 1, res, checksum);
}

static uint64_t tv_ns(struct timeval tv) { return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u; }

void sw_run_to_row(const sw_run_result *res, const sw_cell *cell, int seq, int round, int cpu,
                   const sw_counters *counters, sw_run_row *row) {
    const sw_exec_res *e = &res->exec;
    memset(row, 0, sizeof *row);
    row->replicate = -1; /* the caller sets a replicated sweep's */
    row->cell_id = cell->id;
    row->round = round;
    row->seq = seq;
    row->status = res->failure ? "failed" : "ok";
    row->failure = res->failure;
    row->has_times = res->ran;
    row->wall_ns = e->wall_ns;
    row->user_ns = tv_ns(e->ru.ru_utime);
    row->sys_ns = tv_ns(e->ru.ru_stime);
    row->maxrss_kb = (uint64_t)e->ru.ru_maxrss;
    row->sgc_seed = res->sgc_seed;
    row->cpu = cpu;
    row->exit_code = res->ran && WIFEXITED(e->status) ? WEXITSTATUS(e->status) : -1;
    row->term_signal = res->ran && WIFSIGNALED(e->status) ? WTERMSIG(e->status) : -1;
    row->checksum = res->checksum;
    row->output_tail = res->tail;
    row->profile_bytes = res->profile_bytes;
    row->counter_errors = e->counter_errors.len ? e->counter_errors.data : NULL;
    row->started_ns = res->started_ns;
    row->stat_keys = res->stat_keys;
    row->stat_values = res->stat_values;
    row->n_stats = res->n_stats;
    row->counters = counters;
    row->readings = e->readings;
    row->segs = res->segs;
    row->n_segs = res->n_segs;
    row->series = &res->series;
    if (cell->sim) {
        row->counters = sw_run_sim_counters();
        row->readings = res->ran ? res->sim : NULL;
    }
}

const sw_counters *sw_run_sim_counters(void) {
    static sw_event events[SW_SIM_N];
    static sw_counters c;
    if (!c.n) {
        for (int m = 0; m < SW_SIM_N; m++)
            events[m] =
                (sw_event){.name = (char *)sw_sim_names[m], .supported = 1, .encoding = (char *)sw_sim_description};
        c = (sw_counters){.events = events, .n = SW_SIM_N, .n_supported = SW_SIM_N, .pfm_version = NULL};
    }
    return &c;
}

void sw_run_result_free(sw_run_result *res) {
    sw_exec_res_free(&res->exec);
    free(res->failure);
    free(res->checksum);
    free(res->tail);
    for (int i = 0; i < res->n_stats; i++) {
        free(res->stat_keys[i]);
        free(res->stat_values[i]);
    }
    free(res->stat_keys);
    free(res->stat_values);
    free(res->segs);
    memset(res, 0, sizeof *res);
}
