# tests/plots/module.mk - the figure tests: plots/figures.sh on a synthetic fixture sweep, on bad input, and end to end.
#
# plots-fixture    every figure drawn from tests/plots/mkfixture.sh's fixture (PNG, SVG, caption), repeatably
# plots-bad-input  missing/empty/corrupt plot data: exit status, messages, other figures drawn, nothing good lost
# plots-layout     every figure drawn from the fixture, results/reference and results/reference-peers:
#                  titles within the canvas, tick labels, the plan's periods, notes for off-axis values
# plots-peers-sim  peer sweeps without timed cells (copies of results/reference-peers-sim and
#                  -inprocess-aa): figures S1, S2 drawn from the simulated part's poisson-mode cells,
#                  figure 8 not drawn with its reason in index.md (tests/plots/peers-sim-test.sh)
# plots-e2e        its own quick sweep (about 10 s here), `make figures` on it, then on a copy holding only
#                  results.db: summaries and figures rebuilt, no run started, nothing stored changed;
#                  and figure 5 from analyze's output for tests/plots/depth.sql (synthetic depths)
# Work files go to $(BUILD)/plots-test.
PLOTS_TEST_DIR := $(BUILD)/plots-test

.PHONY: plots-fixture plots-bad-input plots-layout plots-peers-sim plots-e2e
TESTS += plots-fixture plots-bad-input plots-layout plots-peers-sim plots-e2e

plots-fixture: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) ANALYZE=$(BIN)/analyze sh tests/check.sh plots-fixture sh tests/plots/fixture-test.sh $(PLOTS_TEST_DIR)/fixture

plots-bad-input: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) ANALYZE=$(BIN)/analyze sh tests/check.sh plots-bad-input sh tests/plots/bad-input-test.sh $(PLOTS_TEST_DIR)/bad-input

plots-layout: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) ANALYZE=$(BIN)/analyze sh tests/check.sh plots-layout sh tests/plots/layout-test.sh $(PLOTS_TEST_DIR)/layout

plots-peers-sim: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) ANALYZE=$(BIN)/analyze sh tests/check.sh plots-peers-sim sh tests/plots/peers-sim-test.sh $(PLOTS_TEST_DIR)/peers-sim

plots-e2e: $(BIN)/sweep $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) SWEEP=$(BIN)/sweep ANALYZE=$(BIN)/analyze BUILD=$(BUILD) MAKE="$(MAKE)" \
		sh tests/check.sh plots-e2e sh tests/plots/e2e-test.sh $(PLOTS_TEST_DIR)/e2e
