# tests/replicates/module.mk - the replicate check of a replicated sweep
# (scripts/replicate-check.py) on a fixture whose answer is known, and the
# coverage of the exact interval on cells the old sequential rule extended
# (a benchmark: a figure to read, not a pass/fail test).

$(BIN)/seq-exact-coverage: $(OBJ)/tests/replicates/seq_exact_coverage.o $(ST_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ST_PKG_LIBS) $(LDLIBS)

$(OBJ)/tests/replicates/seq_exact_coverage.o: CFLAGS += -Istats $(ST_PKG_CFLAGS)

# SEQ_EXACT_NOISE: a blocked sweep of one replicate (the figure in docs/STATISTICS.md used the
# sweep results/reference held before 2026-12-02: git show 0873ca6:results/reference/results.db).
SEQ_EXACT_NOISE ?= results/reference-rerun
.PHONY: bench-seq-exact-coverage
bench-seq-exact-coverage: $(BIN)/seq-exact-coverage
	$(BIN)/seq-exact-coverage --noise-from $(SEQ_EXACT_NOISE) --experiments 270 --resamples 1000

BENCHES += bench-seq-exact-coverage

.PHONY: test-replicate-check
test-replicate-check: $(BIN)/analyze
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh replicate-check env ANALYZE=$(BIN)/analyze sh tests/replicates/check.sh

TESTS += test-replicate-check
