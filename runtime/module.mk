# runtime/module.mk - libsgc: the collector, the samplers, the profile writer
# (which checksums its blocks with libdeflate's crc32, the CRC-32 of zlib:
# every program linking libsgc links -ldeflate; -lz stays for the tests and
# tools that check the checksums with zlib's own crc32).
SGC_SRCS := $(sort $(wildcard runtime/sgc_*.c))
SGC_OBJS := $(SGC_SRCS:%.c=$(OBJ)/%.o)
SGC_LIB := $(LIBDIR)/libsgc.a

$(SGC_LIB): $(SGC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

BINS += $(SGC_LIB)
LDLIBS += -ldeflate -lz
