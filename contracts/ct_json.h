/* ct_json.h - the JSON string writer every stage shares: analyze's summary.json (stats/st_report.c),
 * compare.json (stats/st_compare.c) and sgcprof's speedscope export (runtime/sgcprof/sgcprof_report.c).
 *
 * Invariants:
 *  - The output is one JSON string (RFC 8259): '"' and '\' escaped with a
 *    backslash, \n, \r and \t by their short escapes, every other byte below
 *    0x20 as \u00XX; every other byte as it is (UTF-8 passes through, so the
 *    caller gives valid UTF-8: sgcprof escapes its names first).
 *  - NULL is written as the empty string "" (a caller that means null
 *    writes null itself).
 *  - No allocation, no locale, no state: the same bytes for the same input.
 */
#ifndef CT_JSON_H
#define CT_JSON_H

#include <stdio.h>

/* Writes s to f as a JSON string, quotes included. */
void ct_json_str(FILE *f, const char *s);

#endif
