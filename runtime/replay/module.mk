# runtime/replay/module.mk - build/bin/sgc-replay: runs an allocation trace on
# the real runtime and prints what was sampled (docs/FORMATS.md, docs/SAMPLING.md).
# Programs link libsgc.a, which needs the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
REPLAY_BIN := $(BIN)/sgc-replay

$(REPLAY_BIN): $(OBJ)/runtime/replay/replay_main.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

BINS += $(REPLAY_BIN)

# The sampler's benchmarks live in runtime/bench/ next to the collector's.
include runtime/bench/sample_bench.mk
endif
