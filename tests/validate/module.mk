# tests/validate/module.mk - make validate's pipeline end to end (in "make test"):
#   validate-e2e   scripts/validate.sh on a small plan (gcbench, D = 0 and 200 us with the wall and
#                  the cpu spin clock, periods 64K and 1M, 5 runs a cell, fixed size): the allocation
#                  cost recovered on CPU time with the cpu spin is within 25% of 200 us (robust under
#                  load: CPU time, and the spin ends by the thread's CPU clock); on wall time with the
#                  wall spin at least 75% of it (load only adds); in-process, thread-mode time samples
#                  (interp, 1000 Hz, D = 0 and 50 us, 4 runs of each D and up to 20 while the interval
#                  is wider than +-12.5% of D) recovered on the program's CPU time within 25% of 50 us;
#                  every output written; bad plans and settings exit 2; the extra rounds follow the
#                  interval's width both ways.
VALIDATE_TEST_DIR := $(BUILD)/validate-test

.PHONY: validate-e2e
TESTS += validate-e2e

validate-e2e: $(BIN)/sweep $(BIN)/analyze $(BIN)/validation
	@TEST_RESULTS=$(TEST_RESULTS) BIN=$(BIN) sh tests/check.sh validate-e2e sh tests/validate/e2e.sh $(VALIDATE_TEST_DIR)
