# workloads/peers/module.mk - the peer programs: freecheck's binarytrees and
# gcbench for other systems' allocation samplers (docs/WORKLOADS.md, "Peer
# programs").  Not part of "make": "make peers-build" builds every peer whose
# system is installed into $(BIN)/peers/, and for a system that is missing
# prints the reason and writes it to $(BIN)/peers/<system>.missing instead.
#
#   $(BIN)/peers/<workload>-jemalloc     C on malloc/free, linked with jemalloc
#   $(BIN)/peers/<workload>-gperftools   C on malloc/free, linked with gperftools' tcmalloc
#   $(BIN)/peers/<workload>-go           Go (runtime.MemProfileRate)
#   $(BIN)/peers/java/, $(BIN)/peers/libfcagent.so   Java classes and the JVMTI agent for HotSpot
#   $(BIN)/peers/<workload>-hotspot      a launcher: the JDK's java, options from FREECHECK_JVM_OPTS
#   $(BIN)/peers/node/, $(BIN)/peers/<workload>-v8   JavaScript on V8: the programs and a launcher running node
PEERS_DIR := $(BIN)/peers
PEER_WORKLOADS := binarytrees gcbench
PEER_SYSTEMS := jemalloc gperftools
# The C peers write their records with the atomic writer every stage shares (contracts/ct_out.c).
PEER_C_COMMON := $(OBJ)/workloads/peers/pr_common.o $(OBJ)/workloads/peers/pr_alt.o $(OBJ)/contracts/ct_out.o \
    $(OBJ)/contracts/ct_alloc.o

PEER_JEMALLOC_BINS := $(PEER_WORKLOADS:%=$(PEERS_DIR)/%-jemalloc)
PEER_GPERFTOOLS_BINS := $(PEER_WORKLOADS:%=$(PEERS_DIR)/%-gperftools)

$(PEER_JEMALLOC_BINS): $(PEERS_DIR)/%-jemalloc: $(OBJ)/workloads/peers/%.o $(PEER_C_COMMON) \
		$(OBJ)/workloads/peers/pr_jemalloc.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ -ljemalloc

$(PEER_GPERFTOOLS_BINS): $(PEERS_DIR)/%-gperftools: $(OBJ)/workloads/peers/%.o $(PEER_C_COMMON) \
		$(OBJ)/workloads/peers/pr_gperftools.o
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) $^ -o $@ -ltcmalloc -ldl

$(OBJ)/workloads/peers/pr_gperftools.o: workloads/peers/pr_gperftools.cc workloads/peers/pr_common.h workloads/peers/pr_alt.h
	@mkdir -p $(dir $@)
	$(CXX) -std=gnu++17 $(WARN) -g $(OPT) -c $< -o $@

# Each system: build its peers if its package is there, else say why not.
# $(call peer_system,NAME,CHECK COMMAND,WHAT IS MISSING,TARGETS[,MORE TO REMOVE WHEN MISSING]).  The check
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
	    rm -rf $(4) $(5); \
	    echo "$(3)" > $(PEERS_DIR)/$(1).missing; \
	    echo "peers-build: skipping the $(1) peers: $(3)"; \
	fi
endef

