# workloads/peers/module.mk - the peer programs: freecheck's binarytrees and
# gcbench for other systems' allocation samplers (docs/WORKLOADS.md, "Peer
# programs").  Not part of "make": "make peers-build" builds every peer whose
# system is installed into $(BIN)/peers/, and for a system that is missing
# prints the reason and writes it to $(BIN)/peers/<system>.missing instead.
#
#   $(BIN)/peers/<workload>-jemalloc     C on malloc/free, linked with jemalloc
#   $(BIN)/peers/<workload>-gperftools   C on malloc/free, linked with gperftools' tcmalloc
PEERS_DIR := $(BIN)/peers
PEER_WORKLOADS := binarytrees gcbench
PEER_SYSTEMS := jemalloc gperftools
PEER_C_COMMON := $(OBJ)/workloads/peers/pr_common.o

PEER_JEMALLOC_BINS := $(PEER_WORKLOADS:%=$(PEERS_DIR)/%-jemalloc)
PEER_GPERFTOOLS_BINS := $(PEER_WORKLOADS:%=$(PEERS_DIR)/%-gperftools)

$(PEER_JEMALLOC_BINS): $(PEERS_DIR)/%-jemalloc: $(OBJ)/workloads/peers/%.o $(PEER_C_COMMON) \
		$(OBJ)/workloads/peers/pr_jemalloc.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -ljemalloc

$(PEER_GPERFTOOLS_BINS): $(PEERS_DIR)/%-gperftools: $(OBJ)/workloads/peers/%.o $(PEER_C_COMMON) \
		$(OBJ)/workloads/peers/pr_gperftools.o
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ -o $@ -ltcmalloc

$(OBJ)/workloads/peers/pr_gperftools.o: workloads/peers/pr_gperftools.cc workloads/peers/pr_common.h
	@mkdir -p $(dir $@)
	$(CXX) -std=gnu++17 $(WARN) -g $(OPT) -c $< -o $@

# Each system: build its peers if its package is there, else say why not.
# $(call peer_system,NAME,CHECK COMMAND,WHAT IS MISSING,TARGETS).  The check
# is PEER_CHECK_<system>: "make peers-build PEER_CHECK_jemalloc=false" shows
# (and tests/peers/ checks) what a machine without jemalloc gets.
PEER_CHECK_jemalloc ?= pkg-config --exists jemalloc
PEER_CHECK_gperftools ?= pkg-config --exists libtcmalloc
define peer_system
.PHONY: peers-build-$(1) peers-files-$(1)
peers-files-$(1): $(4)
	@:
peers-build-$(1):
	@mkdir -p $(PEERS_DIR)
	@if $(2) >/dev/null 2>&1; then \
	    rm -f $(PEERS_DIR)/$(1).missing; \
	    $(MAKE) --no-print-directory peers-files-$(1); \
	else \
	    rm -f $(4); \
	    echo "$(3)" > $(PEERS_DIR)/$(1).missing; \
	    echo "peers-build: skipping the $(1) peers: $(3)"; \
	fi
endef

$(eval $(call peer_system,jemalloc,$(PEER_CHECK_jemalloc),jemalloc's development files are not installed (Debian package libjemalloc-dev),$(PEER_JEMALLOC_BINS)))
$(eval $(call peer_system,gperftools,$(PEER_CHECK_gperftools),gperftools' development files are not installed (Debian package libgoogle-perftools-dev),$(PEER_GPERFTOOLS_BINS)))

.PHONY: peers-build
peers-build: $(PEER_SYSTEMS:%=peers-build-%)
