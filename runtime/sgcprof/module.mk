# runtime/sgcprof/module.mk - build/bin/sgcprof: the profile reader's command
# line (dump, report, folded, speedscope, pprof; docs/PROFILE.md).  It links only the
# reader (runtime/sgc_profread.c) out of libsgc.a.
SGCPROF_BIN := $(BIN)/sgcprof
SGCPROF_OBJS := $(OBJ)/runtime/sgcprof/sgcprof_main.o $(OBJ)/runtime/sgcprof/sgcprof_report.o \
    $(OBJ)/runtime/sgcprof/sgcprof_names.o $(OBJ)/runtime/sgcprof/sgcprof_pprof.o \
    $(OBJ)/gen/profile.pb-c.o \
    $(OBJ)/runtime/sgcprof/sgcprof_accuracy.o $(OBJ)/runtime/sgcprof/sgcprof_io.o \
    $(OBJ)/contracts/ct_json.o $(OBJ)/contracts/ct_alloc.o

# The pprof export encodes with protobuf-c from pprof's published
# profile.proto (Debian: golang-github-google-pprof-dev), compiled by protoc-c
# (protobuf-c-compiler) into $(BUILD)/gen at build time: nothing generated is
# kept in the tree.
PPROF_PROTO ?= /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
SGCPROF_GEN := $(BUILD)/gen

$(SGCPROF_GEN)/profile.pb-c.c: $(PPROF_PROTO)
	@mkdir -p $(dir $@)
	protoc-c --c_out=$(SGCPROF_GEN) -I$(dir $(PPROF_PROTO)) $(notdir $(PPROF_PROTO))

$(SGCPROF_GEN)/profile.pb-c.h: $(SGCPROF_GEN)/profile.pb-c.c

$(OBJ)/gen/profile.pb-c.o: $(SGCPROF_GEN)/profile.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(SGCPROF_GEN) -c $< -o $@

$(OBJ)/runtime/sgcprof/sgcprof_pprof.o: CFLAGS += -I$(SGCPROF_GEN)
$(OBJ)/runtime/sgcprof/sgcprof_pprof.o: $(SGCPROF_GEN)/profile.pb-c.h

$(SGCPROF_BIN): $(SGCPROF_OBJS) $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -lprotobuf-c $(LDLIBS)

BINS += $(SGCPROF_BIN)

# The profile and time sampler benchmarks live with the other runtime
# benchmarks in runtime/bench/; their rules are here.
include runtime/bench/profile_bench.mk
