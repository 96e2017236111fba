# runtime/bench/module.mk - the collector's benchmarks, in "make bench"
# (figures, not pass/fail; the other runtime modules' benchmarks are in
# runtime/bench/*.mk, included from their own module.mk):
#   bench-gc-alloc       ns per 16-byte allocation: sgc_alloc, malloc+free, Boehm GC_malloc
#   bench-gc-minor       minor-collection throughput; empty and all-garbage collections
#   bench-gc-callgrind   instructions per allocation (callgrind, exact)
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

BINS += $(GC_BENCH_BIN)
BENCHES += bench-gc-alloc bench-gc-minor bench-gc-callgrind
