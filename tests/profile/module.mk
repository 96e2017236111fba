# tests/profile/module.mk - the profile writer, CCT, reader and sgcprof tests
# (Criterion): test-profile.
PROFILE_TEST_BIN := $(BIN)/tests/test_profile
PROFILE_DEEP_EXIT := $(BIN)/tests/profile_deep_exit
CRITERION_LIBS ?= $(shell pkg-config --libs criterion)

$(OBJ)/tests/profile/test_profile.o: CFLAGS += -DSGCPROF_BIN='"$(BIN)/sgcprof"' \
    -DSGC_DEEP_EXIT_BIN='"$(PROFILE_DEEP_EXIT)"' -Wno-missing-field-initializers

$(PROFILE_TEST_BIN): $(OBJ)/tests/profile/test_profile.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(CRITERION_LIBS) $(LDLIBS)

$(PROFILE_DEEP_EXIT): $(OBJ)/tests/profile/deep_exit.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: test-profile
test-profile: $(PROFILE_TEST_BIN) $(PROFILE_DEEP_EXIT) $(BIN)/sgcprof
	@sh tests/check.sh test-profile $(PROFILE_TEST_BIN)

# Programs that link the heap need the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
TESTS += test-profile
endif
