/* st_json.h - JSON helpers of analyze's summary.json: units of summary.csv's columns, strings.
 *
 * Invariants:
 *  - summary.json is written by st_report.c from the same table as
 *    summary.csv (ST_SUMMARY_COLUMNS), so the two have the same columns in
 *    the same order and the same digits; a column added to the table
 *    appears in both.
 *  - Units come from the column's name (st_json_unit); every number column
 *    has one (tests/compare/summary_json.sh checks it), text columns none.
 */
#ifndef ST_JSON_H
#define ST_JSON_H

#include "../contracts/ct_json.h"

#include <stdio.h>

/* The unit of a summary.csv number column, or NULL when none is known. */
const char *st_json_unit(const char *column);

/* JSON strings: ct_json_str (contracts/ct_json.h), the writer every stage shares. */

#endif
