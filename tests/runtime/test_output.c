/* test_output.c - the files a run writes (SGC_PROFILE, SGC_STATS, SGC_ALT_OUT;
 * runtime/sgc_output.h): a path that exists and is not a regular file is
 * refused at start-up (exit 2) and left as it was, also when it becomes one
 * during the run; two outputs that name one file, however spelt, or an
 * output that is the file the program's standard output or error goes to,
 * are refused at start-up before anything is written.
 *
 * Every case runs in a child (the settings are read once per process) with
 * stderr captured and an alarm, so a writer that blocks (opening a FIFO
 * without a reader) fails the test instead of hanging it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sgc_internal.h"

static const char *const vars[] = {"SGC_PROFILE",   "SGC_STATS",        "SGC_ALT_OUT",    "SGC_ALTERNATE",
                                   "SGC_TIME_HZ",   "SGC_ALLOC_PERIOD", "SGC_ALLOC_MODE", "SGC_SEED",
                                   "SGC_TIME_MODE", "SGC_VERIFY",       "SGC_NURSERY"};

static char dir[64];

static void setup(void) {
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    snprintf(dir, sizeof dir, "/tmp/sgc-test-output-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(output, .init = setup, .fini = teardown);

/* A path in the test's directory. */
static const char *in_dir(const char *name) {
    static char buf[8][160];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 160, "%s/%s", dir, name);
    return p;
}

/* What the child does: start the runtime, allocate a little, exit through
 * exit() so that the outputs are written as in any run. */
static void run_program(void) {
    uint32_t t = sgc_type_register(&(sgc_type){"out_bytes", 0, 0, SGC_VAR_BYTES});
    for (int i = 0; i < 1000; i++)
        sgc_alloc(t, 100);
    exit(0);
}

/* Runs fn in a child with stderr captured (and stdout to out_path when it
 * is not NULL); returns its exit status, or -1 if it did not exit. */
static int in_child(void (*fn)(void), const char *out_path, char *err, size_t errlen) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        if (out_path) {
            int fd = open(out_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (fd < 0 || dup2(fd, 1) < 0)
                _exit(98);
        }
        alarm(20); /* a writer that blocks must not hang the test */
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < errlen && (r = read(fds[0], err + n, errlen - 1 - n)) > 0)
        n += (size_t)r;
    err[n] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The special files a path may name: a FIFO, a socket, a directory and (if
 * this process may make one) a character device like /dev/null, each made
 * in the test's directory, so that a writer that replaces one harms
 * nothing else. */
typedef struct special {
    const char *name; /* file name in dir */
    const char *kind; /* how the message calls it */
    mode_t type;      /* S_IFIFO, ... */
} special;

static const special specials[] = {
    {"fifo", "a FIFO", S_IFIFO},
    {"sock", "a socket", S_IFSOCK},
    {"subdir", NULL, S_IFDIR},
    {"null", "a character device", S_IFCHR},
};

/* Makes the special file; 0 if this system does not let us (a device as
 * an unprivileged user). */
static int make_special(const special *s, struct stat *st) {
    const char *p = in_dir(s->name);
    int ok = 0;
    switch (s->type) {
    case S_IFIFO: ok = mkfifo(p, 0600) == 0; break;
    case S_IFDIR: ok = mkdir(p, 0700) == 0; break;
    case S_IFCHR: ok = mknod(p, S_IFCHR | 0600, makedev(1, 3)) == 0; break;
    case S_IFSOCK: {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", p);
        ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        if (fd >= 0)
            close(fd);
        break;
    }
    }
    if (ok)
        cr_assert_eq(stat(p, st), 0);
    return ok;
}

/* The output's variable and what the messages call it. */
static const struct {
    const char *var, *what;
} outputs[] = {
    {"SGC_PROFILE", "the profile"},
    {"SGC_STATS", "the stats record"},
    {"SGC_ALT_OUT", "the segment series"},
};

static void set_output(int o, const char *path) {
    setenv(outputs[o].var, path, 1);
    if (o == 2)
        setenv("SGC_ALTERNATE", "none", 1);
}

static void clear_outputs(void) {
    for (int o = 0; o < 3; o++)
        unsetenv(outputs[o].var);
    unsetenv("SGC_ALTERNATE");
}

