/* sw_cmd.c - command workloads: declarations, templates, argv and env. */
#define _GNU_SOURCE
#include "sw_cmd.h"
#include "sw_util.h"
#include "sgc_modes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sw_system **systems;
static int n_systems;
static sw_command **commands;
static int n_commands;
static char **note_labels, **note_whys;
static int n_notes;

static sw_system freecheck_system = {
    .name = "freecheck",
    .site = "folded into the allocation limit",
    .modes = (1u << SGC_SAMPLE_NMODES) - 1,
    .native = 1,
    .origin = "built in",
};

void sw_cmd_reset(void) {
    /* The declarations are small and live as long as the process; tests
     * reset between cases, so the old ones are simply dropped. */
    systems = NULL, n_systems = 0;
    commands = NULL, n_commands = 0;
    note_labels = note_whys = NULL, n_notes = 0;
}

/* ---- Words ------------------------------------------------------------- */

/* Splits a line into words at blanks; double quotes group blanks into a
 * word and are removed.  Returns the number of words, -1 for an unterminated
 * quote. */
static int split(const char *line, char ***out) {
    char **w = NULL;
    int n = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            break;
        sw_buf b = {0};
        sw_buf_puts(&b, "");
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            if (*p == '"') {
                const char *q = strchr(p + 1, '"');
                if (!q) {
                    sw_buf_free(&b);
                    for (int i = 0; i < n; i++)
                        free(w[i]);
                    free(w);
                    return -1;
                }
                sw_buf_append(&b, p + 1, (size_t)(q - p - 1));
                p = q + 1;
            } else {
                sw_buf_append(&b, p++, 1);
            }
        }
        w = ct_xrealloc(w, (size_t)(n + 1) * sizeof *w);
        w[n++] = b.data;
    }
    *out = w;
    return n;
}

static void free_words(char **w, int n) {
    for (int i = 0; i < n; i++)
        free(w[i]);
    free(w);
}

