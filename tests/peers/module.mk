# tests/peers/module.mk - the peer programs' tests (in "make test"; small sizes, a few seconds):
#   test-peers-c     the C peers (jemalloc, gperftools): freecheck's checksums and
#                    allocation counts, the stats record, baseline without samples,
#                    jemalloc's sample count equal to its own heap profile dump's
# A system whose package is missing is skipped with the reason peers-build recorded.
.PHONY: test-peers-c
test-peers-c: peers-build-jemalloc peers-build-gperftools $(BIN)/binarytrees $(BIN)/gcbench
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/peers/c_peers.sh $(BIN)

TESTS += test-peers-c

# test-peers-go, test-peers-hotspot: the Go and Java peers (tests/peers/vm_peers.sh): freecheck's
# checksums and object counts, baseline without samples, sample counts consistent with the
# runtime's own records and within the bounds of random gaps.
.PHONY: test-peers-go test-peers-hotspot
test-peers-go test-peers-hotspot: test-peers-%: peers-build-% $(BIN)/binarytrees $(BIN)/gcbench
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh $@ sh tests/peers/vm_peers.sh $(BIN) $*

TESTS += test-peers-go test-peers-hotspot
