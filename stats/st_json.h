/* st_json.h - summary.json: summary.csv's table as JSON, with units.
 *
 * Invariants:
 *  - The JSON is made from the summary.csv text itself (one source): every
 *    column, every row, every field; a column added to summary.csv appears
 *    in summary.json with no change here.  A column is "number" when every
 *    non-empty field of it parses completely as a finite number, else
 *    "text"; numbers are written with the CSV's own digits, empty fields
 *    are null.
 *  - Units come from the column's name (st_json_unit); every number column
 *    of summary.csv has one (the tests check it), text columns have null.
 *  - The CSV's leading comment line ("# analyze seed=... ") is kept as
 *    "comment".  Fields are split at every comma: analyze never quotes
 *    (it writes ';' for a comma inside text).
 */
#ifndef ST_JSON_H
#define ST_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Writes the JSON form of the CSV file csv_path to f.  Returns 0, or 1 with
 * a message in err (the CSV unreadable or malformed). */
int st_csv_to_json(const char *csv_path, FILE *f, char *err, size_t errlen);

/* The unit of a summary.csv column, or NULL when it has none (text). */
const char *st_json_unit(const char *column);

#endif
