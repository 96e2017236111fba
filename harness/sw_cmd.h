/* sw_cmd.h - command workloads: any command line as a workload of the sweep,
 * with the sampling axes mapped to the settings of the system it runs on
 * (docs/WORKLOADS.md, "Measuring your own runtime").
 *
 * Declarations live in the workload list (--list), one per line, beside the
 * plain names of freecheck's own workloads:
 *
 *   system NAME site=TEXT modes=LIST alloc-env=NAME=VALUE alloc-arg=WORD
 *          off-env=NAME=VALUE off-arg=WORD           (keys repeatable: -env, -arg)
 *          [inprocess=yes [inprocess-env=NAME=VALUE] [inprocess-alloc-env=NAME=VALUE]
 *           [inprocess-alloc-arg=WORD] [segment=Nms|K]] [sim-env=NAME=VALUE] [calibrate=work]
 *   command NAME system=SYS check=CHECK [optional=yes] [needs=PATH]
 *           [why-missing=FILE] [sim-size=N] -- WORD...
 *
 * Invariants:
 *  - The registry is process-wide: filled once (sw_cmd_load_text) before
 *    the plan is made, read-only afterwards (threads only read it).
 *  - A bad declaration (unknown key, placeholder out of place, a system
 *    without an allocation template, a duplicate name...) is bad input:
 *    "<file> line <n>: <what>", exit 2, before anything is created.
 *  - Placeholders: {P} (the period in bytes), {log2P} (its base-2
 *    logarithm) and {mode} (the cell's mode: fixed, poisson; required when
 *    a system declares more than one) in alloc templates only; {bin} (the sweep's --bin-dir)
 *    anywhere; {size} (the run's --size) and the whole word {sampling} (the
 *    system's -arg template words for the run) in the command only.  Any
 *    other {...} is refused.  A command with {size} is calibrated like any
 *    workload; one without takes a fixed amount of work (size 1, method
 *    "fixed").
 *  - The built-in system "freecheck" is freecheck's runtime: the harness's
 *    SGC_* settings are its settings, every mode and time sampling.  Any
 *    other system gets only SGC_STATS and SGC_SEED from the harness plus
 *    its own templates: off-* for runs without sampling (baselines,
 *    calibration, references), alloc-* for alloc cells.  Such a system has
 *    no time sampling and only its declared modes; a cell it cannot do
 *    (sw_cmd_cannot) is not planned, and the plan says why.
 *  - A template variable replaces the same variable of the harness's own
 *    environment (sw_run's make_env), so the user's shell cannot override
 *    the cell's setting.
 *  - check: like:NAME (the reference checksum is freecheck's workload NAME
 *    --size N --check), self (the reference is a plain run of the command
 *    itself), flag (the command takes --check, like freecheck's), none (no
 *    checksum: the exit status and the stats record judge the run).
 *  - The in-process design (docs/FORMATS.md, "The segment series"): a
 *    system that declares inprocess=yes has programs that speak the
 *    protocol (SGC_ALTERNATE, SGC_ALT_SEGMENT, SGC_ALT_OUT, SGC_SEED) and
 *    write the series; only its commands are planned in that design (the
 *    others' cells are not planned, with the reason).  Its alloc cells
 *    there take the inprocess-alloc-* templates when it declares any (the
 *    sampler configured but switched off until the series switches it:
 *    jemalloc's prof_active:false), else the alloc-* ones; its baselines
 *    the off-* ones (and SGC_ALTERNATE=none); every in-process run of it
 *    also gets inprocess-env (V8's --single-threaded, say).  segment= is its
 *    SGC_ALT_SEGMENT: a CPU time Nms or a count K of collections (default:
 *    the sweep's, i.e. the writer's default).  No variable is set by two of
 *    a system's templates that a run could get together (exit 2).
 *  - sim-env= (repeatable) are the system's determinism settings: added to
 *    every run under valgrind (simulated cells and their calibration
 *    probes), after the cell's own templates, so that repeated runs count
 *    the same (GOGC=off for Go, say); never to timed runs.
 *  - sim-size=N: the size of the command's simulated cells when no
 *    --sim-size names it (a run under valgrind that calibration would make
 *    too short or too long: gcbench-v8's); only with {size}.
 *  - calibrate=work: the calibration target is the CPU time of the work
 *    beyond the command's fixed cost (start-up), the cost estimated from
 *    the first two probes (sizes N and 2N: 2 t(N) - t(2N)); without it the
 *    whole run's CPU time is the target, as for freecheck's workloads.
 *  - The files a command depends on (sw_cmd_files, hashed by the sweep)
 *    are its program, its needs= paths and every other word of its command
 *    line that names an existing regular file (an interpreted program's
 *    script: node bench.js).
 *  - A command whose program (or a needs= path) is missing exits 2, unless
 *    it is optional=yes: then it is left out of the plan with the reason
 *    (printed, and stored in meta "skipped"; with the first line of its
 *    why-missing= file when that exists), never run or faked.
 */