static int valid_name(const char *s) {
    if (!*s)
        return 0;
    for (const char *q = s; *q; q++)
        if (!(*q == '-' || *q == '_' || *q == '.' || (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') ||
              (*q >= 'A' && *q <= 'Z')))
            return 0;
    return 1;
}

/* ---- Placeholders -------------------------------------------------------- */

enum { PH_P = 1, PH_LOG2P = 2, PH_BIN = 4, PH_SIZE = 8, PH_MODE = 16 };

/* The placeholders a template uses (bits), or -1 with *bad set to the first
 * unknown one (fresh). */
static int placeholders(const char *t, char **bad) {
    int used = 0;
    for (const char *p = strchr(t, '{'); p; p = strchr(p + 1, '{')) {
        const char *e = strchr(p, '}');
        size_t len = e ? (size_t)(e - p + 1) : strlen(p);
        if (e && !strncmp(p, "{P}", len))
            used |= PH_P;
        else if (e && !strncmp(p, "{log2P}", len))
            used |= PH_LOG2P;
        else if (e && !strncmp(p, "{bin}", len))
            used |= PH_BIN;
        else if (e && !strncmp(p, "{size}", len))
            used |= PH_SIZE;
        else if (e && !strncmp(p, "{mode}", len))
            used |= PH_MODE;
        else {
            *bad = strndup(p, len);
            return -1;
        }
    }
    return used;
}

char *sw_cmd_expand(const char *tmpl, const char *bin, uint64_t size, uint64_t period, const char *mode,
                    const char **why) {
    sw_buf b = {0};
    sw_buf_puts(&b, "");
    for (const char *p = tmpl; *p;) {
        if (*p != '{') {
            size_t n = strcspn(p, "{");
            sw_buf_append(&b, p, n);
            p += n;
            continue;
        }
        if (!strncmp(p, "{P}", 3) && period) {
            sw_buf_printf(&b, "%llu", (unsigned long long)period);
            p += 3;
        } else if (!strncmp(p, "{log2P}", 7) && period) {
            if (period & (period - 1)) {
                *why = "{log2P} needs a period that is a power of two";
                sw_buf_free(&b);
                return NULL;
            }
            sw_buf_printf(&b, "%d", __builtin_ctzll(period));
            p += 7;
        } else if (!strncmp(p, "{mode}", 6) && period && mode) {
            sw_buf_puts(&b, mode);
            p += 6;
        } else if (!strncmp(p, "{bin}", 5) && bin) {
            sw_buf_puts(&b, bin);
            p += 5;
        } else if (!strncmp(p, "{size}", 6) && size) {
            sw_buf_printf(&b, "%llu", (unsigned long long)size);
            p += 6;
        } else {
            *why = "a placeholder that has no value here (only {P}, {log2P}, {mode} in alloc templates, {bin}, and "
                   "{size} in the command)";
            sw_buf_free(&b);
            return NULL;
        }
    }
    return b.data;
}

/* ---- Declarations -------------------------------------------------------- */

static SW_NORETURN SW_PRINTF(3, 4) void bad(const char *origin, int lineno, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    sw_usage_error("%s line %d: %s (docs/WORKLOADS.md, \"Measuring your own runtime\")", origin, lineno,
                   msg ? msg : "bad declaration");
}

/* Checks one template's placeholders against what its place allows. */
static void check_tmpl(const char *t, int allowed, const char *what, const char *origin, int lineno) {
    char *unknown = NULL;
    int used = placeholders(t, &unknown);
    if (used < 0)
        bad(origin, lineno, "%s '%s': unknown placeholder %s (known: {P}, {log2P}, {mode}, {bin}, {size}, {sampling})",
            what, t, unknown);
    if (used & ~allowed) {
        const char *ph = (used & ~allowed) & PH_P       ? "{P}"
                         : (used & ~allowed) & PH_LOG2P ? "{log2P}"
                         : (used & ~allowed) & PH_MODE  ? "{mode}"
                         : (used & ~allowed) & PH_SIZE  ? "{size}"
                                                        : "{bin}";
        bad(origin, lineno, "%s '%s': %s has no value there (%s)", what, t, ph,
            (used & ~allowed) & (PH_P | PH_LOG2P | PH_MODE) ? "{P}, {log2P} and {mode} belong in alloc templates"
                                                            : "{size} belongs in the command");
    }
}

static void tmpl_add(sw_tmpl *t, int env, const char *value) {
    if (env) {
        t->env = ct_xrealloc(t->env, (size_t)(t->n_env + 1) * sizeof *t->env);
        t->env[t->n_env++] = ct_xstrdup(value);
    } else {
        t->args = ct_xrealloc(t->args, (size_t)(t->n_args + 1) * sizeof *t->args);
        t->args[t->n_args++] = ct_xstrdup(value);
    }
}

/* Applies one key=value word of a system line to s (the word is cut at its
 * '='); a bad key or value stops with the line's origin. */
static void system_key(sw_system *s, char *word, const char *origin, int lineno) {
    char *eq = strchr(word, '=');
    if (!eq)
        bad(origin, lineno,
            "'%s' is not key=value (keys: site, modes, alloc-env, alloc-arg, off-env, off-arg, inprocess, inprocess-env, inprocess-alloc-env, inprocess-alloc-arg, segment, sim-env, calibrate)",
            word);
    *eq = '\0';
    const char *key = word, *v = eq + 1;
    if (!strcmp(key, "site")) {
        free(s->site);
        s->site = ct_xstrdup(v);
    } else if (!strcmp(key, "modes")) {
        s->modes = 0;
        char *copy = ct_xstrdup(v), *save;
        for (char *m = strtok_r(copy, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
            int k = sgc_alloc_mode_parse(m);
            if (k < 0)
                bad(origin, lineno, "modes: '%s' is not an allocation sampling mode (fixed, poisson)", m);
            s->modes |= 1u << k;
        }
        free(copy);
        if (!s->modes)
            bad(origin, lineno, "modes: empty");
    } else if (!strcmp(key, "inprocess")) {
        if (!strcmp(v, "yes"))
            s->inprocess = 1;
        else if (!strcmp(v, "no"))
            s->inprocess = 0;
        else
            bad(origin, lineno, "inprocess: '%s' is not yes or no", v);
    } else if (!strcmp(key, "segment")) {
        /* SGC_ALT_SEGMENT's forms (docs/FORMATS.md): a CPU time Nms,
         * 1..60000, or a count K of collections, 1..1000000. */
        size_t d = strspn(v, "0123456789");
        long k = d && d <= 7 ? strtol(v, NULL, 10) : 0;
        int ms = !strcmp(v + d, "ms");
        if (!d || (v[d] && !ms) || v[0] == '0' || k < 1 || k > (ms ? 60000 : 1000000))
            bad(origin, lineno,
                "segment: '%s' is not a segment length: Nms with N from 1 to 60000 (CPU time), or K from 1 to "
                "1000000 (collections)",
                v);
        free(s->segment);
        s->segment = ct_xstrdup(v);
    } else if (!strcmp(key, "calibrate")) {
        if (!strcmp(v, "work"))
            s->calibrate_work = 1;
        else if (!strcmp(v, "run"))
            s->calibrate_work = 0;
        else
            bad(origin, lineno,
                "calibrate: '%s' is not work (the target excludes the command's fixed cost) or run (the whole "
                "run's CPU time, the default)",
                v);
    } else if (!strcmp(key, "alloc-env") || !strcmp(key, "off-env") || !strcmp(key, "alloc-arg") ||
               !strcmp(key, "off-arg") || !strcmp(key, "inprocess-alloc-env") || !strcmp(key, "inprocess-alloc-arg") ||
               !strcmp(key, "sim-env") || !strcmp(key, "inprocess-env")) {
        int inproc = !strncmp(key, "inprocess-", 10), sim = !strcmp(key, "sim-env");
        int inproc_all = !strcmp(key, "inprocess-env");
        int alloc = key[inproc ? 10 : 0] == 'a', env = !strcmp(key + strlen(key) - 3, "env");
        if (env) {
            const char *e2 = strchr(v, '=');
            char *name = e2 ? strndup(v, (size_t)(e2 - v)) : NULL;
            int ok = name && *name &&
                     strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == strlen(name);
            if (!ok)
                bad(origin, lineno, "%s: '%s' is not NAME=VALUE", key, v);
            if (!strncmp(name, "SGC_", 4))
                bad(origin, lineno, "%s: %s: the SGC_* variables are freecheck's runtime's, set by the harness", key,
                    name);
            free(name);
        }
        check_tmpl(v, alloc ? PH_P | PH_LOG2P | PH_MODE | PH_BIN : PH_BIN, key, origin, lineno);
        if (alloc && strstr(v, "{log2P}"))
            s->log2 = 1;
        tmpl_add(sim          ? &s->sim
                 : inproc_all ? &s->inproc
                 : inproc     ? &s->inproc_alloc
                 : alloc      ? &s->alloc
                              : &s->off,
                 env, v);
    } else {
        bad(origin, lineno,
            "unknown key '%s' (keys: site, modes, alloc-env, alloc-arg, off-env, off-arg, inprocess, inprocess-env, inprocess-alloc-env, inprocess-alloc-arg, segment, sim-env, calibrate)",
            key);
    }
}

/* Checks the whole declaration once every key is read (a period in the alloc
 * templates, the in-process settings only with inprocess=yes, no variable
 * given twice) and fills the defaults (modes, site). */
static void system_check(sw_system *s, const char *origin, int lineno) {
    if (!s->alloc.n_env && !s->alloc.n_args)
        bad(origin, lineno, "system %s has no allocation sampling template (alloc-env=... or alloc-arg=...)", s->name);
    int uses_p = 0, uses_mode = 0;
    for (int i = 0; i < s->alloc.n_env + s->alloc.n_args; i++) {
        const char *t = i < s->alloc.n_env ? s->alloc.env[i] : s->alloc.args[i - s->alloc.n_env];
        uses_p |= strstr(t, "{P}") || strstr(t, "{log2P}");
        uses_mode |= strstr(t, "{mode}") != NULL;
    }
    if (!uses_p)
        bad(origin, lineno, "system %s: no alloc template uses the period ({P} or {log2P})", s->name);
    int inproc_p = 0;
    for (int i = 0; i < s->inproc_alloc.n_env + s->inproc_alloc.n_args; i++) {
        const char *t =
            i < s->inproc_alloc.n_env ? s->inproc_alloc.env[i] : s->inproc_alloc.args[i - s->inproc_alloc.n_env];
        inproc_p |= strstr(t, "{P}") || strstr(t, "{log2P}");
    }
    if (s->inproc_alloc.n_env + s->inproc_alloc.n_args && !inproc_p)
        bad(origin, lineno, "system %s: no inprocess-alloc template uses the period ({P} or {log2P})", s->name);
    if (!s->inprocess && (s->inproc_alloc.n_env + s->inproc_alloc.n_args || s->inproc.n_env || s->segment))
        bad(origin, lineno,
            "system %s: inprocess-env, inprocess-alloc-* and segment= are settings of the in-process design, which "
            "the system does not declare (inprocess=yes)",
            s->name);
    /* A variable of inprocess-env or sim-env added to a run whose template
     * sets it too would be given twice (an in-process run takes off or
     * inprocess-alloc/alloc; a simulated one off or alloc; never both). */
    const sw_tmpl *extra[2] = {&s->inproc, &s->sim};
    const sw_tmpl *base[3] = {&s->off, &s->alloc, &s->inproc_alloc};
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < extra[e]->n_env; i++) {
            size_t nl = strcspn(extra[e]->env[i], "=");
            for (int b = 0; b < (e ? 2 : 3); b++)
                for (int j = 0; j < base[b]->n_env; j++)
                    if (base[b] != extra[e] && !strncmp(base[b]->env[j], extra[e]->env[i], nl + 1))
                        bad(origin, lineno,
                            "system %s: %s sets %.*s, which another of its templates sets too (a run would get "
                            "it twice): give the variable one template",
                            s->name, e ? "sim-env" : "inprocess-env", (int)nl, extra[e]->env[i]);
        }
    if (s->inproc_alloc.n_args && !s->alloc.n_args)
        bad(origin, lineno,
            "system %s: inprocess-alloc-arg words replace the alloc-arg words at {sampling}, which it has none of",
            s->name);
    if (!s->modes)
        s->modes = 1u << sgc_alloc_mode_parse("poisson");
    if ((s->modes & (s->modes - 1)) && !uses_mode)
        bad(origin, lineno, "system %s samples in more than one mode (modes=) but no alloc template passes {mode}",
            s->name);
    if (!s->site)
        s->site = ct_xstrdup("unknown");
}

/* Parses a system line: its name, each key=value word, the whole-system
 * checks, then adds it to the systems. */
static void parse_system(char **w, int n, const char *origin, int lineno) {
    if (n < 2 || !valid_name(w[1]))
        bad(origin, lineno, "'system' needs a name of letters, digits, '-', '_', '.'");
    if (sw_cmd_system(w[1]))
        bad(origin, lineno, "system %s is declared twice%s", w[1],
            !strcmp(w[1], freecheck_system.name) ? " (freecheck is built in)" : "");
    sw_system *s = ct_xcalloc(1, sizeof *s);
    s->name = ct_xstrdup(w[1]);
    s->origin = sw_xasprintf("%s line %d", origin, lineno);
    for (int i = 2; i < n; i++)
        system_key(s, w[i], origin, lineno);
    system_check(s, origin, lineno);
    systems = ct_xrealloc(systems, (size_t)(n_systems + 1) * sizeof *systems);
    systems[n_systems++] = s;
}

static void parse_command(char **w, int n, const char *origin, int lineno) {
    if (n < 2 || !valid_name(w[1]))
        bad(origin, lineno, "'command' needs a workload name of letters, digits, '-', '_', '.'");
    if (sw_cmd_find(w[1]))
        bad(origin, lineno, "command %s is declared twice", w[1]);
    sw_command *c = ct_xcalloc(1, sizeof *c);
    c->name = ct_xstrdup(w[1]);
    c->origin = sw_xasprintf("%s line %d", origin, lineno);
    c->check = SW_CHECK_SELF;
    int i = 2, check_given = 0;
    for (; i < n && strcmp(w[i], "--"); i++) {
        char *eq = strchr(w[i], '=');
        if (!eq)
            bad(origin, lineno,
                "'%s' is not key=value (keys: system, check, optional, needs, why-missing, sim-size; then -- and the command)",
                w[i]);
        *eq = '\0';
        const char *key = w[i], *v = eq + 1;
        if (!strcmp(key, "system")) {
            c->system = sw_cmd_system(v);
            if (!c->system)
                bad(origin, lineno, "system '%s' is not declared above (systems are declared before their commands)",
                    v);
        } else if (!strcmp(key, "check")) {
            check_given = 1;
            free(c->like);
            c->like = NULL;
            if (!strncmp(v, "like:", 5) && valid_name(v + 5)) {
                c->check = SW_CHECK_LIKE;
                c->like = ct_xstrdup(v + 5);
            } else if (!strcmp(v, "self"))
                c->check = SW_CHECK_SELF;
            else if (!strcmp(v, "flag"))
                c->check = SW_CHECK_FLAG;
            else if (!strcmp(v, "none"))
                c->check = SW_CHECK_NONE;
            else
                bad(origin, lineno, "check: '%s' is not like:WORKLOAD, self, flag or none", v);
        } else if (!strcmp(key, "optional")) {
            if (!strcmp(v, "yes"))
                c->optional = 1;
            else if (!strcmp(v, "no"))
                c->optional = 0;
            else
                bad(origin, lineno, "optional: '%s' is not yes or no", v);
        } else if (!strcmp(key, "why-missing")) {
            check_tmpl(v, PH_BIN, "why-missing", origin, lineno);
            free(c->why_missing);
            c->why_missing = ct_xstrdup(v);
        } else if (!strcmp(key, "sim-size")) {
            char *end;
            errno = 0;
            unsigned long long z = strtoull(v, &end, 10);
            if (!*v || *end || errno || !z || *v == '-' || *v == '+')
                bad(origin, lineno, "sim-size: '%s' is not a size of 1 or more", v);
            c->sim_size = (uint64_t)z;
        } else if (!strcmp(key, "needs")) {
            check_tmpl(v, PH_BIN, "needs", origin, lineno);
            c->needs = ct_xrealloc(c->needs, (size_t)(c->n_needs + 1) * sizeof *c->needs);
            c->needs[c->n_needs++] = ct_xstrdup(v);
        } else {
            bad(origin, lineno,
                "unknown key '%s' (keys: system, check, optional, needs, why-missing, sim-size; then -- and the command)",
                key);
        }
    }
    (void)check_given;
    if (!c->system)
        bad(origin, lineno, "command %s names no system (system=NAME; freecheck is built in)", c->name);
    if (i >= n - 1)
        bad(origin, lineno, "command %s has no command line (after ' -- ')", c->name);
    int sampling = 0;
    for (int k = i + 1; k < n; k++) {
        if (!strcmp(w[k], "{sampling}")) {
            if (k == i + 1)
                bad(origin, lineno, "{sampling} cannot be the program");
            sampling++;
        } else {
            check_tmpl(w[k], PH_BIN | PH_SIZE, "command word", origin, lineno);
        }
        if (strstr(w[k], "{size}"))
            c->sized = 1;
        c->words = ct_xrealloc(c->words, (size_t)(c->n_words + 1) * sizeof *c->words);
        c->words[c->n_words++] = ct_xstrdup(w[k]);
    }
    if (sampling > 1)
        bad(origin, lineno, "{sampling} appears more than once");
    if ((c->system->alloc.n_args || c->system->off.n_args) && !sampling)
        bad(origin, lineno,
            "system %s passes its setting as arguments (alloc-arg/off-arg): the command needs a {sampling} word where "
            "they go",
            c->system->name);
    if (c->check == SW_CHECK_LIKE && !c->sized)
        bad(origin, lineno, "check like:%s compares with %s --size N: the command needs {size}", c->like, c->like);
    if (c->sim_size && !c->sized)
        bad(origin, lineno, "sim-size=%llu: command %s takes no {size}", (unsigned long long)c->sim_size, c->name);
    commands = ct_xrealloc(commands, (size_t)(n_commands + 1) * sizeof *commands);
    commands[n_commands++] = c;
}

int sw_cmd_list_line(const char *line, char **name) {
    const char *p = line + strspn(line, " \t\r\n");
    size_t len = strcspn(p, " \t\r\n");
    *name = NULL;
    if (len == 6 && !strncmp(p, "system", 6))
        return 1;
    if (len == 7 && !strncmp(p, "command", 7)) {
        p += len;
        p += strspn(p, " \t");
        *name = strndup(p, strcspn(p, " \t\r\n"));
        return 2;
    }
    return 0;
}

int sw_cmd_load_text(const char *text, const char *origin) {
    int before = n_commands, lineno = 0;
    for (const char *line = text; line && *line;) {
        lineno++;
        const char *end = strchr(line, '\n');
        char *copy = end ? strndup(line, (size_t)(end - line)) : ct_xstrdup(line);
        /* '#' starts a comment, outside double quotes */
        int quoted = 0;
        for (char *q = copy; *q; q++) {
            if (*q == '"')
                quoted = !quoted;
            else if (*q == '#' && !quoted) {
                *q = '\0';
                break;
            }
        }
        char *name;
        int kind = sw_cmd_list_line(copy, &name);
        free(name);
        if (kind) {
            char **w;
            int n = split(copy, &w);
            if (n < 0)
                bad(origin, lineno, "a double quote is not closed");
            if (kind == 1)
                parse_system(w, n, origin, lineno);
            else
                parse_command(w, n, origin, lineno);
            free_words(w, n);
        }
        free(copy);
        line = end ? end + 1 : NULL;
    }
    return n_commands - before;
}

/* ---- Queries ------------------------------------------------------------- */

const sw_command *sw_cmd_find(const char *name) {
    for (int i = 0; i < n_commands; i++)
        if (!strcmp(commands[i]->name, name))
            return commands[i];
    return NULL;
}

const sw_system *sw_cmd_system(const char *name) {
    if (!strcmp(name, freecheck_system.name))
        return &freecheck_system;
    for (int i = 0; i < n_systems; i++)
        if (!strcmp(systems[i]->name, name))
            return systems[i];
    return NULL;
}

const sw_system *sw_cmd_system_of(const char *workload) {
    const sw_command *c = sw_cmd_find(workload);
    return c ? c->system : &freecheck_system;
}

static int plan_inprocess;

void sw_cmd_plan_design(int inprocess) { plan_inprocess = inprocess; }

const char *sw_cmd_cannot(const char *workload, uint64_t period, const char *mode, unsigned hz, unsigned depth) {
    return sw_cmd_cannot_cell(workload, period, mode, hz, depth, 0);
}

const char *sw_cmd_cannot_cell(const char *workload, uint64_t period, const char *mode, unsigned hz, unsigned depth,
                               int sim) {
    const sw_command *c = sw_cmd_find(workload);
    if (!c)
        return NULL;
    if (depth)
        return "depth cells belong to freecheck's deepstack workload";
    const sw_system *s = c->system;
    if (s->native)
        return NULL;
    if (plan_inprocess && !sim && !s->inprocess)
        return "its system does not declare that its programs speak the in-process protocol (inprocess=yes on its "
               "system line, docs/WORKLOADS.md): in the in-process design they would write no segment series";
    if (hz)
        return "its system has no time sampling template (only freecheck's runtime has a time sampler here)";
    if (period) {
        int m = sgc_alloc_mode_parse(mode);
        if (m < 0 || !(s->modes & (1u << m)))
            return "its system does not sample in this mode (the system's modes=)";
        if (s->log2 && (period & (period - 1)))
            return "its system's setting is log2 of the period ({log2P}): the period is not a power of two";
    }
    return NULL;
}

void sw_cmd_note(const char *label, const char *why) {
    for (int i = 0; i < n_notes; i++)
        if (!strcmp(note_labels[i], label))
            return;
    note_labels = ct_xrealloc(note_labels, (size_t)(n_notes + 1) * sizeof *note_labels);
    note_whys = ct_xrealloc(note_whys, (size_t)(n_notes + 1) * sizeof *note_whys);
    note_labels[n_notes] = ct_xstrdup(label);
    note_whys[n_notes++] = ct_xstrdup(why);
}

int sw_cmd_notes(const char *const **labels, const char *const **whys) {
    *labels = (const char *const *)note_labels;
    *whys = (const char *const *)note_whys;
    return n_notes;
}

/* ---- Runs ---------------------------------------------------------------- */

static int executable(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The command's program (its first word expanded, looked up in PATH without
 * a '/'), fresh, or NULL with *why (fresh). */
static char *find_program(const sw_command *c, const char *bin, char **why) {
    const char *e;
    *why = NULL;
    char *prog = sw_cmd_expand(c->words[0], bin, 1, 0, NULL, &e);
    if (!prog) {
        *why = sw_xasprintf("%s: %s", c->words[0], e);
        return NULL;
    }
    char *path = NULL;
    if (strchr(prog, '/')) {
        if (executable(prog))
            path = ct_xstrdup(prog);
        else
            *why = sw_xasprintf("%s is not an executable program (%s)", prog,
                                access(prog, F_OK) ? strerror(errno) : "not an executable file");
    } else {
        const char *env_path = getenv("PATH");
        char *dirs = ct_xstrdup(env_path ? env_path : "/usr/bin:/bin"), *save;
        for (char *d = strtok_r(dirs, ":", &save); d && !path; d = strtok_r(NULL, ":", &save)) {
            char *cand = sw_xasprintf("%s/%s", *d ? d : ".", prog);
            if (executable(cand))
                path = cand;
            else
                free(cand);
        }
        free(dirs);
        if (!path)
            *why = sw_xasprintf("%s is not a program in PATH", prog);
    }
    free(prog);
    return path;
}

char *sw_cmd_program(const sw_command *c, const char *bin, char **why) {
    const char *e;
    char *path = find_program(c, bin, why);
    for (int i = 0; path && i < c->n_needs; i++) {
        char *need = sw_cmd_expand(c->needs[i], bin, 1, 0, NULL, &e);
        if (need && access(need, F_OK) != 0) {
            *why = sw_xasprintf("%s (needs=) is missing: %s", need, strerror(errno));
            free(path);
            path = NULL;
        }
        free(need);
    }
    return path;
}

static void push(char ***v, int *n, char *s) {
    *v = ct_xrealloc(*v, (size_t)(*n + 2) * sizeof **v);
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

static char *expand_or_die(const char *t, const char *bin, uint64_t size, uint64_t period, const char *mode,
                           const char *origin) {
    const char *why;
    char *s = sw_cmd_expand(t, bin, size, period, mode, &why);
    if (!s)
        sw_fatal("%s: '%s': %s", origin, t, why); /* refused at load or planning; never here */
    return s;
}

int sw_cmd_files(const sw_command *c, const char *bin, char ***paths) {
    char **v = ct_xcalloc((size_t)c->n_needs + 2, sizeof *v), *why; /* NULL-terminated */
    const char *e;
    v[0] = find_program(c, bin, &why);
    if (!v[0])
        v[0] = sw_cmd_expand(c->words[0], bin, 1, 0, NULL, &e);
    if (!v[0])
        v[0] = ct_xstrdup(c->words[0]);
    free(why);
    int n = 1;
    for (int i = 0; i < c->n_needs; i++) {
        v[n] = sw_cmd_expand(c->needs[i], bin, 1, 0, NULL, &e);
        if (!v[n])
            v[n] = ct_xstrdup(c->needs[i]);
        n++;
    }
    /* The other words that name a file: an interpreter's script (node
     * bench.js) is as much the program as the interpreter. */
    for (int i = 1; i < c->n_words; i++) {
        if (!strcmp(c->words[i], "{sampling}") || strstr(c->words[i], "{size}"))
            continue;
        char *w = sw_cmd_expand(c->words[i], bin, 1, 0, NULL, &e);
        struct stat st;
        int dup = 0;
        for (int k = 0; w && k < n; k++)
            dup |= !strcmp(v[k], w);
        if (w && !dup && stat(w, &st) == 0 && S_ISREG(st.st_mode)) {
            v = ct_xrealloc(v, (size_t)(n + 2) * sizeof *v);
            v[n++] = w;
            v[n] = NULL;
        } else {
            free(w);
        }
    }
    *paths = v;
    return n;
}

/* The template of a run: off without a period, else the in-process one
 * when the context and the system have it, else alloc. */
static const sw_tmpl *run_tmpl(const sw_system *s, uint64_t period, sw_cmd_ctx ctx, int env) {
    if (!period)
        return &s->off;
    if (ctx == SW_CTX_INPROCESS && (env ? s->inproc_alloc.n_env : s->inproc_alloc.n_args))
        return &s->inproc_alloc;
    return &s->alloc;
}

char **sw_cmd_argv(const sw_command *c, const char *bin, uint64_t size, uint64_t period, const char *mode,
                   const char *extra, char **path) {
    return sw_cmd_argv_ctx(c, bin, size, period, mode, extra, SW_CTX_TIMED, path);
}

char **sw_cmd_argv_ctx(const sw_command *c, const char *bin, uint64_t size, uint64_t period, const char *mode,
                       const char *extra, sw_cmd_ctx ctx, char **path) {
    char **v = NULL;
    int n = 0;
    const sw_tmpl *t = run_tmpl(c->system, period, ctx, 0);
    for (int i = 0; i < c->n_words; i++) {
        if (!strcmp(c->words[i], "{sampling}")) {
            for (int k = 0; k < t->n_args; k++)
                push(&v, &n, expand_or_die(t->args[k], bin, size, period, mode, c->system->origin));
        } else {
            push(&v, &n, expand_or_die(c->words[i], bin, size ? size : 1, 0, NULL, c->origin));
        }
    }
    if (extra)
        push(&v, &n, ct_xstrdup(extra));
    char *why = NULL;
    *path = sw_cmd_program(c, bin, &why);
    if (!*path) {
        /* It was there when the sweep started: exec reports the error. */
        free(why);
        *path = ct_xstrdup(v[0]);
    }
    return v;
}

char **sw_cmd_env(const sw_system *s, const char *bin, uint64_t period, const char *mode) {
    return sw_cmd_env_ctx(s, bin, period, mode, SW_CTX_TIMED);
}

char **sw_cmd_env_ctx(const sw_system *s, const char *bin, uint64_t period, const char *mode, sw_cmd_ctx ctx) {
    char **v = ct_xcalloc(1, sizeof *v);
    int n = 0;
    const sw_tmpl *t = run_tmpl(s, period, ctx, 1);
    for (int i = 0; i < t->n_env; i++)
        push(&v, &n, expand_or_die(t->env[i], bin, 1, period, mode, s->origin));
    for (int i = 0; ctx == SW_CTX_SIM && i < s->sim.n_env; i++)
        push(&v, &n, expand_or_die(s->sim.env[i], bin, 1, 0, NULL, s->origin));
    for (int i = 0; ctx == SW_CTX_INPROCESS && i < s->inproc.n_env; i++)
        push(&v, &n, expand_or_die(s->inproc.env[i], bin, 1, 0, NULL, s->origin));
    return v;
}

void sw_cmd_free_strv(char **v) {
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

const char *sw_cmd_check_name(const sw_command *c) {
    static __thread char buf[160];
    switch (c->check) {
    case SW_CHECK_LIKE: snprintf(buf, sizeof buf, "like:%s", c->like); return buf;
    case SW_CHECK_SELF: return "self";
    case SW_CHECK_FLAG: return "flag";
    default: return "none";
    }
}

static void describe_tmpl(sw_buf *b, const char *prefix, const sw_tmpl *t) {
    for (int i = 0; i < t->n_env; i++)
        sw_buf_printf(b, " %s-env=\"%s\"", prefix, t->env[i]);
    for (int i = 0; i < t->n_args; i++)
        sw_buf_printf(b, " %s-arg=\"%s\"", prefix, t->args[i]);
}

char *sw_cmd_describe(void) {
    sw_buf b = {0};
    sw_buf_puts(&b, "");
    for (int i = 0; i < n_systems; i++) {
        const sw_system *s = systems[i];
        sw_buf_printf(&b, "system %s site=\"%s\" modes=", s->name, s->site);
        const char *sep = "";
        for (int m = 0; m < SGC_SAMPLE_NMODES; m++)
            if (s->modes & (1u << m)) {
                sw_buf_printf(&b, "%s%s", sep, sgc_alloc_mode_name(m));
                sep = ",";
            }
        describe_tmpl(&b, "alloc", &s->alloc);
        describe_tmpl(&b, "off", &s->off);
        /* The keys of later versions only when used, so that a sweep stored
         * before them resumes with the same declarations. */
        if (s->inprocess)
            sw_buf_puts(&b, " inprocess=yes");
        describe_tmpl(&b, "inprocess", &s->inproc);
        describe_tmpl(&b, "inprocess-alloc", &s->inproc_alloc);
        if (s->segment)
            sw_buf_printf(&b, " segment=%s", s->segment);
        describe_tmpl(&b, "sim", &s->sim);
        if (s->calibrate_work)
            sw_buf_puts(&b, " calibrate=work");
        sw_buf_puts(&b, "\n");
    }
    for (int i = 0; i < n_commands; i++) {
        const sw_command *c = commands[i];
        sw_buf_printf(&b, "command %s system=%s check=%s optional=%s", c->name, c->system->name, sw_cmd_check_name(c),
                      c->optional ? "yes" : "no");
        for (int k = 0; k < c->n_needs; k++)
            sw_buf_printf(&b, " needs=\"%s\"", c->needs[k]);
        if (c->sim_size)
            sw_buf_printf(&b, " sim-size=%llu", (unsigned long long)c->sim_size);
        sw_buf_puts(&b, " --");
        for (int k = 0; k < c->n_words; k++)
            sw_buf_printf(&b, " \"%s\"", c->words[k]);
        sw_buf_puts(&b, "\n");
    }
    return b.data;
}

/* ---- The sweep's workloads ------------------------------------------------ */

static char **skip_names, **skip_whys;
static int n_skips;

int sw_cmd_resolve(char **workloads, int n, const char *bin) {
    int kept = 0;
    for (int i = 0; i < n; i++) {
        const sw_command *c = sw_cmd_find(workloads[i]);
        char *why = NULL, *path = c ? sw_cmd_program(c, bin, &why) : NULL;
        if (c && path && c->check == SW_CHECK_LIKE) {
            char *ref = sw_xasprintf("%s/%s", bin, c->like);
            if (!executable(ref))
                why = sw_xasprintf("its reference, freecheck's workload %s (check=like:%s), is not built at %s",
                                   c->like, c->like, ref);
            free(ref);
        }
        free(path);
        if (!why) {
            workloads[kept++] = workloads[i];
            continue;
        }
        /* The build's own word on why the program is not there. */
        const char *e;
        char *wm = c->why_missing ? sw_cmd_expand(c->why_missing, bin, 1, 0, NULL, &e) : NULL;
        char *said = wm ? sw_read_file_max(wm, 65536) : NULL; /* its first line is wanted */
        if (said) {
            said[strcspn(said, "\n")] = '\0';
            char *both = sw_xasprintf("%s: %s", why, said);
            free(why);
            why = both;
        }
        free(said), free(wm);
        if (!c->optional)
            sw_usage_error("workload '%s' (%s): %s; build it, or declare it optional=yes to skip it when missing",
                           c->name, c->origin, why);
        fprintf(stderr, "sweep: skipping workload %s (system %s): %s\n", c->name, c->system->name, why);
        skip_names = ct_xrealloc(skip_names, (size_t)(n_skips + 1) * sizeof *skip_names);
        skip_whys = ct_xrealloc(skip_whys, (size_t)(n_skips + 1) * sizeof *skip_whys);
        skip_names[n_skips] = workloads[i];
        skip_whys[n_skips++] = why;
    }
    if (!kept && n)
        sw_usage_error("no workloads to run: every one was skipped (above)");
    return kept;
}

int sw_cmd_skipped(const char *const **names, const char *const **whys) {
    *names = (const char *const *)skip_names;
    *whys = (const char *const *)skip_whys;
    return n_skips;
}

void sw_cmd_store_meta(void (*meta_set)(void *ctx, const char *key, const char *value), void *ctx,
                       char *const *workloads, int n) {
    char *d = sw_cmd_describe();
    meta_set(ctx, "commands", *d ? d : "none");
    free(d);
    sw_buf b = {0};
    for (int i = 0; i < n_skips; i++)
        sw_buf_printf(&b, "%s%s (system %s): %s", i ? "; " : "", skip_names[i],
                      sw_cmd_find(skip_names[i])->system->name, skip_whys[i]);
    meta_set(ctx, "skipped", n_skips ? b.data : "none");
    sw_buf_free(&b);
    for (int i = 0; i < n_notes; i++) {
        sw_buf_printf(&b, "%s%s: %s", i ? "; " : "", note_labels[i], note_whys[i]);
        fprintf(stderr, "sweep: not planned: %s: %s\n", note_labels[i], note_whys[i]);
    }
    meta_set(ctx, "not_planned", n_notes ? b.data : "none");
    sw_buf_free(&b);
    /* Which system each workload runs on, and where that system's check
     * lives: what the peers report groups by (docs/WORKLOADS.md). */
    for (int i = 0; i < n + n_skips; i++) {
        const char *w = i < n ? workloads[i] : skip_names[i - n];
        const sw_system *s = sw_cmd_system_of(w);
        char *key = sw_xasprintf("workload_system:%s", w);
        meta_set(ctx, key, s->name);
        free(key);
        key = sw_xasprintf("system_site:%s", s->name);
        meta_set(ctx, key, s->site);
        free(key);
    }
}

void sw_cmd_check_stored(const char *stored, const char *dir) {
    char *now = sw_cmd_describe();
    const char *cur = *now ? now : "none";
    if (stored && strcmp(stored, cur))
        sw_usage_error("--resume %s: the command workload declarations in the workload list changed since the sweep "
                       "started (meta 'commands'); resuming would mix two settings in one sweep",
                       dir);
    free(now);
}
