/* st_fmt.h - number and text formatting of the statistics outputs: the forms summary.md, summary.csv and
 * the plot data print numbers in, so every table prints a number the same way.
 *
 * Invariants:
 *  - Formats depend only on the value and the digits: no locale ('.' is the
 *    decimal point), no time, no address.
 *  - A missing value (NaN or infinite) is never printed as a number: CSV gets
 *    the caller's `missing` text, Markdown "n/a".
 *  - The returned strings of st_fmt_md, st_fmt_period and st_fmt_ci live in
 *    a ring of ST_FMT_NBUF buffers: one printf may take up to that many of
 *    them; they are overwritten by later calls (single-threaded use).
 */
#ifndef ST_FMT_H
#define ST_FMT_H

#include "st_boot.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ST_FMT_NBUF 24
#define ST_FMT_BUFLEN 96

/* The next buffer of the ring (ST_FMT_BUFLEN bytes). */
char *st_fmt_buf(void);

/* v with %.*g into b (at least 32 bytes), or `missing` when v is not finite. */
const char *st_fmt_num(char *b, double v, int digits, const char *missing);

/* st_fmt_num of v in a ring buffer, "" when v is not finite (a CSV field). */
const char *st_fmt_csv(double v, int digits);

/* For people: digits significant figures, but whole numbers from 10^digits
 * up (17234, not 1.723e+04). */
void st_fmt_human(char *b, size_t size, double v, int digits);

/* For tables people read (summary.md): st_fmt_human's form, but never an
 * exponent: a magnitude below 1e-4 is written with up to 6 decimals
 * (0.000012), and one below 5e-7, such as a residual of floating-point
 * rounding (4.8e-15), as 0; one that rounds up to 10^digits as a whole
 * number.  Only magnitudes of 1e15 and more keep an exponent. */
void st_fmt_plain(char *b, size_t size, double v, int digits);

/* st_fmt_plain of v in a ring buffer, "n/a" when v is not finite. */
const char *st_fmt_md(double v, int digits);

/* "1K", "4M", "32768" style period for people. */
const char *st_fmt_period(int64_t p);

/* "1.23 [1.20, 1.27]" or "1.23 (no CI)", "n/a" without an estimate; a
 * percentile interval is marked *.  Numbers in st_fmt_plain's form. */
const char *st_fmt_ci(const st_interval *iv, int digits);

/* A text field for CSV: commas become ';' and line breaks ' ' (they would
 * break the row). */
void st_fmt_csv_text(FILE *f, const char *s);

/* A token for plot data: whitespace becomes '_' (it would split the column),
 * the empty string '-'. */
void st_fmt_dat_word(FILE *f, const char *s);

#endif