#ifndef SW_CMD_H
#define SW_CMD_H

#include <stdint.h>

/* How a command's output is checked. */
typedef enum sw_cmd_check { SW_CHECK_LIKE = 0, SW_CHECK_SELF, SW_CHECK_FLAG, SW_CHECK_NONE } sw_cmd_check;

/* Environment items and argument words of one setting of a system. */
typedef struct sw_tmpl {
    char **env; /* NAME=VALUE templates */
    int n_env;
    char **args; /* argument word templates (replace {sampling}) */
    int n_args;
} sw_tmpl;

typedef struct sw_system {
    char *name;
    char *site;           /* where its sample check lives, in words (tables) */
    unsigned modes;       /* bit m: it samples with sgc_sample_mode m */
    int native;           /* freecheck's runtime: the SGC_* settings are its own */
    int log2;             /* its alloc template takes {log2P}: powers of two only */
    sw_tmpl off;          /* runs without sampling */
    sw_tmpl alloc;        /* alloc cells: {P}, {log2P} */
    int inprocess;        /* its programs speak the in-process protocol (inprocess=yes) */
    sw_tmpl inproc_alloc; /* alloc cells in the in-process design (none given: alloc) */
    sw_tmpl inproc;       /* env added to every run of the in-process design (inprocess-env=) */
    char *segment;        /* SGC_ALT_SEGMENT of its in-process runs (segment=), or NULL */
    sw_tmpl sim;          /* env added to its runs under valgrind (sim-env=) */
    int calibrate_work;   /* calibrate=work: the target excludes the fixed cost */
    char *origin;         /* "<file> line <n>" */
} sw_system;

/* Where a run's settings are used: a timed run of the blocked or
 * independent design, a run of the in-process design, a run under
 * valgrind (simulated cells and their probes). */
typedef enum sw_cmd_ctx { SW_CTX_TIMED = 0, SW_CTX_INPROCESS, SW_CTX_SIM } sw_cmd_ctx;

typedef struct sw_command {
    char *name;
    const sw_system *system;
    char **words; /* the command line's templates, program first */
    int n_words;
    int sized;          /* has {size}: calibrated; else a fixed amount of work */
    sw_cmd_check check; /* how its checksum is judged */
    char *like;         /* check like:NAME: freecheck's workload giving the reference */
    int optional;       /* missing program or needs: skipped with the reason, not an error */
    char **needs;       /* paths (templates) that must exist */
    int n_needs;
    char *why_missing; /* a file (template) whose first line says why the program is missing, or NULL */
    uint64_t sim_size; /* sim-size=N: its simulated cells' size unless --sim-size names it; 0: calibrated */
    char *origin;      /* "<file> line <n>" */
} sw_command;

/* Parses every declaration of a workload list's text (origin names it in
 * messages); plain names are left to the caller.  Exits 2 on a bad line.
 * Returns the number of commands declared. */
int sw_cmd_load_text(const char *text, const char *origin);
/* Forgets every declaration (tests). */
void sw_cmd_reset(void);
/* What a list line is (comment already cut): 0 a plain workload name (or
 * blank), 1 a system declaration, 2 a command declaration, with *name set
 * to a fresh copy of the command's name. */
int sw_cmd_list_line(const char *line, char **name);

/* The command workload named name, or NULL (a freecheck workload). */
const sw_command *sw_cmd_find(const char *name);
/* The system named name (freecheck is built in), or NULL. */
const sw_system *sw_cmd_system(const char *name);
/* The system a workload runs on: its command's, or freecheck. */
const sw_system *sw_cmd_system_of(const char *workload);

/* Why the system of workload cannot run a cell of this kind (kind, period,
 * mode, rate, depth), or NULL if it can.  Static or registry-owned text.
 * In the in-process design (sw_cmd_plan_design) a native cell of a system
 * without inprocess=yes cannot run either. */
const char *sw_cmd_cannot(const char *workload, uint64_t period, const char *mode, unsigned hz, unsigned depth);
/* The design the cells are planned for (an sw_design of sw_opts.h): 1 for
 * the in-process design, 0 otherwise; set by sw_plan_cells. */
