# workloads/annotate/module.mk - the annotate workload: $(BIN)/annotate.
ANNOTATE_SRCS := $(sort $(wildcard workloads/annotate/*.c))
ANNOTATE_OBJS := $(ANNOTATE_SRCS:%.c=$(OBJ)/%.o)

$(BIN)/annotate: $(ANNOTATE_OBJS) $(OBJ)/workloads/wl_common.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

BINS += $(BIN)/annotate
