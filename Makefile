# freecheck - top-level Makefile.
#
# make, make all    build everything into build/ (library, tools, workloads, harness)
# make deps         install the Debian packages the build needs (scripts/deps.sh)
# make test         every test, against the checked build (build/check, CHECKS=1); prints
#                   "tests: N passed, M failed" last; make test-NAME runs one
#                   (grep -h '^TESTS' */module.mk tests/*/module.mk lists them)
# make sweep        the full default sweep, timed and simulated parts (QUICK=1: a small smoke sweep;
#                   REPLICATES=K: K replicates of it, one after another;
#                   REPLICATE_ORDER=interleaved: round by round instead)
# make sweep-slurm  the sweep sharded over a Slurm cluster, merged, analysed and drawn (docs/HARNESS.md)
# make figures      statistics and figures again from stored results [RESULTS=dir]
# make compare      A=dir B=dir: the cells of two sweeps compared, with a forest plot (docs/STATISTICS.md)
# make accuracy     the sampler's exact counts and estimates against one exact run (accuracy/accuracy.sh)
# make peers        freecheck's sampler beside jemalloc's, gperftools', HotSpot's, Go's and V8's (docs/WORKLOADS.md)
# make peers-build  only build the peers' programs (workloads/peers/)
# make validate     does the analysis recover a known injected per-sample cost? (about 10 min on a CPU of its own)
# make soak         every workload many times with the sampler thread at 2-10 kHz, with and without
#                   SGC_ALTERNATE=time: crashes, retries, torn periods [SOAK_RUNS=10 SOAK_RATES=2000,5000,10000] (docs/RUNTIME.md)
# make bench        the micro-benchmarks (figures, not pass/fail); make bench-NAME runs one
#                   (grep -h '^BENCHES' */module.mk */*/module.mk lists them)
# make fuzz         a longer libFuzzer run of the sampler model fuzzer (fuzz-sampler)
# make format       lays out every C file as .clang-format says (format-check: only check)
# make clean        removes build/
#
# Settings (override on the command line):
#   CC=gcc OPT=-O2       compiler and optimisation
#   SANITIZE=address,undefined   sanitizer build, goes to build/san unless BUILD is set
#   BUILD=dir            output directory
#   CHECKS=1             checked invariants compiled in (-DSGC_CHECKS=1), into build/check unless BUILD is set
#                        (make test does this itself; the sanitizer builds have them too)
#   EXTRA_CFLAGS=...     appended to CFLAGS
#   TEST_JOBS=2          make test's build jobs, and how many of the tests declared parallel-safe
#                        (TESTS_PARALLEL) run at once; every other test runs alone
# Every module contributes through its own module.mk: BINS (programs built by
# "make"), TESTS (phony targets that "make test" runs; each records its result
# through tests/check.sh).

CC ?= cc
OPT ?= -O2
SANITIZE ?=
# Checked invariants (SGC_ASSERT, SW_ASSERT, ST_ASSERT; docs/RUNTIME.md,
# "Checked invariants"): CHECKS=1 compiles them in (-DSGC_CHECKS=1; the make
# variable is not named SGC_CHECKS because make puts a command line's
# variables into every recipe's environment, where the runtime refuses an
# SGC_* name it does not know).
# The measured build - make, make sweep and the benchmarks, in build/ -
# leaves them out; sanitizer builds have them unless CHECKS=0; make test
# builds and tests the checked build, $(BUILD)/check.  A checked build
# without a sanitizer goes to build/check unless BUILD is set, so its
# objects never mix with the measured ones.
ifneq ($(strip $(SANITIZE)),)
CHECKS ?= 1
else
CHECKS ?= 0
endif
CHECK_FLAGS := $(if $(filter-out 0,$(CHECKS)),-DSGC_CHECKS=1)
ifneq ($(strip $(SANITIZE)),)
BUILD ?= build/san
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD ?= $(if $(CHECK_FLAGS),build/check,build)
SAN_FLAGS :=
endif

WARN := -Wall -Wextra -Wno-unused-parameter
CFLAGS := -std=gnu11 $(WARN) -g $(OPT) -MMD -MP -Iruntime $(SAN_FLAGS) $(CHECK_FLAGS) $(EXTRA_CFLAGS)
LDFLAGS := $(SAN_FLAGS)
LDLIBS := -lm

OBJ := $(BUILD)/obj
# Generated headers (files of the repository embedded into programs).
GEN := $(BUILD)/gen
CFLAGS += -I$(GEN)
BIN := $(BUILD)/bin
LIBDIR := $(BUILD)/lib
# Where tests/check.sh records results; exported so recursive (e.g. sanitizer)
# builds record into the same place.
TEST_RESULTS ?= $(BUILD)/test-results
export TEST_RESULTS

