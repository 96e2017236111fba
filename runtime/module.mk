# runtime/module.mk - libsgc: the collector, the samplers, the profile writer
# (which checksums its blocks with zlib's crc32: every program linking libsgc
# links -lz).
SGC_SRCS := $(sort $(wildcard runtime/sgc_*.c))
SGC_OBJS := $(SGC_SRCS:%.c=$(OBJ)/%.o)
SGC_LIB := $(LIBDIR)/libsgc.a

$(SGC_LIB): $(SGC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

BINS += $(SGC_LIB)
LDLIBS += -lz
