# tests/harness/module.mk - the harness's tests: unit tests (plan, schedule,
# options, counters, exec), failure handling, kill -9 and --resume, and the
# quick sweep end to end.  Their stand-in workloads go to $(BUILD)/test-bin/harness.
HARNESS_TEST_BIN := $(BUILD)/test-bin/harness
HARNESS_FAKES := ok alt crash hang badsum badcheck nostats badstats min max
HARNESS_CRITERION := $(shell pkg-config --cflags --libs criterion 2>/dev/null || echo -lcriterion)

# Built without sanitizers even in sanitizer builds: the stand-ins must crash
# and hang natively, the way the tests expect.
$(HARNESS_TEST_BIN)/fakework: tests/harness/fakework.c runtime/sgc_stats_keys.h
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fsanitize% -fno-sanitize%,$(CFLAGS)) $< -o $@
	cd $(dir $@) && for n in $(HARNESS_FAKES); do ln -sf fakework fake-$$n; done

$(HARNESS_TEST_BIN)/test_plan: tests/harness/test_plan.c tests/harness/test_adapt.c $(HARNESS_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HARNESS_CFLAGS) -Istats $^ -o $@ $(LDFLAGS) $(HARNESS_CRITERION) $(HARNESS_LIBS) $(LDLIBS)

$(HARNESS_TEST_BIN)/test_pfm: tests/harness/test_pfm.c $(HARNESS_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HARNESS_CFLAGS) $^ -o $@ $(LDFLAGS) $(HARNESS_CRITERION) $(HARNESS_LIBS) $(LDLIBS)

$(HARNESS_TEST_BIN)/test_sim: tests/harness/test_sim.c $(HARNESS_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HARNESS_CFLAGS) $^ -o $@ $(LDFLAGS) $(HARNESS_CRITERION) $(HARNESS_LIBS) $(LDLIBS)

HARNESS_TEST_ENV := SWEEP=$(BIN)/sweep FAKE_BIN=$(HARNESS_TEST_BIN) BIN=$(BIN) TEST_RESULTS=$(TEST_RESULTS)

.PHONY: test-harness-sim test-harness-simrun
test-harness-sim: $(HARNESS_TEST_BIN)/test_sim
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh harness-sim env HARNESS_FIXTURES=tests/harness/fixtures $<
test-harness-simrun: $(BIN)/sweep $(BIN)/analyze $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) ANALYZE=$(BIN)/analyze sh tests/check.sh harness-simrun sh tests/harness/sim.sh
.PHONY: test-harness-plan test-harness-pfm test-harness-failures test-harness-resume test-harness-quick test-harness-depth test-harness-env
test-harness-plan: $(HARNESS_TEST_BIN)/test_plan
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh harness-plan $<
test-harness-pfm: $(HARNESS_TEST_BIN)/test_pfm
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh harness-pfm $<
test-harness-failures: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-failures sh tests/harness/failures.sh
test-harness-resume: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-resume sh tests/harness/resume.sh
test-harness-quick: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-quick sh tests/harness/quick.sh
test-harness-depth: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-depth sh tests/harness/depth.sh

.PHONY: test-harness-adaptive
test-harness-adaptive: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-adaptive sh tests/harness/adaptive.sh
TESTS += test-harness-adaptive

test-harness-env: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-env sh tests/harness/env.sh

# sweep --replicates K and --sizes-from DIR (tests/harness/replicates.sh).
.PHONY: test-harness-replicates
test-harness-replicates: $(BIN)/sweep $(BIN)/analyze $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-replicates sh tests/harness/replicates.sh
TESTS += test-harness-replicates

.PHONY: test-harness-estimate
test-harness-estimate: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-estimate sh tests/harness/estimate.sh
TESTS += test-harness-estimate

.PHONY: test-harness-diskfull test-harness-cpulock
test-harness-cpulock: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-cpulock sh tests/harness/cpulock.sh

test-harness-diskfull: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-diskfull sh tests/harness/diskfull.sh

TESTS += test-harness-sim test-harness-simrun
TESTS += test-harness-plan test-harness-pfm test-harness-failures test-harness-resume test-harness-quick test-harness-depth \
	test-harness-env test-harness-diskfull test-harness-cpulock

# Command workloads (harness/sw_cmd.h): templates and each peer's mapping
# (unit), and a tiny sweep of declared commands.
$(HARNESS_TEST_BIN)/test_cmd: tests/harness/test_cmd.c $(HARNESS_LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(HARNESS_CFLAGS) $^ -o $@ $(LDFLAGS) $(HARNESS_CRITERION) $(HARNESS_LIBS) $(LDLIBS)

.PHONY: test-harness-cmd test-harness-cmdunit
test-harness-cmdunit: $(HARNESS_TEST_BIN)/test_cmd
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh harness-cmdunit $<
TESTS += test-harness-cmdunit
test-harness-cmd: $(BIN)/sweep $(BIN)/analyze $(BIN)/peers-report $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) ANALYZE=$(BIN)/analyze PEERS_REPORT=$(BIN)/peers-report sh tests/check.sh harness-cmd \
	    sh tests/harness/cmd.sh
TESTS += test-harness-cmd

# A file the runs depend on changing during a sweep, and --resume after it.
.PHONY: test-harness-watch
test-harness-watch: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-watch sh tests/harness/watch.sh
TESTS += test-harness-watch

