# runtime/bench/sample_bench.mk - the allocation sampler's benchmarks
# (runtime/bench/sample_*), in "make bench".  Included from
# runtime/replay/module.mk: runtime/bench/module.mk is the collector's.
#   bench-sample-cost       instructions per sample, part by part (callgrind, exact;
#                           runtime/bench/sample_cost.py): a cached stack, 10 new frames,
#                           gcbench and binarytrees at 32 KiB; time samples on gcbench
#                           and deepstack, signal and thread mode
#   bench-sample-ns         ns per sample at stack depths 1, 10, 100
#   bench-sample-overhead   overhead of sampling at periods 32 KiB .. 32 MiB (CPU time)
#   bench-sample-instructions  the same overhead in instructions (callgrind, exact)
# SAMPLE_BENCH_ARGS adds arguments (e.g. --rounds 11 --mib 512).
# Programs link libsgc.a, which needs the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
SAMPLE_BENCH_BIN := $(BIN)/sample-bench

$(SAMPLE_BENCH_BIN): $(OBJ)/runtime/bench/sample_bench.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: bench-sample-cost bench-sample-ns bench-sample-overhead bench-sample-instructions
bench-sample-cost: $(SAMPLE_BENCH_BIN) $(BIN)/gcbench $(BIN)/binarytrees $(BIN)/deepstack
	python3 runtime/bench/sample_cost.py --bin $(BIN) --work $(BUILD)/sample-cost --csv $(BUILD)/sample-cost/cost.csv
bench-sample-ns: $(SAMPLE_BENCH_BIN)
	$(SAMPLE_BENCH_BIN) cost --profile $(BUILD)/sample-bench.prof $(SAMPLE_BENCH_ARGS)
bench-sample-overhead: $(SAMPLE_BENCH_BIN)
	$(SAMPLE_BENCH_BIN) overhead --profile $(BUILD)/sample-bench.prof $(SAMPLE_BENCH_ARGS)

BINS += $(SAMPLE_BENCH_BIN)
bench-sample-instructions: $(SAMPLE_BENCH_BIN)
	sh runtime/bench/sample_instructions.sh $(SAMPLE_BENCH_BIN) $(BUILD)/sample-instructions 32

BENCHES += bench-sample-cost bench-sample-ns bench-sample-overhead bench-sample-instructions
endif