Test(output, non_regular_targets_refused_at_start_and_left_alone) {
    int devices = 0;
    for (size_t s = 0; s < sizeof specials / sizeof specials[0]; s++) {
        struct stat before, after;
        if (!make_special(&specials[s], &before)) {
            cr_assert_eq(specials[s].type, S_IFCHR, "cannot make %s", specials[s].name);
            continue;
        }
        devices += specials[s].type == S_IFCHR;
        const char *p = in_dir(specials[s].name);
        for (int o = 0; o < 3; o++) {
            clear_outputs();
            set_output(o, p);
            char err[1024], want[512];
            int rc = in_child(run_program, NULL, err, sizeof err);
            if (specials[s].kind)
                snprintf(want, sizeof want,
                         "freecheck: %s=%s: cannot write %s there: not a regular file (%s); name a regular file or a "
                         "new one\n",
                         outputs[o].var, p, outputs[o].what, specials[s].kind);
            else
                snprintf(want, sizeof want, "freecheck: %s=%s: cannot write %s there: is a directory\n", outputs[o].var,
                         p, outputs[o].what);
            cr_assert_eq(rc, 2, "%s=%s: exit %d, stderr: %s", outputs[o].var, specials[s].name, rc, err);
            cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got: %s\nwant: %s", err, want);
            cr_assert_eq(lstat(p, &after), 0, "%s is gone", p);
            cr_assert(after.st_ino == before.st_ino && (after.st_mode & S_IFMT) == specials[s].type,
                      "%s=%s: the file was replaced", outputs[o].var, specials[s].name);
        }
    }
    clear_outputs();
    if (!devices)
        cr_log_warn("no character device could be made here: that case was not run");
}

/* The path is a regular file when the run starts and a FIFO when it ends:
 * the record and the series are not renamed over it; the run fails (1). */
static void replaced_by_fifo(void) {
    uint32_t t = sgc_type_register(&(sgc_type){"out_bytes", 0, 0, SGC_VAR_BYTES});
    sgc_alloc(t, 100);
    const char *p = getenv("SGC_ALT_OUT") ? getenv("SGC_ALT_OUT") : getenv("SGC_STATS");
    if (unlink(p) != 0 || mkfifo(p, 0600) != 0)
        _exit(97);
    exit(0);
}

Test(output, target_that_stops_being_regular_is_not_replaced) {
    for (int o = 1; o < 3; o++) {
        clear_outputs();
        const char *p = in_dir(o == 1 ? "stats" : "series");
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        cr_assert_geq(fd, 0);
        close(fd);
        set_output(o, p);
        char err[1024], want[512];
        int rc = in_child(replaced_by_fifo, NULL, err, sizeof err);
        cr_assert_eq(rc, 1, "%s: exit %d, stderr: %s", outputs[o].var, rc, err);
        snprintf(want, sizeof want,
                 "freecheck: cannot write %s to %s (%s): %s is a FIFO, not a regular file: refusing to replace it",
                 outputs[o].what, p, outputs[o].var, p);
        cr_assert_not_null(strstr(err, want), "got: %s\nwant: %s", err, want);
        struct stat st;
        cr_assert(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode), "%s: the FIFO was replaced", outputs[o].var);
        unlink(p);
    }
    clear_outputs();
}

/* The stats record and the series are renamed over their paths
 * (contracts/ct_out.h): a symbolic link there would be replaced by the
 * file, not written through, so it is refused at start-up (exit 2) and left
 * as it was, with nothing written to the file it names.  The profile,
 * written in place, goes through the link. */
Test(output, symbolic_link_refused_for_a_renamed_output) {
    const char *target = in_dir("linked"), *link_path = in_dir("link");
    cr_assert_eq(symlink(target, link_path), 0);
    for (int o = 1; o < 3; o++) {
        clear_outputs();
        set_output(o, link_path);
        char err[1024], want[1024];
        int rc = in_child(run_program, NULL, err, sizeof err);
        snprintf(want, sizeof want,
                 "freecheck: %s=%s: cannot write %s there: %s is a symbolic link, not a regular file: refusing to "
                 "replace it with an output file (remove it, or write the outputs elsewhere)\n",
                 outputs[o].var, link_path, outputs[o].what, link_path);
        cr_assert_eq(rc, 2, "%s: exit %d, stderr: %s", outputs[o].var, rc, err);
        /* Exactly this one message from freecheck; the sanitizer build may
         * add its own lines after it (LeakSanitizer's note on a thread still
         * running at exit). */
        cr_assert(strncmp(err, want, strlen(want)) == 0, "got: %s\nwant: %s", err, want);
        cr_assert_null(strstr(err + strlen(want), "freecheck:"), "more than one message: %s", err);
        struct stat st;
        cr_assert(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode), "%s: the link was replaced", outputs[o].var);
        cr_assert_neq(stat(target, &st), 0, "%s: something was written through the link", outputs[o].var);
        DIR *d = opendir(dir);
        cr_assert_not_null(d);
        int entries = 0;
        for (struct dirent *e; (e = readdir(d));)
            entries += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
        closedir(d);
        cr_assert_eq(entries, 1, "%s: a temporary was left beside the link", outputs[o].var);
    }
    clear_outputs();
    set_output(0, link_path);
    char err[1024];
    cr_assert_eq(in_child(run_program, NULL, err, sizeof err), 0, "SGC_PROFILE through a link: %s", err);
    struct stat st;
    cr_assert(lstat(link_path, &st) == 0 && S_ISLNK(st.st_mode) && stat(target, &st) == 0 && st.st_size > 0,
              "SGC_PROFILE through a link: the profile is not in the file the link names");
    clear_outputs();
}

