# tests/slurm/module.mk - sharded sweeps: --shard and --merge on stand-in
# workloads, analyze over nodes of different speed (make test), and a real
# sharded quick sweep on a single-node Slurm started on this machine
# (make test-slurm; docs/HARNESS.md "Sharding and Slurm").
.PHONY: test-slurm-merge test-slurm-nodes test-slurm
test-slurm-merge: $(BIN)/sweep $(BIN)/analyze $(HARNESS_TEST_BIN)/fakework
	@$(HARNESS_TEST_ENV) ANALYZE=$(BIN)/analyze sh tests/check.sh slurm-merge sh tests/slurm/merge.sh
test-slurm-nodes: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh slurm-nodes sh -c \
	    'w=$$(mktemp -d) && python3 tests/slurm/nodes.py $(BIN)/analyze contracts/schema.sql $$w; rc=$$?; rm -rf $$w; exit $$rc'
TESTS += test-slurm-merge test-slurm-nodes
