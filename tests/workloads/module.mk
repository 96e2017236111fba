# tests/workloads/module.mk - the workloads' tests (in "make test"):
#   test-wl-common         Criterion: the shared helper (arguments and their exit
#                          statuses, checksum, --check failure, type registration)
#   test-wl-args           every workload: bad arguments and settings exit 2, --help 0
#   test-wl-<name>         workload <name> at a small size passes --check plain, in GC
#                          stress mode with the verifier, with both samplers on, with
#                          poisson sampling in a tiny nursery, with a period larger
#                          than the nursery, with SGC_HUGEPAGES=1; all print the
#                          same checksum
#   test-wl-san-<name>     the same in the ASan+UBSan build ($(BUILD)/san)
# The small sizes are chosen so the whole set takes well under a minute.
WLT_DIR := $(BUILD)/tests/workloads
WLT_CRITERION_LIBS := $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)
WLT_NAMES := gcbench microbench binarytrees largeobj deepstack compute lrucache

# Small sizes, and the stress period (a minor collection every N allocations).
WLT_ARGS_gcbench := --size 1
WLT_ARGS_microbench := --size 2
WLT_ARGS_binarytrees := --size 1 --depth 6
WLT_ARGS_largeobj := --size 150
WLT_ARGS_deepstack := --size 3 --depth 40
WLT_ARGS_compute := --size 3
WLT_ARGS_lrucache := --size 3 --capacity 300
WLT_STRESS := 7
WLT_SAN_STRESS := 61

$(OBJ)/tests/workloads/%.o: CFLAGS += -Iworkloads $(shell pkg-config --cflags criterion 2>/dev/null)

$(WLT_DIR)/test-wl-common: $(OBJ)/tests/workloads/test_wl_common.o $(OBJ)/workloads/wl_common.o \
		$(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(WLT_CRITERION_LIBS) $(LDLIBS)

.PHONY: test-wl-common test-wl-args wl-san-build $(WLT_NAMES:%=test-wl-%) $(WLT_NAMES:%=test-wl-san-%)

test-wl-common: $(WLT_DIR)/test-wl-common
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ $< --jobs=2

test-wl-args: $(WLT_NAMES:%=$(BIN)/%)
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/workloads/args_check.sh $(BIN) $(WLT_NAMES)

$(WLT_NAMES:%=test-wl-%): test-wl-%: $(BIN)/%
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ \
	    sh tests/workloads/run_workload.sh $(BIN) $(WLT_STRESS) $* $(WLT_ARGS_$*)

# The sanitizer build of the workloads, made once per "make test".
wl-san-build:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANITIZE=address,undefined \
	    $(WLT_NAMES:%=$(BUILD)/san/bin/%) >/dev/null

$(WLT_NAMES:%=test-wl-san-%): test-wl-san-%: wl-san-build
	@TEST_RESULTS=$(TEST_RESULTS) ASAN_OPTIONS=detect_leaks=0 sh tests/check.sh $@ \
	    sh tests/workloads/run_workload.sh $(BUILD)/san/bin $(WLT_SAN_STRESS) $* $(WLT_ARGS_$*)

TESTS += test-wl-common test-wl-args $(WLT_NAMES:%=test-wl-%) $(WLT_NAMES:%=test-wl-san-%)
