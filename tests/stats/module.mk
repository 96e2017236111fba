# tests/stats/module.mk - the statistics tests: estimators, rank test and bootstrap against
# independently computed reference values, and build/bin/analyze end to end on fixture
# databases built from tests/stats/fixtures/*.sql (edge cases included).
ST_TEST_BIN := $(BIN)/test-stats
ST_TEST_CFLAGS := $(shell pkg-config --cflags criterion gsl sqlite3 2>/dev/null)
ST_TEST_LIBS := $(shell pkg-config --libs criterion gsl sqlite3 2>/dev/null || echo -lcriterion -lgsl -lgslcblas -lsqlite3)

$(OBJ)/tests/stats/%.o: CFLAGS += -Istats $(ST_TEST_CFLAGS)

$(ST_TEST_BIN): $(OBJ)/tests/stats/test_stats.o $(OBJ)/tests/stats/test_analyze.o $(OBJ)/tests/stats/test_regress.o \
		$(OBJ)/tests/stats/regress_sim.o $(OBJ)/tests/stats/test_paired.o $(OBJ)/tests/stats/test_levels.o \
		$(LIBDIR)/libststats.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_TEST_LIBS) $(LDLIBS)

.PHONY: test-stats
test-stats: $(ST_TEST_BIN) $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh stats env ST_ANALYZE=$(BIN)/analyze ST_FIXTURES=tests/stats/fixtures $(ST_TEST_BIN) --jobs 2

TESTS += test-stats

# What the summary tells the reader (tests/stats/summary.sh): headlines of poisson-only sweeps,
# one verdict per cell in every table, plain numbers, the time sampler's mode in summary.csv.
.PHONY: test-stats-summary
test-stats-summary: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh stats-summary sh tests/stats/summary.sh $(BIN)/analyze contracts/schema.sql \
	  tests/stats/fixtures $(BUILD)/stats-summary-test

TESTS += test-stats-summary

# Replication as a level (tests/stats/replicates.sh): a synthetic replicated sweep with a known
# between-replicate component (mkreplicated.py) through analyze.
.PHONY: test-stats-replicates
test-stats-replicates: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh stats-replicates env ANALYZE=$(BIN)/analyze sh tests/stats/replicates.sh

TESTS += test-stats-replicates

# Coverage of the per-sample cost regression's intervals, by simulation (a figure, not pass/fail;
# make test checks a smaller simulation).
$(BIN)/regress-coverage: $(OBJ)/tests/stats/regress_coverage.o $(OBJ)/tests/stats/regress_sim.o $(LIBDIR)/libststats.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_TEST_LIBS) $(LDLIBS)

.PHONY: bench-stats-regress
bench-stats-regress: $(BIN)/regress-coverage
	$(BIN)/regress-coverage 1000 1000

BENCHES += bench-stats-regress

# Which interval covers the processes of the in-process design, by simulation (a figure to read:
# docs/STATISTICS.md, "Levels", quotes it).
$(BIN)/levels-coverage: $(OBJ)/tests/stats/levels_coverage.o $(LIBDIR)/libststats.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_TEST_LIBS) $(LDLIBS)

.PHONY: bench-stats-levels
bench-stats-levels: $(BIN)/levels-coverage
	$(BIN)/levels-coverage 400 1000 4 100
	$(BIN)/levels-coverage 400 1000 8 50

BENCHES += bench-stats-levels

# Which standard error of a replicate's Hodges-Lehmann estimate is right on results/reference's own
# blocks, split at random into replicates (a figure to read: docs/STATISTICS.md, "The standard error
# of a replicate", quotes it).
$(BIN)/hl-se-bench: $(OBJ)/tests/stats/hl_se_bench.o $(LIBDIR)/libststats.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_TEST_LIBS) $(LDLIBS)

HL_SE_SWEEP ?= results/reference

.PHONY: bench-hl-se
bench-hl-se: $(BIN)/hl-se-bench
	$(BIN)/hl-se-bench $(HL_SE_SWEEP) 100 2000

BENCHES += bench-hl-se

# The plot-data tables of docs/STATISTICS.md against analyze's own table.
.PHONY: test-stats-doc
test-stats-doc: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh stats-doc sh tests/stats/doc_plotdata.sh $(BIN)/analyze docs/STATISTICS.md

TESTS += test-stats-doc

# The statistics programs' files (tests/stats/files.sh): outputs whose path is taken by a FIFO, a
# directory, a device, a link or another output refused (exit 2, earlier outputs kept); validation's
# params and meta.env read whole or refused; inproc-estimate on a FIFO refused at once.
.PHONY: test-stats-files
test-stats-files: $(BIN)/analyze $(BIN)/validation $(BIN)/peers-report $(BIN)/inproc-estimate
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh stats-files sh tests/stats/files.sh $(BIN) contracts/schema.sql \
	  tests/stats/fixtures $(BUILD)/stats-files-test

TESTS += test-stats-files

# The statistics programs and sgcprof under SANITIZE=address,undefined (tests/stats/san.sh): the
# fixtures and edge-case sweeps (no measured run, one run a cell, every run failed, a baseline alone,
# no cell, blocked, in-process, two nodes, simulated only) through analyze, compare, inproc-estimate,
# validation and peers-report, error exits included; sgcprof's commands on whole and cut profiles.
# The sanitizer build shares $(BUILD)/san with the other modules' sanitizer tests.
ST_SAN_BINS := analyze compare inproc-estimate validation peers-report sgcprof
.PHONY: test-stats-san
test-stats-san: $(BIN)/gcbench
	@sh tests/check.sh stats-san sh -c '$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANITIZE=address,undefined \
	    $(ST_SAN_BINS:%=$(BUILD)/san/bin/%) >/dev/null && \
	    sh tests/stats/san.sh $(BUILD)/san/bin $(BIN) $(BUILD)/stats-san-test'

TESTS += test-stats-san

# The coverage benchmark's machinery and the adaptive rounds' two-stage rule (tests/stats/test_coverage.c;
# the benchmark itself is make bench-coverage, figures not pass/fail).
ST_COV_TEST_BIN := $(BIN)/test-coverage

$(ST_COV_TEST_BIN): $(OBJ)/tests/stats/test_coverage.o $(OBJ)/tests/stats/test_walsh.o $(OBJ)/tests/stats/test_stop.o \
		$(LIBDIR)/libststats.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_TEST_LIBS) $(LDLIBS)

.PHONY: test-stats-coverage
test-stats-coverage: $(ST_COV_TEST_BIN) $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh stats-coverage env ST_ANALYZE=$(BIN)/analyze $(ST_COV_TEST_BIN) --jobs 2

TESTS += test-stats-coverage
