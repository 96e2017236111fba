# stats/module.mk - build/bin/analyze (GSL, SQLite) and the statistics library its tests link.
ST_SRCS := $(sort $(wildcard stats/st_*.c))
ST_OBJS := $(ST_SRCS:%.c=$(OBJ)/%.o)
ST_LIB := $(LIBDIR)/libststats.a
ST_PKG_CFLAGS := $(shell pkg-config --cflags gsl sqlite3 2>/dev/null)
ST_PKG_LIBS := $(shell pkg-config --libs gsl sqlite3 2>/dev/null || echo -lgsl -lgslcblas -lsqlite3)

$(ST_OBJS) $(OBJ)/stats/analyze.o: CFLAGS += $(ST_PKG_CFLAGS)
$(OBJ)/stats/st_db.o: $(GEN)/schema_sql.h

# The stats record's rules (runtime/sgc_statsrec.h) are the harness's and
# analyze's alike: one object, in this library, which both link; so are the
# shared contracts (contracts/module.mk).
$(ST_LIB): $(ST_OBJS) $(OBJ)/runtime/sgc_statsrec.o $(CT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN)/analyze: $(OBJ)/stats/analyze.o $(ST_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

BINS += $(BIN)/analyze

# build/bin/compare A B: one sweep against another (docs/STATISTICS.md, "Comparing two sweeps").
$(BIN)/compare: $(OBJ)/stats/compare.o $(ST_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

$(OBJ)/stats/compare.o: CFLAGS += $(ST_PKG_CFLAGS)

BINS += $(BIN)/compare

# The coverage simulation (a benchmark: a figure to read, not a pass/fail test).
$(BIN)/stats-coverage: $(OBJ)/stats/coverage.o $(ST_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

$(OBJ)/stats/coverage.o: CFLAGS += $(ST_PKG_CFLAGS)

.PHONY: bench-stats-coverage
bench-stats-coverage: $(BIN)/stats-coverage
	$(BIN)/stats-coverage --runs 30
	$(BIN)/stats-coverage --runs 5
	$(BIN)/stats-coverage --runs 30 --dist gamma --noise 0.02
	$(BIN)/stats-coverage --adaptive 0.02 --runs 30 --max-blocks 200 --noise 0.1 --dist t3 --overhead 1.01 --experiments 300 --resamples 1000

BINS += $(BIN)/stats-coverage
BENCHES += bench-stats-coverage

# How long analyze takes on a database shaped like the full default sweep
# (built from tests/stats/fixtures/full.sql with the sqlite3 shell).
.PHONY: bench-stats-speed
bench-stats-speed: $(BIN)/analyze
	@rm -rf $(BUILD)/stats-speed && mkdir -p $(BUILD)/stats-speed
	cat contracts/schema.sql tests/stats/fixtures/full.sql | sqlite3 $(BUILD)/stats-speed/results.db
	@start=$$(date +%s%N); $(BIN)/analyze --quiet $(BUILD)/stats-speed || exit 1; \
	  end=$$(date +%s%N); echo "analyze: full-sweep-shaped database (135 cells, 4050 measured runs), 10000 resamples: $$(( (end - start) / 1000000 )) ms wall"

BENCHES += bench-stats-speed

# The in-process estimate from segment series files, without a sweep.
$(BIN)/inproc-estimate: $(OBJ)/stats/inproc_estimate.o $(ST_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

$(OBJ)/stats/inproc_estimate.o: CFLAGS += $(ST_PKG_CFLAGS)

BINS += $(BIN)/inproc-estimate

# The validation report (make validate): injected vs recovered per-sample cost, A/A coverage.
$(BIN)/validation: $(OBJ)/stats/validation.o $(ST_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

$(OBJ)/stats/validation.o: CFLAGS += $(ST_PKG_CFLAGS)

BINS += $(BIN)/validation

# build/bin/peers-report DIR: the peers table and figure data (st_peers.h; make peers).
$(BIN)/peers-report: $(OBJ)/stats/peers_report.o $(ST_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

$(OBJ)/stats/peers_report.o: CFLAGS += $(ST_PKG_CFLAGS)

BINS += $(BIN)/peers-report

# The coverage benchmark under this machine's noise (docs/STATISTICS.md, "Coverage under this
# machine's noise"): synthetic sweeps resampled from the committed sweeps, every interval kind the
# suite prints against a known truth.  Figures, not pass/fail; make test checks the machinery
# (tests/stats/test_coverage.c).
$(BIN)/coverage-bench: $(OBJ)/stats/coverage_bench.o $(ST_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

$(OBJ)/stats/coverage_bench.o: CFLAGS += $(ST_PKG_CFLAGS)

BINS += $(BIN)/coverage-bench

# make bench-coverage: the coverage table of every interval kind against the committed sweeps' noise
# (COVERAGE_ARGS: e.g. --experiments 200 for a quicker, rougher table; the CSV goes to COVERAGE_CSV).
COVERAGE_SWEEPS ?= results/reference results/reference-rerun results/reference-peers results/reference-inprocess
COVERAGE_ARGS ?= --experiments 1000 --resamples 2000
COVERAGE_CSV ?= $(BUILD)/coverage-bench.csv
.PHONY: bench-coverage
bench-coverage: $(BIN)/coverage-bench
	$(BIN)/coverage-bench --csv $(COVERAGE_CSV) $(COVERAGE_ARGS) $(COVERAGE_SWEEPS)

BENCHES += bench-coverage