# Every run's stats record judged by the rules analyze uses (runtime/sgc_statsrec.h).
.PHONY: test-harness-records
test-harness-records: $(BIN)/sweep $(BIN)/analyze $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) ANALYZE=$(BIN)/analyze sh tests/check.sh harness-records sh tests/harness/records.sh
TESTS += test-harness-records

# A simulated run's counts from any environment, and across a kill and --resume.
.PHONY: test-harness-determinism
test-harness-determinism: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-determinism sh tests/harness/determinism.sh
TESTS += test-harness-determinism

# --resume refuses an edited or damaged sweep, another build, a directory that is not a sweep's.
.PHONY: test-harness-resumecheck
test-harness-resumecheck: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-resumecheck sh tests/harness/resumecheck.sh
TESTS += test-harness-resumecheck

# sweep --time-modes signal,thread end to end (a quick gcbench sweep and
# analyze), its refusals, the default rule by the CPU affinity, older sweeps.
.PHONY: test-harness-timemodes
test-harness-timemodes: $(BIN)/sweep $(BIN)/analyze $(BIN)/gcbench $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) ANALYZE=$(BIN)/analyze sh tests/check.sh harness-timemodes sh tests/harness/timemodes.sh
TESTS += test-harness-timemodes

# Settings that would make every run fail, and inputs partly dropped, refused up front.
.PHONY: test-harness-refusals
test-harness-refusals: $(BIN)/sweep $(BIN)/gcbench $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-refusals sh tests/harness/refusals.sh
TESTS += test-harness-refusals

# tinypeer: a real runtime that is not freecheck's for the command workload
# tests (tests/harness/tinypeer.c: the C peers' binarytrees on glibc's malloc
# with a small sampler of its own), timed, in-process and simulated.
HARNESS_TINYPEER_OBJS := $(OBJ)/workloads/peers/binarytrees.o $(OBJ)/workloads/peers/pr_common.o \
	$(OBJ)/workloads/peers/pr_alt.o $(OBJ)/contracts/ct_out.o $(OBJ)/contracts/ct_alloc.o
$(HARNESS_TEST_BIN)/tinypeer: tests/harness/tinypeer.c $(HARNESS_TINYPEER_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ -Wl,--wrap=malloc,--wrap=calloc $(LDLIBS)

# Command workloads in the in-process design and the simulated part, end to
# end on the tiny peer; the implausible-count warning (tests/harness/cmdparts.sh).
.PHONY: test-harness-cmdparts
test-harness-cmdparts: $(BIN)/sweep $(BIN)/analyze $(BIN)/peers-report $(BIN)/binarytrees $(HARNESS_TEST_BIN)/fakework \
		$(HARNESS_TEST_BIN)/tinypeer
	@$(HARNESS_TEST_ENV) ANALYZE=$(BIN)/analyze PEERS_REPORT=$(BIN)/peers-report sh tests/check.sh harness-cmdparts \
	    sh tests/harness/cmdparts.sh
TESTS += test-harness-cmdparts

# Calibration in the in-process design probes the design's A/A run
# (tests/harness/inprocal.sh).
.PHONY: test-harness-inprocal
test-harness-inprocal: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework $(HARNESS_TEST_BIN)/tinypeer
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-inprocal sh tests/harness/inprocal.sh
TESTS += test-harness-inprocal

# docs/RUNTIME.md's and docs/HARNESS.md's settings tables against
# SGC_SETTINGS (tests/harness/settings_doc.sh).
$(HARNESS_TEST_BIN)/settings_doc: tests/harness/settings_doc.c contracts/sgc_settings_table.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@
.PHONY: test-harness-settings-doc
test-harness-settings-doc: $(HARNESS_TEST_BIN)/settings_doc
	@SETTINGS_DOC=$(HARNESS_TEST_BIN)/settings_doc TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh harness-settings-doc \
		sh tests/harness/settings_doc.sh
TESTS += test-harness-settings-doc

# sweep --merge of shards from before the cells' time_mode column with newer
# ones (tests/harness/mergeold.sh).
.PHONY: test-harness-mergeold
test-harness-mergeold: $(BIN)/sweep $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) sh tests/check.sh harness-mergeold sh tests/harness/mergeold.sh
TESTS += test-harness-mergeold

# The Makefile's header names every target a user runs (tests/harness/makeheader.sh).
.PHONY: test-makefile-header
test-makefile-header:
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh makefile-header sh tests/harness/makeheader.sh
TESTS += test-makefile-header

# The schedule's invariants (harness/sw_schedcheck.h), the checker compiled
# with SGC_CHECKS=1 whatever the build's setting.
$(HARNESS_TEST_BIN)/test_schedcheck: tests/harness/test_schedcheck.c harness/sw_schedcheck.c \
		$(filter-out $(OBJ)/harness/sw_schedcheck.o,$(HARNESS_LIB_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DSGC_CHECKS=1 $(HARNESS_CFLAGS) -Iharness $^ -o $@ $(LDFLAGS) $(HARNESS_CRITERION) $(HARNESS_LIBS) \
		$(LDLIBS)
.PHONY: test-harness-schedcheck
test-harness-schedcheck: $(HARNESS_TEST_BIN)/test_schedcheck
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh harness-schedcheck $(HARNESS_TEST_BIN)/test_schedcheck
TESTS += test-harness-schedcheck
