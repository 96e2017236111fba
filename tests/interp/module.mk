# tests/interp/module.mk - tests of the interp and annotate workloads (in "make test"):
#   test-interp       Criterion (tests/interp/test_interp.c): the language's
#                     semantics (tests/interp/semantics.sgl, exact output), parse
#                     errors (exact file:line:col messages, exit 2), runtime
#                     tracebacks (exact, exit 1), bad arguments (exit 2), and
#                     pystone, richards, nbody and annotate at small sizes passing
#                     --check plain, in GC stress mode with the verifier
#                     (SGC_GC_STRESS=7..601 SGC_VERIFY=1), with SGC_ALLOC_PERIOD=4K
#                     SGC_TIME_HZ=2000, with poisson sampling in a 64K nursery and
#                     with a period larger than a 32K nursery, all printing the
#                     same checksum
#   test-interp-san   the same tests against the ASan+UBSan build ($(BUILD)/san),
#                     stress periods 9 times longer, without the verifier
IPT_DIR := $(BUILD)/tests/interp
IPT_CRITERION_LIBS := $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

$(OBJ)/tests/interp/%.o: CFLAGS += $(shell pkg-config --cflags criterion 2>/dev/null)

$(IPT_DIR)/test-interp: $(OBJ)/tests/interp/test_interp.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(IPT_CRITERION_LIBS) $(LDLIBS)

.PHONY: test-interp test-interp-san ip-san-build

test-interp: $(IPT_DIR)/test-interp $(BIN)/interp $(BIN)/annotate
	@TEST_RESULTS=$(TEST_RESULTS) IP_BIN=$(abspath $(BIN)) IP_SRC=$(CURDIR) IP_STRESS_MUL=1 IP_VERIFY=1 \
	    sh tests/check.sh $@ $< --jobs=2

# The sanitizer build of the two workloads (shares $(BUILD)/san with the
# other modules' sanitizer tests).
ip-san-build:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANITIZE=address,undefined \
	    $(BUILD)/san/bin/interp $(BUILD)/san/bin/annotate >/dev/null

test-interp-san: $(IPT_DIR)/test-interp ip-san-build
	@TEST_RESULTS=$(TEST_RESULTS) IP_BIN=$(abspath $(BUILD)/san/bin) IP_SRC=$(CURDIR) IP_STRESS_MUL=9 \
	    IP_VERIFY=0 sh tests/check.sh $@ $< --jobs=2

TESTS += test-interp test-interp-san
