# tests/inproc/module.mk - the in-process estimator's tests (in "make test"):
#   test-inproc-stats   Criterion: stats/st_inproc.c against reference values
#                       computed independently (tests/inproc/mkfixture.py,
#                       which also wrote the fixtures), the series reader's
#                       refusals
#   test-inproc-e2e     a workload run with SGC_ALTERNATE, its series read
#                       back by build/bin/inproc-estimate (tests/inproc/e2e.sh)
#   test-inproc-levels  the levels of the design through analyze: a synthetic
#                       sweep with a deviant process, a warm-up and a cell of
#                       one process (tests/inproc/levels.sh, mklevels.py)
INPROC_TEST_DIR := $(BUILD)/tests/inproc
INPROC_CRITERION_LIBS := $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

$(OBJ)/tests/inproc/%.o: CFLAGS += -Istats $(ST_PKG_CFLAGS) $(shell pkg-config --cflags criterion 2>/dev/null)

$(INPROC_TEST_DIR)/test-inproc-stats: $(OBJ)/tests/inproc/test_inproc.o $(LIBDIR)/libststats.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(INPROC_CRITERION_LIBS) $(ST_PKG_LIBS) $(LDLIBS)

.PHONY: test-inproc-stats
test-inproc-stats: $(INPROC_TEST_DIR)/test-inproc-stats
	@sh tests/check.sh inproc-stats $< --jobs=2

TESTS += test-inproc-stats

.PHONY: test-inproc-e2e
test-inproc-e2e: $(BIN)/binarytrees $(BIN)/compute $(BIN)/inproc-estimate
	@sh tests/check.sh inproc-e2e sh tests/inproc/e2e.sh $(BIN) $(INPROC_TEST_DIR)/e2e

TESTS += test-inproc-e2e

# A small sweep in the in-process design, through analyze.
.PHONY: test-inproc-sweep
test-inproc-sweep: $(BIN)/sweep $(BIN)/analyze $(BIN)/binarytrees $(BIN)/compute $(HARNESS_TEST_BIN)/fakework
	@SWEEP=$(BIN)/sweep FAKE_BIN=$(HARNESS_TEST_BIN) BIN=$(BIN) sh tests/check.sh inproc-sweep sh tests/inproc/sweep.sh

TESTS += test-inproc-sweep

# The levels of the in-process design (processes, steady state) on a synthetic sweep.
.PHONY: test-inproc-levels
test-inproc-levels: $(BIN)/analyze
	@BIN=$(BIN) sh tests/check.sh inproc-levels sh tests/inproc/levels.sh

TESTS += test-inproc-levels

# The HET flag's false-alarm rate under this machine's noise (tests/inproc/het_false_alarm.c; a
# figure to read, not a pass/fail test: docs/STATISTICS.md, "Levels", quotes it).
$(INPROC_TEST_DIR)/het-false-alarm: $(OBJ)/tests/inproc/het_false_alarm.o $(LIBDIR)/libststats.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

HET_NOISE ?= results/reference-inprocess
.PHONY: bench-het
bench-het: $(INPROC_TEST_DIR)/het-false-alarm
	$(INPROC_TEST_DIR)/het-false-alarm --experiments 400 --procs 4 --blocks 100 $(HET_NOISE)

BENCHES += bench-het
