# workloads/module.mk - the workload programs, each built to $(BIN)/<name>.
#
# Every workload is workloads/<name>.c linked with the shared helper
# (wl_common.c, object $(OBJ)/workloads/wl_common.o) and libsgc.a.  Modules
# under workloads/ that use the helper should name the object by that literal
# path: their module.mk may be included before this one, so WL_COMMON_OBJ
# may still be empty when their rules are read.
WL_NAMES := gcbench microbench binarytrees largeobj deepstack compute lrucache
WL_COMMON_OBJ := $(OBJ)/workloads/wl_common.o
WL_BINS := $(WL_NAMES:%=$(BIN)/%)

$(WL_BINS): $(BIN)/%: $(OBJ)/workloads/%.o $(WL_COMMON_OBJ) $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

BINS += $(WL_COMMON_OBJ) $(WL_BINS)

# make bench-workloads: each workload's allocation and GC figures at its
# default size (median of 5 runs), from its SGC_STATS record.
.PHONY: bench-workloads
bench-workloads: $(WL_BINS)
	@sh tests/workloads/default_stats.sh $(BIN) 5
BENCHES += bench-workloads
