# runtime/bench/module.mk - the collector's benchmarks, in "make bench"
# (figures, not pass/fail; the other runtime modules' benchmarks are in
# runtime/bench/*.mk, included from their own module.mk):
#   bench-gc-alloc       ns per 16-byte allocation: sgc_alloc, malloc+free, Boehm GC_malloc
#   bench-gc-minor       minor-collection throughput; empty and all-garbage collections
#   bench-gc-callgrind   instructions per allocation (callgrind, exact)
#   bench-spin           the cpu validation spin's CPU time per D, next to a fixed count of its loop
# GC_BENCH_ARGS adds arguments to bench-gc-alloc (e.g. --n 50000000 --rounds 9).
GC_BENCH_BIN := $(BIN)/gc-bench

$(GC_BENCH_BIN): $(OBJ)/runtime/bench/gc_bench.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(shell pkg-config --libs bdw-gc 2>/dev/null || echo -lgc) $(LDLIBS)

.PHONY: bench-gc-alloc bench-gc-minor bench-gc-callgrind
bench-gc-alloc: $(GC_BENCH_BIN)
	$(GC_BENCH_BIN) alloc $(GC_BENCH_ARGS)
bench-gc-minor: $(GC_BENCH_BIN)
	$(GC_BENCH_BIN) minor
bench-gc-callgrind: $(GC_BENCH_BIN)
	sh runtime/bench/gc_callgrind.sh $(GC_BENCH_BIN) $(BUILD)/bench-gc

SPIN_BENCH_BIN := $(BIN)/spin-bench
$(SPIN_BENCH_BIN): $(OBJ)/runtime/bench/spin_bench.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# SPIN_BENCH_ARGS adds arguments (e.g. --spins 10000 --d 50000); pinned to CPU 1 like every timing.
.PHONY: bench-spin
bench-spin: $(SPIN_BENCH_BIN)
	taskset -c 1 $(SPIN_BENCH_BIN) $(SPIN_BENCH_ARGS)

BINS += $(GC_BENCH_BIN) $(SPIN_BENCH_BIN)
BENCHES += bench-gc-alloc bench-gc-minor bench-gc-callgrind bench-spin
