# contracts/module.mk - the files two or more stages share (docs/ARCHITECTURE.md, "Contracts"):
# the JSON string writer (ct_json), checked allocation (ct_alloc) and the atomic writer of output
# files (ct_out: a temporary renamed into place, non-regular targets refused).  Linked into the
# statistics library (stats/module.mk) and, ct_json and ct_alloc, into sgcprof (runtime/sgcprof/module.mk).
# Read before the stages' module.mk files (sorted order), so CT_OBJS is known in their rules.
CT_SRCS := $(sort $(wildcard contracts/ct_*.c))
CT_OBJS := $(CT_SRCS:%.c=$(OBJ)/%.o)
