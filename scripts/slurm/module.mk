# scripts/slurm/module.mk - a sweep split across the nodes of a Slurm cluster
# (docs/HARNESS.md, "Sharding and Slurm").
#
# make sweep-slurm [SHARDS=4] [PARTITION=p] [TIME_LIMIT=04:00:00] [MERGE_TIME=01:00:00]
#                  [QUICK=1] [SWEEP_ARGS='--runs 100'] [SLURM_OUT=dir] [SEED=n] [SBATCH_ARGS='--account=a']
# submits scripts/slurm/sweep.sbatch: a job array (one shard per task, each
# alone on its node) and a dependent job that merges, analyses and draws.
.PHONY: sweep-slurm test-slurm
SHARDS ?= 4
sweep-slurm: deps
	@$(MAKE) --no-print-directory all
	@SHARDS=$(SHARDS) PARTITION=$(PARTITION) TIME_LIMIT=$(or $(TIME_LIMIT),04:00:00) \
	    MERGE_TIME=$(or $(MERGE_TIME),01:00:00) SEED=$(SEED) OUT=$(SLURM_OUT) SBATCH_ARGS='$(SBATCH_ARGS)' \
	    SWEEP_ARGS='$(if $(QUICK),--quick) $(SWEEP_ARGS)' FREECHECK=$(CURDIR) sh scripts/slurm/sweep.sbatch

# A real single-node Slurm on this machine (root; skipped otherwise), a
# sharded quick sweep through sweep.sbatch, checked against the unsharded plan.
test-slurm: $(BIN)/sweep $(BIN)/analyze
	@SWEEP=$(BIN)/sweep ANALYZE=$(BIN)/analyze TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh slurm-local sh tests/slurm/local.sh
TESTS += test-slurm
