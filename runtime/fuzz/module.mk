# runtime/fuzz/module.mk - the model-based libFuzzer target for the allocation
# sampler (fuzz_sampler.c against the reference model fuzz_model.c).
#
# The runtime is compiled again with clang, coverage instrumentation and
# ASan+UBSan into $(BUILD)/fuzz/, so the fuzzer explores the sampler and the
# collector together.  Targets:
#   $(BUILD)/fuzz/fuzz-sampler   the fuzzer binary
#   fuzz-sampler                 (in "make fuzz") a longer run, FUZZ_TIME seconds
#                                (default 300), that adds what it finds to
#                                runtime/fuzz/corpus/ (the kept corpus); an input
#                                that fails is saved as $(BUILD)/fuzz/crash-*
#                                (replay it: FUZZ_TRACE=1 $(BUILD)/fuzz/fuzz-sampler FILE)
#   test-sampler-fuzz            (in "make test") replays the kept corpus and
#                                runs FUZZ_SHORT_RUNS new inputs, fixed seed;
#                                new inputs go to $(BUILD)/fuzz/new, not the repo
# Programs link libsgc.a, which needs the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
FUZZ_CC ?= clang
FUZZ_TIME ?= 300
FUZZ_SHORT_RUNS ?= 6000
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
# A sanitizer build: the checked invariants in (SGC_CHECKS, Makefile).
FUZZ_CFLAGS := -std=gnu11 $(WARN) -g -O1 -Iruntime -Iruntime/fuzz $(FUZZ_SAN) -DSGC_CHECKS=1
FUZZ_RT_SRCS := $(sort $(wildcard runtime/sgc_*.c)) contracts/ct_out.c contracts/ct_alloc.c runtime/fuzz/fuzz_model.c
FUZZ_OBJS := $(FUZZ_RT_SRCS:%.c=$(FUZZ_DIR)/obj/%.o) $(FUZZ_DIR)/obj/runtime/fuzz/fuzz_sampler.o
FUZZ_BIN := $(FUZZ_DIR)/fuzz-sampler

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_BIN): $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $^ -o $@ $(LDLIBS)

.PHONY: fuzz-sampler test-sampler-fuzz
fuzz-sampler: $(FUZZ_BIN)
	@mkdir -p runtime/fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_TIME) -max_len=1024 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/ runtime/fuzz/corpus

test-sampler-fuzz: $(FUZZ_BIN)
	@rm -rf $(FUZZ_DIR)/new && mkdir -p $(FUZZ_DIR)/new
	@sh tests/check.sh sampler-fuzz $(FUZZ_BIN) -seed=1 -runs=$(FUZZ_SHORT_RUNS) -max_len=1024 \
	    -artifact_prefix=$(FUZZ_DIR)/ \
	    $(FUZZ_DIR)/new runtime/fuzz/corpus

FUZZERS += fuzz-sampler
TESTS += test-sampler-fuzz

-include $(wildcard $(FUZZ_DIR)/obj/runtime/*.d $(FUZZ_DIR)/obj/runtime/fuzz/*.d)
endif