$(eval $(call peer_system,jemalloc,$(PEER_CHECK_jemalloc),jemalloc's development files are not installed (Debian package libjemalloc-dev),$(PEER_JEMALLOC_BINS)))
$(eval $(call peer_system,gperftools,$(PEER_CHECK_gperftools),gperftools' development files are not installed (Debian package libgoogle-perftools-dev),$(PEER_GPERFTOOLS_BINS)))


# Go: one program per workload from common.go and <workload>.go, standard
# library only, built offline with the Go cache inside $(BUILD).
PEER_GO_BINS := $(PEER_WORKLOADS:%=$(PEERS_DIR)/%-go)
PEER_GO_ENV := GOCACHE=$(abspath $(BUILD))/go/cache GOPATH=$(abspath $(BUILD))/go/path GOPROXY=off GOFLAGS= \
    GO111MODULE=on GOTOOLCHAIN=local CGO_ENABLED=0
PEER_CHECK_go ?= go version

$(PEER_GO_BINS): $(PEERS_DIR)/%-go: workloads/peers/go/common.go workloads/peers/go/alt.go workloads/peers/go/%.go
	@mkdir -p $(dir $@)
	$(PEER_GO_ENV) go build -trimpath -o $@ $^

$(eval $(call peer_system,go,$(PEER_CHECK_go),the Go toolchain is not installed (Debian package golang-go),$(PEER_GO_BINS)))
PEER_SYSTEMS += go


# Java on HotSpot (system hotspot): the classes of workloads/peers/java into $(PEERS_DIR)/java/, the JVMTI
# agent $(PEERS_DIR)/libfcagent.so, and a launcher per workload that runs
# the JDK's java with JVM options from FREECHECK_JVM_OPTS (for example the
# agent: -agentpath:$(PEERS_DIR)/libfcagent.so=interval=P) and FREECHECK_JVM_EXTRA_OPTS.
PEER_JAVA_SRCS := $(wildcard workloads/peers/java/*.java)
PEER_JAVA_STAMP := $(PEERS_DIR)/java/.classes
PEER_JAVA_AGENT := $(PEERS_DIR)/libfcagent.so
PEER_JAVA_BINS := $(PEER_JAVA_STAMP) $(PEER_JAVA_AGENT) $(PEER_WORKLOADS:%=$(PEERS_DIR)/%-hotspot)
PEER_CHECK_hotspot ?= sh workloads/peers/java/jdk.sh

$(PEER_JAVA_STAMP): $(PEER_JAVA_SRCS) workloads/peers/java/jdk.sh
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	$$(sh workloads/peers/java/jdk.sh)/bin/javac --release 17 -Xlint:all -Werror -d $(dir $@) $(PEER_JAVA_SRCS)
	@touch $@

$(PEER_JAVA_AGENT): workloads/peers/java/fcagent.c workloads/peers/java/jdk.sh
	@mkdir -p $(dir $@)
	jdk=$$(sh workloads/peers/java/jdk.sh) && \
	$(CC) -std=gnu11 $(WARN) -g $(OPT) -shared -fPIC -I$$jdk/include -I$$jdk/include/linux $< -o $@ -pthread

# The launchers: binarytrees-hotspot runs class BinaryTrees, gcbench-hotspot GCBench.
$(PEERS_DIR)/binarytrees-hotspot: PEER_JAVA_CLASS := BinaryTrees
$(PEERS_DIR)/gcbench-hotspot: PEER_JAVA_CLASS := GCBench
$(PEER_WORKLOADS:%=$(PEERS_DIR)/%-hotspot): workloads/peers/java/jdk.sh workloads/peers/module.mk
	@mkdir -p $(dir $@)
	@jdk=$$(sh workloads/peers/java/jdk.sh) && \
	{ echo '#!/bin/sh'; \
	  echo '# $(notdir $@) - freecheck'"'"'s $(patsubst %-hotspot,%,$(notdir $@)) in Java (workloads/peers/java/$(PEER_JAVA_CLASS).java).'; \
	  echo '# JVM options (e.g. -agentpath:.../libfcagent.so=interval=BYTES) come from FREECHECK_JVM_OPTS,'; \
	  echo '# more from FREECHECK_JVM_EXTRA_OPTS (the simulated part'"'"'s determinism settings).'; \
	  echo 'dir=$$(dirname "$$0")'; \
	  echo "exec $$jdk/bin/java \$$FREECHECK_JVM_OPTS \$$FREECHECK_JVM_EXTRA_OPTS -cp \"\$$dir/java\" $(PEER_JAVA_CLASS) \"\$$@\""; } > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

$(eval $(call peer_system,hotspot,$(PEER_CHECK_hotspot),no JDK 17 or later with its headers (Debian package openjdk-17-jdk-headless),$(PEER_JAVA_BINS),$(PEERS_DIR)/java))
PEER_SYSTEMS += hotspot


# JavaScript on V8 (system v8): the programs of workloads/peers/node copied into
# $(PEERS_DIR)/node/ with the native addon fcthread.node, and a launcher per workload
# that runs them with the node on PATH (Node.js 20 or later with its headers, node.sh)
# and node options from FREECHECK_NODE_OPTS.
PEER_NODE_SRCS := $(wildcard workloads/peers/node/*.js)
PEER_NODE_FILES := $(PEER_NODE_SRCS:workloads/peers/node/%=$(PEERS_DIR)/node/%)
PEER_NODE_ADDON := $(PEERS_DIR)/node/fcthread.node
PEER_NODE_BINS := $(PEER_NODE_FILES) $(PEER_NODE_ADDON) $(PEER_WORKLOADS:%=$(PEERS_DIR)/%-v8)

# fcthread.node: the thread's CPU time and V8's collection counts for the in-process driver
# (N-API and V8's API, the headers of the node on PATH).
$(PEER_NODE_ADDON): workloads/peers/node/fcthread.cc workloads/peers/node/node.sh
	@mkdir -p $(dir $@)
	$(CXX) -std=gnu++17 $(WARN) -O2 -shared -fPIC -I"$$(sh workloads/peers/node/node.sh --include)" $< -o $@
PEER_CHECK_v8 ?= sh workloads/peers/node/node.sh

$(PEER_NODE_FILES): $(PEERS_DIR)/node/%: workloads/peers/node/%
	@mkdir -p $(dir $@)
	cp $< $@

$(PEER_WORKLOADS:%=$(PEERS_DIR)/%-v8): $(PEERS_DIR)/%-v8: workloads/peers/node/node.sh workloads/peers/module.mk
	@mkdir -p $(dir $@)
	@{ echo '#!/bin/sh'; \
	  echo '# $(notdir $@) - freecheck'"'"'s $* in JavaScript (workloads/peers/node/$*.js) on V8.'; \
	  echo '# Node options come from FREECHECK_NODE_OPTS; V8'"'"'s sampler from FREECHECK_V8_SAMPLE_INTERVAL.'; \
	  echo 'dir=$$(dirname "$$0")'; \
	  echo 'exec node $$FREECHECK_NODE_OPTS "$$dir/node/$*.js" "$$@"'; } > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

$(eval $(call peer_system,v8,$(PEER_CHECK_v8),no Node.js 20 or later with its headers on PATH (Debian package nodejs),$(PEER_NODE_BINS),$(PEERS_DIR)/node))
PEER_SYSTEMS += v8

# Every system above (a prerequisite list is expanded where it is read, so this
# comes after the last PEER_SYSTEMS += ...).
.PHONY: peers-build
peers-build: $(PEER_SYSTEMS:%=peers-build-%)
