/* test_kinds.c - the profile's record kinds are one table (runtime/sgc_prof_kinds.h):
 * docs/PROFILE.md's "Record kinds" table has exactly its rows, in its order,
 * with its numbers, names and fields; the writer's SGC_REC_* numbers and the
 * reader's names (sgc_pr_kind_name, which sgcprof dump prints) are the
 * table's, and every other number is "unknown".
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "sgc_profread.h"

#define X(id, no, name, fields) {#id, no, name, fields},
static const struct {
    const char *id;
    int no;
    const char *name, *fields;
} kinds[] = {SGC_PROF_KINDS(X)};
#undef X
#define NKINDS (sizeof kinds / sizeof kinds[0])

Test(kinds, the_doc_table_is_the_kinds_table) {
    FILE *f = fopen("docs/PROFILE.md", "r");
    cr_assert_not_null(f, "docs/PROFILE.md (run from the repository's top)");
    char line[4096];
    int in_table = 0;
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "| kind | name | fields | meaning |", 34)) {
            in_table = 1;
            continue;
        }
        if (!in_table || !strncmp(line, "|---", 4))
            continue;
        if (line[0] != '|')
            break;
        cr_assert_lt(n, NKINDS, "docs/PROFILE.md has a row past the table's %zu: %s", NKINDS, line);
        char want[512];
        snprintf(want, sizeof want, "| %d | %s | %s | ", kinds[n].no, kinds[n].id, kinds[n].fields);
        cr_assert(!strncmp(line, want, strlen(want)), "docs/PROFILE.md row %zu: want it to begin '%s', it is: %s",
                  n + 1, want, line);
        n++;
    }
    fclose(f);
    cr_assert_eq(n, NKINDS, "docs/PROFILE.md's record kinds table has %zu rows, SGC_PROF_KINDS %zu", n, NKINDS);
}

Test(kinds, writer_numbers_and_reader_names_are_the_table) {
    static const int writer[] = {SGC_REC_STRING,       SGC_REC_NODE,        SGC_REC_TYPE,        SGC_REC_ALLOC_CONFIG,
                                 SGC_REC_ALLOC_SAMPLE, SGC_REC_TIME_CONFIG, SGC_REC_TIME_SAMPLE, SGC_REC_TIME_DROPPED,
                                 SGC_REC_GC_EVENT,     SGC_REC_END,         SGC_REC_TIME_MISSED, SGC_REC_EXIT_SIGNAL};
    cr_assert_eq(sizeof writer / sizeof writer[0], NKINDS);
    for (size_t i = 0; i < NKINDS; i++) {
        cr_assert_eq(kinds[i].no, (int)i + 1, "kind %s: numbers run 1, 2, 3, ... in table order", kinds[i].id);
        cr_assert_eq(writer[i], kinds[i].no, "SGC_REC_%s", kinds[i].id);
        cr_assert_str_eq(sgc_pr_kind_name(kinds[i].no), kinds[i].name);
    }
    cr_assert_str_eq(sgc_pr_kind_name(0), "unknown");
    cr_assert_str_eq(sgc_pr_kind_name((int)NKINDS + 1), "unknown");
    cr_assert_str_eq(sgc_pr_kind_name(255), "unknown");
}
