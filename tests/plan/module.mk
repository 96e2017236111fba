# tests/plan/module.mk - the plan's own tests (harness/sw_plan.c): the
# in-process levels rule (--levels-from) against independently computed
# choices and end to end on a fixture sweep, the plan's counts as meta
# counts them, and --plan --estimate's wall-time line.
PLAN_TEST_BIN := $(BUILD)/test-bin/plan

$(PLAN_TEST_BIN)/test_levels: tests/plan/test_levels.c $(HARNESS_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HARNESS_CFLAGS) $^ -o $@ $(LDFLAGS) $(HARNESS_CRITERION) $(HARNESS_LIBS) $(LDLIBS)

.PHONY: test-plan-levels test-plan-levels-e2e
test-plan-levels: $(PLAN_TEST_BIN)/test_levels
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh plan-levels $<
test-plan-levels-e2e: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh plan-levels-e2e env SWEEP=$(BIN)/sweep \
		FAKE_BIN=$(HARNESS_TEST_BIN) sh tests/plan/levels.sh

TESTS += test-plan-levels test-plan-levels-e2e