/* Two outputs, each given as a spelling of a path (NULL: not set); the run
 * must be refused with the message naming both, and nothing written. */
typedef struct pair_case {
    const char *why;     /* what the case shows */
    int a, b;            /* the two outputs (index into outputs) */
    const char *pa, *pb; /* their paths, relative to dir unless absolute */
} pair_case;

Test(output, two_outputs_naming_one_file_refused) {
    char abs_target[160], cwd[4096];
    snprintf(abs_target, sizeof abs_target, "%s/target", dir);
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    cr_assert_eq(chdir(dir), 0);
    cr_assert_eq(mkdir("sub", 0700), 0);
    cr_assert_eq(symlink("target", "link"), 0);           /* to a file that does not exist yet */
    cr_assert_eq(symlink(".", "dirlink"), 0);             /* a directory spelt another way */
    cr_assert_eq(symlink("sub/../existing", "elink"), 0); /* to one that does */
    int fd = open("existing", O_WRONLY | O_CREAT, 0644);  /* an existing file ... */
    cr_assert(fd >= 0 && write(fd, "keep\n", 5) == 5);
    close(fd);
    cr_assert_eq(link("existing", "hard"), 0); /* ... and a hard link to it */
    const pair_case cases[] = {
        {"the same spelling", 0, 1, "target", "target"},
        {"relative and absolute", 0, 1, "target", abs_target},
        {"through ./ and ..", 1, 2, "./sub/../target", "target"},
        {"a symbolic link to a new file", 0, 1, "link", "target"},
        {"a link to the directory", 2, 0, "dirlink/target", "target"},
        {"a symbolic link to an existing file", 1, 0, "elink", "existing"},
        {"a hard link", 2, 1, "hard", "existing"},
        {"profile and series", 0, 2, "existing", "./existing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const pair_case *c = &cases[i];
        clear_outputs();
        set_output(c->a, c->pa);
        set_output(c->b, c->pb);
        char err[1024];
        int rc = in_child(run_program, NULL, err, sizeof err);
        cr_assert_eq(rc, 2, "%s (%s=%s, %s=%s): exit %d, stderr: %s", c->why, outputs[c->a].var, c->pa,
                     outputs[c->b].var, c->pb, rc, err);
        /* The message names the later output (in SGC_PROFILE, SGC_STATS,
         * SGC_ALT_OUT order) and the earlier one it collides with. */
        int first = c->a < c->b ? c->a : c->b, second = c->a < c->b ? c->b : c->a;
        const char *pf = first == c->a ? c->pa : c->pb, *ps = first == c->a ? c->pb : c->pa;
        char want[1024];
        snprintf(want, sizeof want, "freecheck: %s=%s: names the same file as %s=%s; give each output its own file\n",
                 outputs[second].var, ps, outputs[first].var, pf);
        cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s: got: %s\nwant: %s", c->why, err, want);
        struct stat st;
        cr_assert_neq(stat("target", &st), 0, "%s: something was written", c->why);
        FILE *f = fopen("existing", "r");
        char line[16] = "";
        cr_assert(f && fgets(line, sizeof line, f));
        fclose(f);
        cr_assert_str_eq(line, "keep\n", "%s: the existing file was changed", c->why);
    }
    /* Control: the same name in two directories, and three distinct files. */
    clear_outputs();
    set_output(0, "target");
    set_output(1, "sub/target");
    set_output(2, "series");
    char err[1024];
    cr_assert_eq(in_child(run_program, NULL, err, sizeof err), 0, "%s", err);
    struct stat st;
    cr_assert(stat("target", &st) == 0 && stat("sub/target", &st) == 0 && stat("series", &st) == 0);
    clear_outputs();
    cr_assert_eq(chdir(cwd), 0);
}

Test(output, output_that_is_standard_output_refused) {
    const char *out = in_dir("stdout");
    int fd = open(out, O_WRONLY | O_CREAT, 0644);
    cr_assert_geq(fd, 0);
    close(fd);
    for (int o = 0; o < 3; o++) {
        clear_outputs();
        set_output(o, out);
        char err[1024], want[512];
        int rc = in_child(run_program, out, err, sizeof err);
        cr_assert_eq(rc, 2, "%s: exit %d, stderr: %s", outputs[o].var, rc, err);
        snprintf(want, sizeof want,
                 "freecheck: %s=%s: is the file the program's standard output goes to; give %s a file of its own\n",
                 outputs[o].var, out, outputs[o].what);
        cr_assert_eq(strncmp(err, want, strlen(want)), 0, "got: %s\nwant: %s", err, want);
        struct stat st;
        cr_assert(stat(out, &st) == 0 && st.st_size == 0, "%s: the file was written", outputs[o].var);
    }
    clear_outputs();
}
