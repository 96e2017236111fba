# tests/runtime/module.mk - the collector's tests (in "make test"):
#   test-runtime-unit        Criterion: allocation, minor/major collections, the
#                            write barrier, large objects, frames, globals, the
#                            verifier, poisoning, the stats record, settings,
#                            the validation spin (SGC_SAMPLE_SPIN_NS), huge
#                            pages (SGC_HUGEPAGES) and their fallback, the
#                            output files (SGC_PROFILE, SGC_STATS, SGC_ALT_OUT:
#                            special files, one file named twice), misuse
#                            of the API (test_api.c)
#   test-runtime-stress      gc_stress (random graphs against a shadow model),
#                            small nursery, heap verifier on, three seeds
#   test-runtime-stress-mode the same with SGC_GC_STRESS (a minor collection
#                            every few allocations) and SGC_POISON
#   test-runtime-san         unit tests and gc_stress again, built with
#                            ASan+UBSan into $(BUILD)/san
#   test-runtime-checks      the checked invariants (CHECKS=1): two broken
#                            on purpose abort with their file:line, condition
#                            and reason; the measured build's library holds no
#                            check (no sgc__assert_fail, none of their strings)
# GC_STRESS_STEPS scales the stress runs (default 6000 steps per seed).
RT_TEST_DIR := $(BUILD)/tests/runtime
RT_CRITERION_LIBS := $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)
GC_STRESS_STEPS ?= 6000

$(OBJ)/tests/runtime/%.o: CFLAGS += $(shell pkg-config --cflags criterion 2>/dev/null)

$(RT_TEST_DIR)/test-runtime-unit: $(OBJ)/tests/runtime/test_gc.o $(OBJ)/tests/runtime/test_settings.o \
		$(OBJ)/tests/runtime/test_spin.o $(OBJ)/tests/runtime/test_los.o $(OBJ)/tests/runtime/test_huge.o \
		$(OBJ)/tests/runtime/test_output.o $(OBJ)/tests/runtime/test_api.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(RT_CRITERION_LIBS) $(LDLIBS)

$(RT_TEST_DIR)/gc-stress: $(OBJ)/tests/runtime/gc_stress.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# The checked build (this one under make test, else $(BUILD)/check) and the
# measured one (build/, or what make test was started in), each built by a
# recursive make so that the test holds whichever build it runs in.
RT_CHECKS_BUILD := $(if $(CHECK_FLAGS),$(BUILD),$(BUILD)/check)
MEASURED_BUILD ?= $(if $(CHECK_FLAGS),build,$(BUILD))
.PHONY: test-runtime-checks
test-runtime-checks:
	@sh tests/check.sh runtime-checks sh -c '$(MAKE) --no-print-directory CHECKS=1 BUILD=$(RT_CHECKS_BUILD) \
	    $(RT_CHECKS_BUILD)/tests/runtime/checks-prog >/dev/null && \
	    $(MAKE) --no-print-directory CHECKS=0 SANITIZE= BUILD=$(MEASURED_BUILD) \
	    $(MEASURED_BUILD)/lib/libsgc.a >/dev/null && \
	    sh tests/runtime/checks_check.sh $(RT_CHECKS_BUILD)/tests/runtime/checks-prog $(MEASURED_BUILD)/lib/libsgc.a'
$(RT_TEST_DIR)/checks-prog: $(OBJ)/tests/runtime/checks_prog.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: test-runtime-unit test-runtime-stress test-runtime-stress-mode test-runtime-san
test-runtime-unit: $(RT_TEST_DIR)/test-runtime-unit
	@sh tests/check.sh runtime-unit $< --jobs=2
test-runtime-stress: $(RT_TEST_DIR)/gc-stress
	@sh tests/check.sh runtime-stress sh -c 'for s in 1 2 3; do \
	    SGC_VERIFY=1 SGC_NURSERY=16K $< --seed $$s --steps $(GC_STRESS_STEPS) || exit 1; done'
test-runtime-stress-mode: $(RT_TEST_DIR)/gc-stress
	@sh tests/check.sh runtime-stress-mode sh -c 'SGC_VERIFY=1 SGC_POISON=1 SGC_GC_STRESS=5 SGC_NURSERY=64K \
	    $< --seed 4 --steps $(GC_STRESS_STEPS)'
# The sanitizer build is a recursive make into $(BUILD)/san; its test
# binaries are built there and run here so their result is recorded once.
test-runtime-san:
	@sh tests/check.sh runtime-san sh -c '$(MAKE) --no-print-directory BUILD=$(BUILD)/san \
	    SANITIZE=address,undefined $(BUILD)/san/tests/runtime/test-runtime-unit \
	    $(BUILD)/san/tests/runtime/gc-stress >/dev/null && \
	    ASAN_OPTIONS=allocator_may_return_null=1 $(BUILD)/san/tests/runtime/test-runtime-unit --jobs=2 && \
	    SGC_VERIFY=1 SGC_POISON=1 SGC_NURSERY=16K $(BUILD)/san/tests/runtime/gc-stress --seed 5 \
	        --steps $(GC_STRESS_STEPS)'

TESTS += test-runtime-unit test-runtime-stress test-runtime-stress-mode test-runtime-san test-runtime-checks
