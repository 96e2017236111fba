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

int sw_alt_parse_series(const char *text, sw_segment **out, sw_series *info, const char **why) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    strcpy(info->system, "freecheck");
    strcpy(info->cpu_clock, "thread");
    int switch_col = -1;
    if (!text || strncmp(text, "sgc-segments 1\n", 15) != 0) {
        *why = "it is not a segment series (first line is not 'sgc-segments 1')";
        return -1;
    }
    int col_of[N_FIELDS]; /* column index of each field */
    int ncols = 0, n = 0, cap = 0, trailer = -1;
    char *copy = ct_xstrdup(text);
    for (int f = 0; f < N_FIELDS; f++)
        col_of[f] = -1;
    for (char *line = copy + 15, *next; *line; line = next) {
        next = strchr(line, '\n');
        if (!next) {
            *why = "its last line has no line end (cut off?)";
            goto bad;
        }
        *next++ = '\0';
        if (trailer >= 0) {
            *why = "text after its 'segments' line";
            goto bad;
        }
        /* Every line is "<name> <values>" as written: no blank line, no
         * carriage return (a CRLF copy), no other kind of line. */
        size_t name = strspn(line, "abcdefghijklmnopqrstuvwxyz_0123456789");
        if (!name || line[name] != ' ' || !line[name + 1] || strchr(line, '\r') || strstr(line, "  ")) {
            *why = "a line is not '<name> <values>' (blank, CRLF line ends, or other text)";
            goto bad;
        }
        if (!strncmp(line, "columns ", 8)) {
            char *s2 = NULL;
            if (ncols) {
                *why = "it has two columns lines";
                goto bad;
            }
            for (char *tok = strtok_r(line + 8, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2), ncols++) {
                if (!strcmp(tok, "switch_ns")) {
                    switch_col = ncols;
                    info->has_switch = 1;
                }
                for (int f = 0; f < N_FIELDS; f++)
                    if (!strcmp(tok, field_names[f])) {
                        if (col_of[f] >= 0) {
                            *why = "its columns line names a field twice";
                            goto bad;
                        }
                        col_of[f] = ncols;
                    }
            }
            for (int f = 0; f < N_FIELDS; f++)
                if (col_of[f] < 0) {
                    *why = "its columns line lacks a field the segments table stores";
                    goto bad;
                }
        } else if (!strncmp(line, "seg ", 4)) {
            if (!ncols) {
                *why = "a segment line comes before the columns line";
                goto bad;
            }
            char *vals[64], *s2 = NULL;
            int nv = 0;
            for (char *tok = strtok_r(line + 4, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
                if (nv == 64) {
                    *why = "a segment line has too many fields";
                    goto bad;
                }
                vals[nv++] = tok;
            }
            if (nv != ncols) {
                *why = "a segment line has another number of fields than its columns line";
                goto bad;
            }
            if (n == cap)
                *out = ct_xrealloc(*out, (size_t)(cap = cap ? cap * 2 : 64) * sizeof **out);
            sw_segment *g = &(*out)[n];
            memset(g, 0, sizeof *g);
            uint64_t num[N_FIELDS];
            for (int f = 0; f < N_FIELDS; f++) {
                const char *v = vals[col_of[f]];
                if (f == F_KIND) {
                    if (strcmp(v, "A") && strcmp(v, "B")) {
                        *why = "a segment's kind is not A or B";
                        goto bad;
                    }
                    g->kind = v[0];
                } else if (f == F_END) {
                    if (end_parse(v) < 0) {
                        *why = "a segment's end is not one of:" SGC_ALT_ENDS(SW_ALT_END_WORD);
                        goto bad;
                    }
                    strcpy(g->end, v);
                } else if (sw_parse_uint(v, UINT64_MAX >> 1, &num[f])) {
                    *why = "a segment's field is not a whole number";
                    goto bad;
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
            if (switch_col >= 0 && sw_parse_uint(vals[switch_col], UINT64_MAX >> 1, &g->switch_ns)) {
                *why = "a segment's switch_ns is not a whole number";
                goto bad;
            }
            if (g->idx != n) {
                *why = "its segments are not numbered 0, 1, 2, ... in order";
                goto bad;
            }
            n++;
        } else if (!strncmp(line, "system ", 7) || !strncmp(line, "cpu_clock ", 10)) {
            int sys = line[0] == 's';
            const char *v = line + (sys ? 7 : 10);
            if (strlen(v) >= (sys ? sizeof info->system : sizeof info->cpu_clock) || strchr(v, ' ')) {
                *why = sys ? "its system line is not one name" : "its cpu_clock line is not thread or process";
                goto bad;
            }
            strcpy(sys ? info->system : info->cpu_clock, v);
        } else if (!strncmp(line, "unmeasured ", 11)) {
            char *s2 = NULL;
            for (char *tok = strtok_r(line + 11, " ", &s2); tok; tok = strtok_r(NULL, " ", &s2)) {
                int f = -1;
                for (int k = F_NUM0; k < N_FIELDS; k++)
                    if (!strcmp(tok, field_names[k]))
                        f = k - F_NUM0;
                /* cpu_ns and bytes are what every segment is measured by. */
                if (f < 0 || f == SW_ALT_F_cpu_ns || f == SW_ALT_F_bytes) {
                    *why = "its unmeasured line names a field that must be measured, or no field";
                    goto bad;
                }
                info->unmeasured |= 1u << f;
            }
        } else if (!strncmp(line, "segments ", 9)) {
            uint64_t v;
            if (sw_parse_uint(line + 9, 1u << 30, &v)) {
                *why = "its 'segments' line has no count";
                goto bad;
            }
            trailer = (int)v;
        }
    }
    if (trailer < 0) {
        *why = "it is incomplete (no 'segments N' line at the end)";
        goto bad;
    }
    if (trailer != n) {
        *why = "its 'segments' count differs from its segment lines";
        goto bad;
    }
    free(copy);
    return n;
bad:
    free(copy);
    free(*out);
    *out = NULL;
    return -1;
}
