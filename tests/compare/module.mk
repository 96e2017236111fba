# tests/compare/module.mk - build/bin/compare end to end on synthetic sweeps (tests/compare/compare.sh),
# an injected difference in one cell found exactly, none in an A/A pair, mismatched cells listed,
# exit statuses 0/1/2, the JSON checked against the CSV; the paired overhead gate on blocked sweeps
# (tests/compare/mkblocked.py).
COMPARE_TEST_DIR := $(BUILD)/compare-test
COMPARE_SCHEMA := contracts/schema.sql

.PHONY: test-compare
TESTS += test-compare

test-compare: $(BIN)/compare tests/compare/mkblocked.py
	@TEST_RESULTS=$(TEST_RESULTS) SCHEMA=$(COMPARE_SCHEMA) COMPARE=$(BIN)/compare GP=plots/compare.gp \
	  sh tests/check.sh compare sh tests/compare/compare.sh $(COMPARE_TEST_DIR)

# compare refusing cells of different sizes, and long metadata diffs (tests/compare/sizes.sh).
.PHONY: test-compare-sizes
TESTS += test-compare-sizes

test-compare-sizes: $(BIN)/compare tests/compare/mkblocked.py
	@TEST_RESULTS=$(TEST_RESULTS) SCHEMA=$(COMPARE_SCHEMA) COMPARE=$(BIN)/compare \
	  sh tests/check.sh compare-sizes sh tests/compare/sizes.sh $(BUILD)/compare-sizes-test

CMP_TEST_BIN := $(BIN)/test-compare
$(OBJ)/tests/compare/%.o: CFLAGS += -Istats $(ST_TEST_CFLAGS)

$(CMP_TEST_BIN): $(OBJ)/tests/compare/test_compare.o $(LIBDIR)/libststats.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_TEST_LIBS) $(LDLIBS)

.PHONY: test-compare-unit
TESTS += test-compare-unit

test-compare-unit: $(CMP_TEST_BIN)
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh compare-unit $(CMP_TEST_BIN) --jobs 2

# analyze's summary.json against its summary.csv (tests/compare/summary_json.sh).
.PHONY: test-summary-json
TESTS += test-summary-json

test-summary-json: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) SCHEMA=$(COMPARE_SCHEMA) ANALYZE=$(BIN)/analyze FIXTURE=tests/stats/fixtures/small.sql \
	  sh tests/check.sh summary-json sh tests/compare/summary_json.sh $(BUILD)/summary-json-test

# compare on two real tiny sweeps, B with the validation spin (tests/compare/real.sh): the
# overhead gate exits 1 and flags the 32K cell, no baseline.  About 15 s on one loaded CPU.
.PHONY: test-compare-real
TESTS += test-compare-real

test-compare-real: $(BIN)/sweep $(BIN)/compare $(BIN)/microbench
	@TEST_RESULTS=$(TEST_RESULTS) SWEEP=$(BIN)/sweep COMPARE=$(BIN)/compare \
	  sh tests/check.sh compare-real sh tests/compare/real.sh $(BUILD)/compare-real-test
