# workloads/interp/module.mk - the interp workload: $(BIN)/interp.
#
# The guest programs (workloads/interp/programs/*.sgl) are compiled into the
# binary: each becomes a C string in the generated $(OBJ)/workloads/interp/
# ip_programs.c, so build/bin/interp works from any directory.
INTERP_SRCS := $(sort $(wildcard workloads/interp/*.c))
INTERP_OBJS := $(INTERP_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/workloads/interp/ip_programs.o
INTERP_PROGRAMS := workloads/interp/programs/pystone.sgl workloads/interp/programs/richards.sgl \
	workloads/interp/programs/nbody.sgl

# Each line of a program becomes a string literal line ending in \n.
$(OBJ)/workloads/interp/ip_programs.c: $(INTERP_PROGRAMS) workloads/interp/module.mk
	@mkdir -p $(dir $@)
	@{ echo '/* ip_programs.c - generated from the guest programs in workloads/interp/programs; do not edit. */'; \
	  echo '#include <stddef.h>'; \
	  for f in $(INTERP_PROGRAMS); do \
	    n=$$(basename $$f .sgl); \
	    echo "const char ip_src_$$n[] ="; \
	    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $$f; \
	    echo '    "";'; \
	    echo "const size_t ip_src_$${n}_len = sizeof ip_src_$$n - 1;"; \
	  done; } > $@.tmp && mv $@.tmp $@

$(OBJ)/workloads/interp/ip_programs.o: $(OBJ)/workloads/interp/ip_programs.c
	$(CC) $(CFLAGS) -c $< -o $@

$(BIN)/interp: $(INTERP_OBJS) $(OBJ)/workloads/wl_common.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

BINS += $(BIN)/interp
