# tests/contracts/module.mk - the contracts' own tests (in "make test"):
#   test-contracts   Criterion: the atomic writer's one-file layer (contracts/ct_out.h): the
#                    temporary's name and mode, refused targets, a stale temporary, a failed
#                    write, a target replaced before the rename, ct_out_link; the checked
#                    allocation (contracts/ct_alloc.h): size 0, zeroing, out of memory's one
#                    line and status 1, a handler of ct_set_out_of_memory.  The writer's set layer
#                    is tested with the statistics programs (tests/stats/test_stats.c,
#                    tests/stats/files.sh).
CT_TEST_BIN := $(BUILD)/tests/contracts/test-contracts
$(OBJ)/tests/contracts/%.o: CFLAGS += $(shell pkg-config --cflags criterion 2>/dev/null)

$(CT_TEST_BIN): $(OBJ)/tests/contracts/test_ct_out.o $(OBJ)/tests/contracts/test_ct_alloc.o $(OBJ)/contracts/ct_out.o $(OBJ)/contracts/ct_alloc.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion) $(LDLIBS)

.PHONY: test-contracts
test-contracts: $(CT_TEST_BIN)
	@TEST_RESULTS=$(TEST_RESULTS) sh tests/check.sh contracts $(CT_TEST_BIN) --jobs 2

TESTS += test-contracts
