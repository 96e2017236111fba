/* sw_alt.c - the in-process design's runtime settings and series parser (see sw_alt.h). */
#include "sw_alt.h"
#include "sw_util.h"
#include "sgc_alt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Every segment end's name fits sw_segment.end. */
#define SW_ALT_END_FITS(id, name, what) \
    _Static_assert(sizeof(name) <= sizeof(((sw_segment *)0)->end), "sw_segment.end too short for " name);
SGC_ALT_ENDS(SW_ALT_END_FITS)
#undef SW_ALT_END_FITS

const char *sw_alt_mode(const sw_cell *cell) {
    int m = cell->alloc_period && cell->time_hz ? SGC_ALT_BOTH
            : cell->alloc_period                ? SGC_ALT_ALLOC
            : cell->time_hz                     ? SGC_ALT_TIME
                                                : SGC_ALT_NONE;
    return sgc_alt_mode_name(m);
}

/* The end called s (a name of SGC_ALT_ENDS), or -1. */
static int end_parse(const char *s) {
    for (int e = 0; e < SGC_ALT_NENDS; e++)
        if (!strcmp(s, sgc_alt_end_name(e)))
            return e;
    return -1;
}

#define SW_ALT_END_WORD(id, name, what) " " name

enum { F_INDEX, F_BLOCK, F_POS, F_KIND, F_ON, F_END, F_NUM0 };
static const char *const field_names[] = {"index",   "block", "pos", "kind", "on", "end",
#define X(name) #name,
                                          SW_ALT_NUM
#undef X
};
#define N_FIELDS ((int)(sizeof field_names / sizeof field_names[0]))

int sw_alt_parse(const char *text, sw_segment **out, const char **why) {
    sw_series info;
    return sw_alt_parse_series(text, out, &info, why);
}

/* The parser's state over a series' lines. */
typedef struct alt_reader {
    sw_segment **out;     /* the segments so far */
    sw_series *info;      /* the header's system, clock, unmeasured fields, switch column */
    int col_of[N_FIELDS]; /* column index of each field */
    int switch_col;       /* switch_ns's column, or -1 */
    int ncols, n, cap;    /* columns; segments read and allocated */
    int trailer;          /* the 'segments' line's count, -1 until then */
} alt_reader;

/* The columns line (its names from line): every stored field exactly once.
 * NULL, or why not. */
static const char *read_columns(alt_reader *r, char *line) {
    char *s2 = NULL;
    if (r->ncols)
        return "it has two columns lines";
    for (char *tok = strtok_r(line, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2), r->ncols++) {
        if (!strcmp(tok, "switch_ns")) {
            r->switch_col = r->ncols;
            r->info->has_switch = 1;
        }
        for (int f = 0; f < N_FIELDS; f++)
            if (!strcmp(tok, field_names[f])) {
                if (r->col_of[f] >= 0)
                    return "its columns line names a field twice";
                r->col_of[f] = r->ncols;
            }
    }
    for (int f = 0; f < N_FIELDS; f++)
        if (r->col_of[f] < 0)
            return "its columns line lacks a field the segments table stores";
    return NULL;
}

/* A segment's values by field into g (kind, end and the numbers). */
static const char *read_fields(const alt_reader *r, char **vals, sw_segment *g) {
    uint64_t num[N_FIELDS];
    for (int f = 0; f < N_FIELDS; f++) {
        const char *v = vals[r->col_of[f]];
        if (f == F_KIND) {
            if (strcmp(v, "A") && strcmp(v, "B"))
                return "a segment's kind is not A or B";
            g->kind = v[0];
        } else if (f == F_END) {
            if (end_parse(v) < 0)
                return "a segment's end is not one of:" SGC_ALT_ENDS(SW_ALT_END_WORD);
            strcpy(g->end, v);
        } else if (sw_parse_uint(v, UINT64_MAX >> 1, &num[f])) {
            return "a segment's field is not a whole number";
        }
    }
    g->idx = (int)num[F_INDEX];
    g->block = (int)num[F_BLOCK];
    g->pos = (int)num[F_POS];
    g->on = (int)num[F_ON];
    int f = F_NUM0;
#define X(name) g->name = num[f++];
    SW_ALT_NUM
#undef X
    if (r->switch_col >= 0 && sw_parse_uint(vals[r->switch_col], UINT64_MAX >> 1, &g->switch_ns))
        return "a segment's switch_ns is not a whole number";
    return NULL;
}

/* A segment line (its values from line): as many as the columns, numbered
 * in order. */
