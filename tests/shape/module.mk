# tests/shape/module.mk - the include graph (scripts/include-graph.py): stats/ has no include
# cycle among its modules and no arrow into another stage's folder, and the script itself finds
# exactly the cycle and the arrow planted in a small fixture folder (tests/shape/check.sh).
.PHONY: test-include-graph
test-include-graph:
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh include-graph sh tests/shape/check.sh $(BUILD)/include-graph-test stats

TESTS += test-include-graph
