/* st_plotdata.c - names, headers and the printed form of the plot data table (st_plotdata.h). */
#include "st_plotdata.h"

#include <stdio.h>

#define NO_COL(name, type, value)
#define FILE_NAME(name, what, cols) #name,
static const char *const names[ST_PD_NFILES] = {ST_PLOTDATA_FILES(FILE_NAME, NO_COL)};
#undef FILE_NAME

/* "# col col ...": the column names of each file, one string per file. */
#define COL_NAME(name, type, value) " " #name
#define FILE_HEADER(name, what, cols) "#" cols,
static const char *const headers[ST_PD_NFILES] = {ST_PLOTDATA_FILES(FILE_HEADER, COL_NAME)};
#undef FILE_HEADER
#undef COL_NAME

/* The same with each column's type as plots/figures.sh reads it. */
#define TYPE_WORD "word"
#define TYPE_INT "int"
#define TYPE_NUM1 "num"
#define TYPE_NUM4 "num"
#define TYPE_NUM6 "num"
#define TYPE_NUM8 "num"
#define TYPE_NUM10 "num"
#define TYPE_NUM12 "num"
#define TYPE_NUM15 "num"
#define TYPE_HUM6 "num"
#define COL_TYPED(name, type, value) " " #name ":" TYPE_##type
#define FILE_TYPED(name, what, cols) #name cols,
static const char *const typed[ST_PD_NFILES] = {ST_PLOTDATA_FILES(FILE_TYPED, COL_TYPED)};
#undef FILE_TYPED
#undef COL_TYPED

const char *st_plotdata_name(st_plotfile f) { return names[f]; }

const char *st_plotdata_header(st_plotfile f) { return headers[f]; }

void st_plotdata_print(void *stream) {
    for (int f = 0; f < ST_PD_NFILES; f++)
        fprintf((FILE *)stream, "%s\n", typed[f]);
}