static const char *read_segment(alt_reader *r, char *line) {
    if (!r->ncols)
        return "a segment line comes before the columns line";
    char *vals[64], *s2 = NULL;
    int nv = 0;
    for (char *tok = strtok_r(line, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
        if (nv == 64)
            return "a segment line has too many fields";
        vals[nv++] = tok;
    }
    if (nv != r->ncols)
        return "a segment line has another number of fields than its columns line";
    if (r->n == r->cap)
        *r->out = ct_xrealloc(*r->out, (size_t)(r->cap = r->cap ? r->cap * 2 : 64) * sizeof **r->out);
    sw_segment *g = &(*r->out)[r->n];
    memset(g, 0, sizeof *g);
    const char *why = read_fields(r, vals, g);
    if (why)
        return why;
    if (g->idx != r->n)
        return "its segments are not numbered 0, 1, 2, ... in order";
    r->n++;
    return NULL;
}

/* The system or cpu_clock line: one name that fits. */
static const char *read_name_line(alt_reader *r, const char *line) {
    int sys = line[0] == 's';
    const char *v = line + (sys ? 7 : 10);
    if (strlen(v) >= (sys ? sizeof r->info->system : sizeof r->info->cpu_clock) || strchr(v, ' '))
        return sys ? "its system line is not one name" : "its cpu_clock line is not thread or process";
    strcpy(sys ? r->info->system : r->info->cpu_clock, v);
    return NULL;
}

/* The unmeasured line (its names from line): fields that may be unmeasured. */
static const char *read_unmeasured(alt_reader *r, char *line) {
    char *s2 = NULL;
    for (char *tok = strtok_r(line, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
        int f = -1;
        for (int k = F_NUM0; k < N_FIELDS; k++)
            if (!strcmp(tok, field_names[k]))
                f = k - F_NUM0;
        /* cpu_ns and bytes are what every segment is measured by. */
        if (f < 0 || f == SW_ALT_F_cpu_ns || f == SW_ALT_F_bytes)
            return "its unmeasured line names a field that must be measured, or no field";
        r->info->unmeasured |= 1u << f;
    }
    return NULL;
}

/* One line after the first: its form, then by its name (other header
 * lines are the runtime's and not stored). */
static const char *read_line(alt_reader *r, char *line) {
    if (r->trailer >= 0)
        return "text after its 'segments' line";
    /* Every line is "<name> <values>" as written: no blank line, no
     * carriage return (a CRLF copy), no other kind of line. */
    size_t name = strspn(line, "abcdefghijklmnopqrstuvwxyz_0123456789");
    if (!name || line[name] != ' ' || !line[name + 1] || strchr(line, '\r') || strstr(line, "  "))
        return "a line is not '<name> <values>' (blank, CRLF line ends, or other text)";
    if (!strncmp(line, "columns ", 8))
        return read_columns(r, line + 8);
    if (!strncmp(line, "seg ", 4))
        return read_segment(r, line + 4);
    if (!strncmp(line, "system ", 7) || !strncmp(line, "cpu_clock ", 10))
        return read_name_line(r, line);
    if (!strncmp(line, "unmeasured ", 11))
        return read_unmeasured(r, line + 11);
    if (!strncmp(line, "segments ", 9)) {
        uint64_t v;
        if (sw_parse_uint(line + 9, 1u << 30, &v))
            return "its 'segments' line has no count";
        r->trailer = (int)v;
    }
    return NULL;
}

/* Every line of copy (after the first), then the trailer's count. */
static const char *read_lines(alt_reader *r, char *copy) {
    for (char *line = copy, *next; *line; line = next) {
        next = strchr(line, '\n');
        if (!next)
            return "its last line has no line end (cut off?)";
        *next++ = '\0';
        const char *why = read_line(r, line);
        if (why)
            return why;
    }
    if (r->trailer < 0)
        return "it is incomplete (no 'segments N' line at the end)";
    if (r->trailer != r->n)
        return "its 'segments' count differs from its segment lines";
    return NULL;
}

int sw_alt_parse_series(const char *text, sw_segment **out, sw_series *info, const char **why) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    strcpy(info->system, "freecheck");
    strcpy(info->cpu_clock, "thread");
    if (!text || strncmp(text, "sgc-segments 1\n", 15) != 0) {
        *why = "it is not a segment series (first line is not 'sgc-segments 1')";
        return -1;
    }
    alt_reader r = {.out = out, .info = info, .switch_col = -1, .trailer = -1};
    for (int f = 0; f < N_FIELDS; f++)
        r.col_of[f] = -1;
    char *copy = ct_xstrdup(text);
    const char *bad = read_lines(&r, copy + 15);
    free(copy);
    if (bad) {
        *why = bad;
        free(*out);
        *out = NULL;
        return -1;
    }
    return r.n;
}
