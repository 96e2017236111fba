/* settings_doc.c - prints the settings tables docs/RUNTIME.md and
 * docs/HARNESS.md must hold, from SGC_SETTINGS (contracts/sgc_settings_table.h):
 * "settings_doc runtime" the rows of RUNTIME.md's table (variable, meaning,
 * accepted, default), "settings_doc harness" HARNESS.md's (variable, unit,
 * what the sweep does with it, how a run's stats record confirms it).
 * tests/harness/settings_doc.sh compares them with the documents. */
#include <stdio.h>
#include <string.h>
#include "../../contracts/sgc_settings_table.h"

/* "| a | b |" with an empty cell written "| |", as the documents have it. */
static void row(int n, const char *const *cells) {
    for (int i = 0; i < n; i++)
        printf(*cells[i] ? "| %s " : "| ", cells[i]);
    printf("|\n");
}

static const char *sweep_does(const sgc_setting_row *r) {
    return r->env > 0                    ? "`--env` passes it to every run"
           : r->env == SGC_SETTING_OWNED ? "set per cell and run; `--env` refuses it"
                                         : "not passed; `--env` refuses it";
}

static const char *confirms(const sgc_setting_row *r, char *buf, size_t len) {
    switch (r->confirm) {
    case SGC_CONFIRM_ROUND8:
        snprintf(buf, len, "`%s` is the value rounded down to a multiple of 8 (when the record has the key)", r->key);
        break;
    case SGC_CONFIRM_EQUAL: snprintf(buf, len, "`%s` is the value (a record without it fails)", r->key); break;
    case SGC_CONFIRM_ONE:
        snprintf(buf, len, "with the value 1, `%s` is 1 (when the record has the key; 1 asks for %s)", r->key, r->note);
        break;
    case SGC_CONFIRM_CELL: snprintf(buf, len, "`%s` is the cell's", r->key); break;
    default: snprintf(buf, len, "%s", ""); break;
    }
    return buf;
}

int main(int argc, char **argv) {
    int runtime = argc == 2 && !strcmp(argv[1], "runtime"), harness = argc == 2 && !strcmp(argv[1], "harness");
    if (!runtime && !harness) {
        fprintf(stderr, "usage: settings_doc runtime|harness\n");
        return 2;
    }
    for (int i = 0; i < SGC_NSETTINGS; i++) {
        const sgc_setting_row *r = sgc_setting_row_at(i);
        char name[64], confirm[512];
        snprintf(name, sizeof name, "`%s`", r->name);
        if (runtime) {
            const char *cells[] = {name, r->meaning, r->accepted, r->default_doc};
            row(4, cells);
        } else {
            const char *cells[] = {name, r->unit, sweep_does(r), confirms(r, confirm, sizeof confirm)};
            row(4, cells);
        }
    }
    return 0;
}
