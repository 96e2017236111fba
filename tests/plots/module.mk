# tests/plots/module.mk - the figure tests: plots/figures.sh on a synthetic fixture sweep, on bad input, and end to end.
#
# plots-fixture    every figure drawn from tests/plots/mkfixture.sh's fixture (PNG, SVG, caption), repeatably
# plots-bad-input  missing/empty/corrupt plot data: exit status, messages, other figures drawn, nothing good lost
# Work files go to $(BUILD)/plots-test.
PLOTS_TEST_DIR := $(BUILD)/plots-test

.PHONY: plots-fixture plots-bad-input
TESTS += plots-fixture plots-bad-input

plots-fixture:
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh plots-fixture sh tests/plots/fixture-test.sh $(PLOTS_TEST_DIR)/fixture

plots-bad-input:
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh plots-bad-input sh tests/plots/bad-input-test.sh $(PLOTS_TEST_DIR)/bad-input