BINS :=
TESTS :=
BENCHES :=
FUZZERS :=
CLEAN_EXTRA :=

.PHONY: all deps test clean bench fuzz sweep figures validate compare peers soak
all:

include $(sort $(wildcard */module.mk */*/module.mk))

all: $(BINS)

# The measurement pipeline.  build/bin/sweep runs the plan and stores
# results/<sweep-id>/results.db (results/latest points at it); build/bin/analyze
# computes the statistics and the plot data into the same directory;
# plots/figures.sh draws them into <dir>/figures/.
RESULTS ?= results/latest
sweep: deps
	@$(MAKE) --no-print-directory all
	@rc=0; $(BIN)/sweep $(if $(QUICK),--quick) $(if $(REPLICATES),--replicates $(REPLICATES)) $(if $(REPLICATE_ORDER),--replicate-order $(REPLICATE_ORDER)) $(SWEEP_ARGS) || rc=$$?; \
	if [ $$rc -ne 0 ] && [ $$rc -ne 3 ]; then exit $$rc; fi; \
	$(MAKE) --no-print-directory figures RESULTS=results/latest || exit $$?; \
	if [ $$rc -eq 3 ]; then echo "make sweep: some runs failed (reasons above); the statistics use the others"; exit 3; fi

figures: deps
	@$(MAKE) --no-print-directory all
	$(BIN)/analyze $(RESULTS)
	ANALYZE=$(BIN)/analyze sh plots/figures.sh $(RESULTS)

# The peers sweep (docs/WORKLOADS.md, "The peers sweep: make peers"): binarytrees and
# gcbench on freecheck and on every other runtime whose peer programs are built
# (workloads/peers.list; a peer that is not built is skipped with the reason), in three
# parts: the process level (blocked design, poisson mode, periods PEERS_PERIODS, no time
# cells) with the simulated part (every cell under cachegrind, PEERS_BACKENDS) in one
# sweep, then the in-process design (periods PEERS_INPROC_PERIODS, PEERS_INPROC_ARGS) in
# a second; the statistics and figures of both; the peers table of the first with the
# second's in-process estimates (build/bin/peers-report --inprocess: peers.md, peers.csv)
# and figure 8 drawn again with them.  PEERS_ARGS adds options to the first sweep (e.g.
# --runs 5 --target 0.2); PEERS_OUT is the results root.
PEERS_PERIODS ?= 32K,128K,512K,2M,4M,8M,32M
PEERS_BACKENDS ?= native,sim
PEERS_INPROC_PERIODS ?= 32K,512K
PEERS_INPROC_ARGS ?= --runs 3 --warmup 0 --target 3
PEERS_OUT ?= results
peers: deps
	@$(MAKE) --no-print-directory all $(if $(PEER_SYSTEMS),peers-build)
	@rc=0; $(BIN)/sweep --list workloads/peers.list --backends $(PEERS_BACKENDS) --design blocked --modes poisson \
	    --periods $(PEERS_PERIODS) --time-hz none --out $(PEERS_OUT) $(PEERS_ARGS) || rc=$$?; \
	if [ $$rc -ne 0 ] && [ $$rc -ne 3 ]; then exit $$rc; fi; \
	main=$$(readlink -f $(PEERS_OUT)/latest); \
	$(BIN)/sweep --list workloads/peers.list --backends native --design inprocess --modes poisson \
	    --periods $(PEERS_INPROC_PERIODS) --time-hz none --out $(PEERS_OUT) $(PEERS_INPROC_ARGS) || rc=$$?; \
	if [ $$rc -ne 0 ] && [ $$rc -ne 3 ]; then exit $$rc; fi; \
	inproc=$$(readlink -f $(PEERS_OUT)/latest); \
	$(MAKE) --no-print-directory figures RESULTS=$$inproc || exit $$?; \
	$(MAKE) --no-print-directory figures RESULTS=$$main || exit $$?; \
	$(BIN)/peers-report --inprocess $$inproc $$main || exit $$?; \
	ANALYZE=$(BIN)/analyze sh plots/figures.sh $$main || exit $$?; \
	ln -sfn $$(basename $$main) $(PEERS_OUT)/latest; \
	echo "make peers: the table is $$main/peers.md (in-process estimates from $$inproc); the figures are in $$main/figures (figure 8, peers.png, sets the systems side by side)"; \
	if [ $$rc -eq 3 ]; then echo "make peers: some runs failed (reasons above); the statistics use the others"; exit 3; fi

# Compare two sweeps: make compare A=dir B=dir [COMPARE_ARGS='--threshold 5%'] [COMPARE_OUT=dir:
# the report files and the forest plot, plots/compare.gp, into dir].
# Fails when compare does (make reports "Error 1" for a regression, "Error 2" for bad input);
# CI jobs that need the 0/1/2 status run build/bin/compare itself (docs/STATISTICS.md).
compare: deps
	@$(MAKE) --no-print-directory $(BIN)/compare
	@if [ -z "$(A)" ] || [ -z "$(B)" ]; then echo "make compare: give both sweeps: make compare A=dir B=dir" >&2; exit 2; fi
	@if [ -z "$(COMPARE_OUT)" ]; then $(BIN)/compare $(COMPARE_ARGS) $(A) $(B); else \
	  rc=0; $(BIN)/compare $(COMPARE_ARGS) --out $(COMPARE_OUT) $(A) $(B) || rc=$$?; \
	  if [ $$rc -ne 2 ] && [ -f $(COMPARE_OUT)/compare.dat ]; then \
	    sh plots/figures.sh --compare $(COMPARE_OUT) || exit $$?; \
	    echo "make compare: wrote $(COMPARE_OUT)/compare.md, .csv, .json, .png, .svg"; fi; \
	  exit $$rc; fi

# The suite checks itself: every sample costs a known D more (SGC_SAMPLE_SPIN_NS), and the
# analysis must recover it (scripts/validate.sh, docs/STATISTICS.md "Validation").
# VALIDATE_OUT=dir picks the output directory (default results/validation-<time>).
validate: deps
	@$(MAKE) --no-print-directory all
	BIN=$(BIN) sh scripts/validate.sh $(VALIDATE_OUT)

# The sampler thread's soak (scripts/soak.sh, docs/RUNTIME.md "Soak"): SOAK_RUNS runs of every
# workload (SOAK_WORKLOADS) per rate (SOAK_RATES, Hz) and alternation (SOAK_ALTERNATE: off, time),
# each about SOAK_SECONDS long (or SOAK_SIZES=w=N,...), pinned to CPU SOAK_CPU; the table goes to
# SOAK_OUT/soak.txt.  Fails (exit 1) if any run crashed or failed.
SOAK_RUNS ?= 10
SOAK_RATES ?= 2000,5000,10000
SOAK_ALTERNATE ?= off,time
SOAK_WORKLOADS ?= $(shell sed 's/\#.*//' workloads/workloads.list | tr -s ' \n' ',' | sed 's/^,//; s/,$$//')
SOAK_SECONDS ?= 1
SOAK_SIZES ?=
SOAK_CPU ?= 1
SOAK_TIMEOUT ?= 300
SOAK_OUT ?= $(BUILD)/soak
soak:
	@$(MAKE) --no-print-directory all
	BIN=$(BIN) SOAK_RUNS=$(SOAK_RUNS) SOAK_RATES=$(SOAK_RATES) SOAK_ALTERNATE=$(SOAK_ALTERNATE) \
	    SOAK_WORKLOADS=$(SOAK_WORKLOADS) SOAK_SECONDS=$(SOAK_SECONDS) SOAK_SIZES=$(SOAK_SIZES) SOAK_CPU=$(SOAK_CPU) \
	    SOAK_TIMEOUT=$(SOAK_TIMEOUT) SOAK_OUT=$(SOAK_OUT) sh scripts/soak.sh

bench: all $(BENCHES)
fuzz: $(FUZZERS)

deps:
	@sh scripts/deps.sh

# make test runs in phases (each check records its own result, so one failure
# does not hide the others; a test target that fails outside a check - it did
# not build, say - counts as one failed test):
#   1. the build, `make all` with TEST_JOBS jobs, then each of TEST_BUILDS
#      (below), one after another, each with TEST_JOBS jobs; a build that
#      fails here fails again in its tests, which record why;
#   2. the tests of TESTS_PARALLEL, TEST_JOBS at a time (output kept whole per
#      test: make -Otarget);
#   3. every other test of TESTS, one at a time, in the order listed.
# The measured build does not test itself: make test builds and tests the
# checked one (CHECKS=1 in $(BUILD)/check), which compiles the same
# sources with the checked invariants in.
TEST_JOBS ?= 2

# Tests that may run beside another test (phase 2).  Each one counts exact
# things and passes on a busy CPU: it compares no time or rate, waits on no
# fixed sleep, pins no CPU and takes no sweep CPU lock (so it runs no real
# sweep), runs neither valgrind nor Slurm, shares no file, directory or daemon
# with another test, and builds through a recursive make only what TEST_BUILDS
# builds first, never into $(BUILD) itself (such a make reads the dependency
# files this phase is writing: test-runtime-checks stays serial).  A test not named here runs alone (phase 3): a new test is
# serial until it is shown to meet this and added.
TESTS_PARALLEL := \
    format-check test-makefile-header test-include-graph test-harness-settings-doc \
    test-contracts test-compare-unit test-harness-plan test-harness-sim test-harness-cmdunit \
    test-harness-schedcheck test-plan-levels test-inproc-stats test-stats test-stats-coverage \
    test-sampler-unit test-sampler-poisson test-sampler-replay test-sampler-frame-order test-sampler-fuzz \
    test-compare test-compare-sizes test-summary-json test-doc-numbers test-replicate-check \
    test-stats-summary test-stats-replicates test-stats-doc test-stats-files test-stats-san \
    test-inproc-levels test-peers-plausible test-peers-simreport test-peers-levels \
    plots-fixture plots-bad-input plots-layout plots-peers-sim \
    test-accuracy test-sgcprof-io test-profile test-profile-compat test-profile-pprof \
    test-interp test-interp-san test-wl-common test-wl-args $(WLT_NAMES:%=test-wl-%) $(WLT_NAMES:%=test-wl-san-%) \
    test-runtime-stress test-runtime-stress-mode

# Phase 1's programs besides `all`: those the tests build in this make
# (TEST_PROGS), and those they build through a recursive make - the sanitizer
# build (TEST_SAN_PROGS, in $(BUILD)/san), the ThreadSanitizer one
# (TEST_TSAN_PROGS), the measured library (test-runtime-checks), one
# recursive make after another (two at once would write the same objects), then
# each system's peers (peers-build-*, one at a time).  A test that builds anything else through a
# recursive make cannot be in TESTS_PARALLEL unless it is added here.
TEST_PROGS := $(RT_TEST_DIR)/checks-prog $(FUZZ_BIN) $(SAMPLER_TEST_DIR)/fastpath-loop-nosampler
TEST_SAN_PROGS := $(addprefix $(BUILD)/san/bin/,$(ST_SAN_BINS) $(WLT_NAMES) interp annotate tests/timer_stress) \
    $(BUILD)/san/$(THREAD_RACE) $(BUILD)/san/tests/runtime/test-runtime-unit $(BUILD)/san/tests/runtime/gc-stress
TEST_TSAN_PROGS := $(BUILD)/tsan/$(THREAD_RACE)
TEST_BUILDS := "$(TEST_PROGS)" "BUILD=$(BUILD)/san SANITIZE=address,undefined $(TEST_SAN_PROGS)" \
    "BUILD=$(BUILD)/tsan SANITIZE=thread $(TEST_TSAN_PROGS)" \
    "CHECKS=0 SANITIZE= BUILD=$(MEASURED_BUILD) $(MEASURED_BUILD)/lib/libsgc.a"

TESTS_PAR_RUN = $(filter $(TESTS_PARALLEL),$(TESTS))
TESTS_SERIAL = $(filter-out $(TESTS_PARALLEL),$(TESTS))
TEST_MAKE_FAILED = { echo "FAIL some test targets did not complete (see the make errors above)"; \
    echo "0 1" > $(TEST_RESULTS)/make-targets.result; }

ifeq ($(CHECK_FLAGS),)
test: deps
	@$(MAKE) --no-print-directory CHECKS=1 BUILD=$(BUILD)/check MEASURED_BUILD=$(BUILD) test
else
test: deps
	@rm -rf $(TEST_RESULTS) && mkdir -p $(TEST_RESULTS)
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) all
	@for t in $(TEST_BUILDS); do $(MAKE) --no-print-directory -j$(TEST_JOBS) -k $$t >/dev/null || \
	    echo "make test: make $$t failed (errors above); the tests that need it fail and say why"; done
	@$(MAKE) --no-print-directory $(PEER_ALT_SYSTEMS:%=peers-build-%)
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) -Otarget -k $(TESTS_PAR_RUN) || $(TEST_MAKE_FAILED)
	@$(MAKE) --no-print-directory -k $(TESTS_SERIAL) || $(TEST_MAKE_FAILED)
	@sh tests/summary.sh $(TEST_RESULTS)
endif

# contracts/schema.sql, embedded into sweep (harness/sw_db.c) and analyze (stats/st_db.c).
$(GEN)/schema_sql.h: contracts/schema.sql scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh fc_schema_sql contracts/schema.sql > $@.tmp && mv $@.tmp $@

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The code style (.clang-format): `make format` rewrites every C file of the
# tree in place; `make format-check` (one of the tests) fails naming the
# files that differ.
.PHONY: format format-check
format: deps
	sh scripts/format-files.sh | xargs clang-format --style=file -i
format-check:
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh format-check sh scripts/format-check.sh
TESTS += format-check

clean:
	rm -rf build $(CLEAN_EXTRA)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
