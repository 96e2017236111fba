# tests/peers/module.mk - the peer programs' tests (in "make test"; small sizes, a few seconds):
#   test-peers-c     the C peers (jemalloc, gperftools): freecheck's checksums and
#                    allocation counts, the stats record, baseline without samples,
#                    jemalloc's sample count equal to its own heap profile dump's
# A system whose package is missing is skipped with the reason peers-build recorded.
# tc_count: gperftools' sample count against tcmalloc's own list (c_peers.sh), built
# when gperftools is installed (its peers are then built too).
PEER_TC_COUNT := $(BUILD)/test-bin/peers/tc_count
$(PEER_TC_COUNT): tests/peers/tc_count.c $(OBJ)/workloads/peers/pr_gperftools.o
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS) -x c $< -x none $(OBJ)/workloads/peers/pr_gperftools.o -o $@ -ltcmalloc -ldl

.PHONY: test-peers-c
test-peers-c: peers-build-jemalloc peers-build-gperftools $(BIN)/binarytrees $(BIN)/gcbench
	@if $(PEER_CHECK_gperftools) >/dev/null 2>&1; then $(MAKE) --no-print-directory $(PEER_TC_COUNT); fi
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/peers/c_peers.sh $(BIN)

TESTS += test-peers-c

# test-peers-go, test-peers-hotspot, test-peers-v8: the Go, Java and JavaScript peers (tests/peers/vm_peers.sh): freecheck's
# checksums and object counts, baseline without samples, sample counts consistent with the
# runtime's own records and within the bounds of random gaps.
.PHONY: test-peers-go test-peers-hotspot test-peers-v8
test-peers-go test-peers-hotspot test-peers-v8: test-peers-%: peers-build-% $(BIN)/binarytrees $(BIN)/gcbench
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/peers/vm_peers.sh $(BIN) $*

TESTS += test-peers-go test-peers-hotspot test-peers-v8

# test-peers-alt-<system>: each peer's in-process alternation driver on short runs
# (tests/peers/alt_peers.sh): the series conforms to docs/FORMATS.md (checked by
# build/bin/inproc-estimate --check: ABBA order of the seed's phase, no samples in off
# segments, the segments adding up to the stats record), the on segments' samples
# agree with the system's own records and with their bytes over the period, and
# build/bin/inproc-estimate reads the series.
PEER_ALT_SYSTEMS := jemalloc gperftools go hotspot v8
.PHONY: $(PEER_ALT_SYSTEMS:%=test-peers-alt-%)
$(PEER_ALT_SYSTEMS:%=test-peers-alt-%): test-peers-alt-%: peers-build-% $(BIN)/binarytrees $(BIN)/gcbench $(BIN)/inproc-estimate
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/peers/alt_peers.sh $(BIN) $*

TESTS += $(PEER_ALT_SYSTEMS:%=test-peers-alt-%)

# test-peers-segcheck: the segment series checker (inproc-estimate --check, the
# contract of docs/FORMATS.md) accepts the series freecheck's runtime and the
# jemalloc peer write and refuses every kind of broken series
# (tests/peers/segcheck_test.sh).
.PHONY: test-peers-segcheck
test-peers-segcheck: peers-build-jemalloc $(BIN)/binarytrees $(BIN)/gcbench $(BIN)/inproc-estimate
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/peers/segcheck_test.sh $(BIN)

TESTS += test-peers-segcheck

# test-peers-plausible: analyze's implausible-count warning in the in-process design
# judges a run's samples against its sampled segments' bytes (tests/peers/plausible.sh,
# on a copy of results/reference-peers-inprocess).
.PHONY: test-peers-plausible
test-peers-plausible: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/peers/plausible.sh $(BIN)

TESTS += test-peers-plausible

# test-peers-simreport: peers-report on the simulated part alone (results/reference-peers-sim,
# -sim-vm, -sim-v8, -sim-hotspot and -sim-hotspot-gcbench, sweeps of --backends sim): the rows, their exact slopes and
# fixed costs against a fit made by the test from results.db (tests/peers/simreport.sh).
.PHONY: test-peers-simreport
test-peers-simreport: $(BIN)/peers-report
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh -c 'sh tests/peers/simreport.sh $(BIN) results/reference-peers-sim && \
	    sh tests/peers/simreport.sh $(BIN) results/reference-peers-sim-vm && \
	    sh tests/peers/simreport.sh $(BIN) results/reference-peers-sim-v8 && \
	    sh tests/peers/simreport.sh $(BIN) results/reference-peers-sim-hotspot && \
	    sh tests/peers/simreport.sh $(BIN) results/reference-peers-sim-hotspot-gcbench'

TESTS += test-peers-simreport

# test-peers-levels: peers-report on sweeps that ran no blocked-design runs (the in-process
# design: results/reference-peers-inprocess-aa, -inprocess-malloc; the simulated part alone:
# results/reference-peers-sim, -sim-vm): every row's process-level columns "not measured" in
# peers.md (and the in-process or simulated ones when that level was not run either), their
# fields empty in peers.csv, none filled from another level's runs (tests/peers/levels.sh).
.PHONY: test-peers-levels
test-peers-levels: $(BIN)/peers-report
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh -c 'sh tests/peers/levels.sh $(BIN) results/reference-peers-inprocess-aa 8 5 && \
	    sh tests/peers/levels.sh $(BIN) results/reference-peers-inprocess-malloc 5 5 && \
	    sh tests/peers/levels.sh $(BIN) results/reference-peers-sim 7 6 && \
	    sh tests/peers/levels.sh $(BIN) results/reference-peers-sim-vm 4 6'

TESTS += test-peers-levels

# test-peers-simsize: a command's sim-size=N in the workload list (harness/sw_cmd.h): its
# simulated cells at that size without calibration, --sim-size replacing it, bad values
# refused (tests/peers/simsize.sh; freecheck's gcbench as a command, under valgrind).
.PHONY: test-peers-simsize
test-peers-simsize: $(BIN)/sweep $(BIN)/gcbench
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/peers/simsize.sh $(BIN)

TESTS += test-peers-simsize