void sw_cmd_plan_design(int inprocess);
/* Same as sw_cmd_cannot for a cell that is simulated (sim 1) or not. */
const char *sw_cmd_cannot_cell(const char *workload, uint64_t period, const char *mode, unsigned hz, unsigned depth,
                               int sim);
/* Records that a cell was not planned and why (deduplicated by label);
 * sw_cmd_notes lists them in order. */
void sw_cmd_note(const char *label, const char *why);
int sw_cmd_notes(const char *const **labels, const char *const **whys);

/* Expands the placeholders of one template.  period 0 means "no period"
 * (then {P}, {log2P} and {mode} are refused); size 0 likewise for {size};
 * bin NULL likewise for {bin}.  Returns a fresh string, or NULL with *why
 * (static) naming what is wrong ({log2P} of a period that is not a power
 * of two, too). */
char *sw_cmd_expand(const char *tmpl, const char *bin, uint64_t size, uint64_t period, const char *mode,
                    const char **why);

/* The program a command runs (its first word expanded; looked up in PATH
 * when it has no '/'), fresh; NULL with *why (fresh) if it is not an
 * executable program or a needs= path is missing. */
char *sw_cmd_program(const sw_command *c, const char *bin, char **why);

/* The files a run of command c depends on, as the sweep hashes them: the
 * program (as sw_cmd_program finds it; the expanded word when it is not
 * found), then every needs= path expanded, in declaration order, then
 * every other word of the command that names an existing regular file
 * (expanded; {size} and {sampling} words are not files).  Returns their
 * number; *paths (fresh strings in a fresh NULL-terminated array) holds
 * them. */
int sw_cmd_files(const sw_command *c, const char *bin, char ***paths);

/* The argv of one run of command c: the words expanded for size, with
 * {sampling} replaced by the system's alloc-arg words (period > 0) or
 * off-arg words (period 0), then extra if not NULL.  Every string is fresh;
 * free with sw_cmd_free_strv.  The program's path is *path (fresh). */
char **sw_cmd_argv(const sw_command *c, const char *bin, uint64_t size, uint64_t period, const char *mode,
                   const char *extra, char **path);
/* The same in a context: SW_CTX_INPROCESS takes the inprocess-alloc-arg
 * words for an alloc cell when the system has them. */
char **sw_cmd_argv_ctx(const sw_command *c, const char *bin, uint64_t size, uint64_t period, const char *mode,
                       const char *extra, sw_cmd_ctx ctx, char **path);
/* The environment items the system sets for a timed run (alloc-env with
 * period > 0, else off-env), expanded; NULL-terminated, fresh. */
char **sw_cmd_env(const sw_system *s, const char *bin, uint64_t period, const char *mode);
/* The same in a context: SW_CTX_INPROCESS takes inprocess-alloc-env for an
 * alloc cell when the system has any and appends inprocess-env; SW_CTX_SIM
 * appends sim-env. */
char **sw_cmd_env_ctx(const sw_system *s, const char *bin, uint64_t period, const char *mode, sw_cmd_ctx ctx);
void sw_cmd_free_strv(char **v);

/* "like:gcbench", "self", "flag", "none". */
const char *sw_cmd_check_name(const sw_command *c);
/* Every declaration, normalized, one per line (stored in meta "commands":
 * a --resume with other declarations is refused).  Fresh. */
char *sw_cmd_describe(void);

/* The sweep's workloads: keeps the n workloads that can run, in order (a
 * command's program and needs= paths exist; a like: reference is built in
 * bin), and returns how many.  An optional command that cannot run is left
 * out with the reason (printed, sw_cmd_skipped; its name is kept there);
 * any other exits 2. */
int sw_cmd_resolve(char **workloads, int n, const char *bin);
int sw_cmd_skipped(const char *const **names, const char *const **whys);
/* Stores through meta_set (the caller's store, so that this module needs
 * no database: the plan includes it, and the database's header the plan's):
 * "commands" (sw_cmd_describe), "skipped", "not_planned"
 * (printed too), and for every workload "workload_system:<w>" and
 * "system_site:<system>". */
void sw_cmd_store_meta(void (*meta_set)(void *ctx, const char *key, const char *value), void *ctx,
                       char *const *workloads, int n);
/* --resume: exits 2 if the declarations differ from stored (meta "commands",
 * NULL for a sweep that stored none). */
void sw_cmd_check_stored(const char *stored, const char *dir);

#endif /* SW_CMD_H */
