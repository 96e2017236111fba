# contracts/module.mk - the files two or more stages share (docs/ARCHITECTURE.md, "Contracts"):
# the JSON string writer (ct_json), linked into the statistics library (stats/module.mk) and into
# sgcprof (runtime/sgcprof/module.mk).  Included before the stages' module.mk files (they are read
# in sorted order), so CT_OBJS is known when their rules are read.
CT_SRCS := $(sort $(wildcard contracts/ct_*.c))
CT_OBJS := $(CT_SRCS:%.c=$(OBJ)/%.o)
