# runtime/sgcprof/module.mk - build/bin/sgcprof: the profile reader's command
# line (dump, report, folded, speedscope; docs/PROFILE.md).  It links only the
# reader (runtime/sgc_profread.c) out of libsgc.a.
SGCPROF_BIN := $(BIN)/sgcprof
SGCPROF_OBJS := $(OBJ)/runtime/sgcprof/sgcprof_main.o $(OBJ)/runtime/sgcprof/sgcprof_report.o

$(SGCPROF_BIN): $(SGCPROF_OBJS) $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

BINS += $(SGCPROF_BIN)

# The profile and time sampler benchmarks live with the other runtime
# benchmarks in runtime/bench/; their rules are here.
include runtime/bench/profile_bench.mk
