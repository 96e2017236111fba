# harness/module.mk - build/bin/sweep, the benchmark harness (docs/HARNESS.md).
HARNESS_SRCS := $(sort $(wildcard harness/sw_*.c))
HARNESS_OBJS := $(HARNESS_SRCS:%.c=$(OBJ)/%.o)
# The adaptive rounds (sw_adapt.c) judge intervals with the statistics
# library (stats/st_paired.h, GSL); runs.csv's fields are written by its CSV
# writer (stats/st_util.h, sw_db.c).
HARNESS_STATS_LIB := $(LIBDIR)/libststats.a
# Everything but main(), for the harness's unit tests.
HARNESS_LIB_OBJS := $(filter-out $(OBJ)/harness/sw_sweep.o,$(HARNESS_OBJS)) $(HARNESS_STATS_LIB)
HARNESS_LIBS := $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3) -lpfm -pthread \
	$(shell pkg-config --libs gsl 2>/dev/null || echo -lgsl -lgslcblas)
HARNESS_CFLAGS := $(shell pkg-config --cflags sqlite3 2>/dev/null)
$(OBJ)/harness/sw_adapt.o: CFLAGS += -Istats $(shell pkg-config --cflags gsl 2>/dev/null)

# What the sweep records about its own build (meta: compiler, cflags, gsl_version).
HARNESS_BUILD_CFLAGS := $(CFLAGS)
HARNESS_GSL_VERSION := $(shell pkg-config --modversion gsl 2>/dev/null || echo unknown)
HARNESS_PFM_VERSION := $(shell dpkg-query -W -f='$${Version}' libpfm4 2>/dev/null || echo unknown)
$(OBJ)/harness/sw_meta.o: CFLAGS += -DSW_BUILD_CC='"$(CC)"' -DSW_BUILD_CFLAGS='"$(HARNESS_BUILD_CFLAGS)"' \
	-DSW_GSL_VERSION='"$(HARNESS_GSL_VERSION)"' -DSW_PFM_PACKAGE='"$(HARNESS_PFM_VERSION)"'
$(HARNESS_OBJS): CFLAGS += $(HARNESS_CFLAGS)
$(OBJ)/harness/sw_db.o: $(GEN)/schema_sql.h
$(OBJ)/harness/sw_db.o $(OBJ)/harness/sw_run.o: CFLAGS += -Istats

$(BIN)/sweep: $(HARNESS_OBJS) $(HARNESS_STATS_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(HARNESS_LIBS) $(LDLIBS)

BINS += $(BIN)/sweep
