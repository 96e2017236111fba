# runtime/bench/profile_bench.mk - the profile writer's and the time
# sampler's benchmarks (runtime/bench/profile_*, runtime/bench/time_*), in
# "make bench".  Included from runtime/sgcprof/module.mk (runtime/bench/
# module.mk is the collector's).
#   bench-profile-cct     CCT: incremental vs full stack walk at depth 10/100
#   bench-time-cost       ns per time sample next to an empty signal handler
#   bench-time-overhead   overhead of time sampling at 100, 1000, 2000 Hz
# PROFILE_BENCH_ARGS / TIME_BENCH_ARGS add arguments (e.g. --rounds 11).
PROFILE_BENCH_BIN := $(BIN)/profile-bench
TIME_BENCH_BIN := $(BIN)/time-bench

$(PROFILE_BENCH_BIN): $(OBJ)/runtime/bench/profile_bench.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(TIME_BENCH_BIN): $(OBJ)/runtime/bench/time_bench.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: bench-profile-cct bench-time-cost bench-time-overhead
bench-profile-cct: $(PROFILE_BENCH_BIN)
	$(PROFILE_BENCH_BIN) $(PROFILE_BENCH_ARGS)
bench-time-cost: $(TIME_BENCH_BIN)
	$(TIME_BENCH_BIN) cost --profile $(BUILD)/time-bench.prof $(TIME_BENCH_ARGS)
bench-time-overhead: $(TIME_BENCH_BIN)
	$(TIME_BENCH_BIN) overhead --profile $(BUILD)/time-bench.prof $(TIME_BENCH_ARGS)

# Programs that link the heap need the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
BINS += $(PROFILE_BENCH_BIN) $(TIME_BENCH_BIN)
BENCHES += bench-profile-cct bench-time-cost bench-time-overhead
endif
