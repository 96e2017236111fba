# tests/alt/module.mk - in-process alternation's tests (in "make test"):
#   test-alt-unit   Criterion: the segment driver (exact segment counts and
#                   ABBA order for a seed, exact sample counts per on-segment,
#                   the iteration hook, the series file, bad settings) and
#                   the carry-over test (runtime/sgc_alt.c)
ALT_TEST_DIR := $(BUILD)/tests/alt
ALT_CRITERION_LIBS := $(shell pkg-config --libs criterion 2>/dev/null || echo -lcriterion)

$(OBJ)/tests/alt/%.o: CFLAGS += $(shell pkg-config --cflags criterion 2>/dev/null)

$(ALT_TEST_DIR)/test-alt-unit: $(OBJ)/tests/alt/test_alt.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(ALT_CRITERION_LIBS) $(LDLIBS)

.PHONY: test-alt-unit
test-alt-unit: $(ALT_TEST_DIR)/test-alt-unit
	@sh tests/check.sh alt-unit $< --jobs=2

TESTS += test-alt-unit
