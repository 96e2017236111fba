# runtime/module.mk - libsgc: the collector, the samplers, the profile writer
# (which checksums its blocks with libdeflate's crc32, the CRC-32 of zlib:
# every program linking libsgc links -ldeflate; -lz stays for the tests and
# tools that check the checksums with zlib's own crc32).  It carries the atomic writer
# the stats record and the segment series are written with (contracts/ct_out.c, and
# ct_alloc.c, which its set layer uses).
SGC_SRCS := $(sort $(wildcard runtime/sgc_*.c))
SGC_OBJS := $(SGC_SRCS:%.c=$(OBJ)/%.o)
SGC_LIB := $(LIBDIR)/libsgc.a

$(SGC_LIB): $(SGC_OBJS) $(OBJ)/contracts/ct_out.o $(OBJ)/contracts/ct_alloc.o
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

BINS += $(SGC_LIB)
LDLIBS += -ldeflate -lz
