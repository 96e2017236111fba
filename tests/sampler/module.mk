# tests/sampler/module.mk - the allocation sampler's tests (in "make test"):
#   test-sampler-unit      Criterion: every edge case of the rule, survival, records
#   test-sampler-poisson   Criterion: gap statistics, unbiased estimate, model agreement
#   test-sampler-replay    sgc-replay on traces with known output, and bad input
#   test-sampler-fastpath  the allocation fast path is the same machine code and
#                          the same instruction count with sampling off and on
#   test-sampler-cost      the sample cost benchmark's parts add up to its measured
#                          total, on small inputs (callgrind)
#   test-sampler-frame-order  every compiled sgc_frame_pop (each workload, the
#                          thread-reuse stress, and frame_order.c at -O2/-O3
#                          with gcc and clang) stores the unpublish before the count
# The fuzzer's short run (test-sampler-fuzz) is in runtime/fuzz/module.mk.
# Programs link libsgc.a, which needs the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
SAMPLER_TEST_DIR := $(BUILD)/tests/sampler
CRITERION_LIBS := $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

$(OBJ)/tests/sampler/%.o: CFLAGS += -Iruntime/fuzz $(shell pkg-config --cflags criterion 2>/dev/null)

$(SAMPLER_TEST_DIR)/test-sampler-unit: $(OBJ)/tests/sampler/test_sampler.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(CRITERION_LIBS) $(LDLIBS)

$(SAMPLER_TEST_DIR)/test-sampler-poisson: $(OBJ)/tests/sampler/test_poisson.o \
		$(OBJ)/runtime/fuzz/fuzz_model.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(CRITERION_LIBS) $(LDLIBS)

# The allocation loop the fast-path check measures under callgrind.
$(SAMPLER_TEST_DIR)/fastpath-loop: $(OBJ)/tests/sampler/fastpath_loop.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# The same loop linked with a runtime built with the sampler compiled out.
SAMPLER_NOS_DIR := $(SAMPLER_TEST_DIR)/nosampler
SAMPLER_NOS_OBJS := $(patsubst %.c,$(SAMPLER_NOS_DIR)/obj/%.o,$(sort $(wildcard runtime/sgc_*.c)))
$(SAMPLER_NOS_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DSGC_NO_SAMPLER -c $< -o $@
$(SAMPLER_NOS_DIR)/libsgc.a: $(SAMPLER_NOS_OBJS) $(OBJ)/contracts/ct_out.o $(OBJ)/contracts/ct_alloc.o
	rm -f $@
	ar rcs $@ $^
$(SAMPLER_TEST_DIR)/fastpath-loop-nosampler: $(OBJ)/tests/sampler/fastpath_loop.o $(SAMPLER_NOS_DIR)/libsgc.a
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)
-include $(wildcard $(SAMPLER_NOS_DIR)/obj/runtime/*.d)

.PHONY: test-sampler-unit test-sampler-poisson test-sampler-replay test-sampler-fastpath test-sampler-cost
test-sampler-unit: $(SAMPLER_TEST_DIR)/test-sampler-unit
	@sh tests/check.sh sampler-unit $< --jobs=2
test-sampler-poisson: $(SAMPLER_TEST_DIR)/test-sampler-poisson
	@sh tests/check.sh sampler-poisson $< --jobs=2
test-sampler-replay: $(BIN)/sgc-replay
	@sh tests/check.sh sampler-replay sh tests/sampler/replay_check.sh $(BIN)/sgc-replay tests/sampler/replay
test-sampler-fastpath: $(SAMPLER_TEST_DIR)/fastpath-loop $(SAMPLER_TEST_DIR)/fastpath-loop-nosampler
	@sh tests/check.sh sampler-fastpath sh tests/sampler/fastpath_check.sh "$(CC)" "$(SANITIZE)" \
	    $(SAMPLER_TEST_DIR)/fastpath-loop $(SAMPLER_TEST_DIR) $(SAMPLER_TEST_DIR)/fastpath-loop-nosampler

test-sampler-cost: $(BIN)/sample-bench $(BIN)/gcbench $(BIN)/binarytrees $(BIN)/deepstack
	@sh tests/check.sh sampler-cost sh tests/sampler/sample_cost_check.sh runtime/bench/sample_cost.py $(BIN) \
	    $(SAMPLER_TEST_DIR)/cost

# Every workload of workloads/workloads.list and the sampler thread's reuse
# stress (named literally: their module.mk files are read after this one).
FRAME_ORDER_PROGS := $(addprefix $(BIN)/,$(shell sed 's/\#.*//' workloads/workloads.list) tests/thread_reuse)
.PHONY: test-sampler-frame-order
test-sampler-frame-order: $(FRAME_ORDER_PROGS)
	@sh tests/check.sh sampler-frame-order sh tests/sampler/frame_order_check.sh "$(CC)" $(SAMPLER_TEST_DIR)/frame-order \
	    $(FRAME_ORDER_PROGS)

TESTS += test-sampler-unit test-sampler-poisson test-sampler-replay test-sampler-fastpath test-sampler-frame-order \
    test-sampler-cost
endif
