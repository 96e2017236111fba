# tests/profile/module.mk - the profile writer, CCT, reader and sgcprof tests
# (Criterion), and the virtual clock's times in the profile and the stats
# record (test_vclock.c): test-profile; the pprof export checked by go tool pprof:
# test-profile-pprof; profiles written before the allocation sample path's
# rework still read, and today's runtime writes the same records:
# test-profile-compat (tests/profile/compat/README.md).
PROFILE_TEST_BIN := $(BIN)/tests/test_profile
PROFILE_DEEP_EXIT := $(BIN)/tests/profile_deep_exit
PROFILE_SIG_HELPER := $(BIN)/tests/profile_sig_helper
CRITERION_LIBS ?= $(shell pkg-config --libs criterion)

PROFILE_TEST_OBJS := $(OBJ)/tests/profile/test_profile.o $(OBJ)/tests/profile/test_salvage.o \
    $(OBJ)/tests/profile/test_names.o $(OBJ)/tests/profile/test_vclock.o $(OBJ)/tests/profile/test_bounds.o \
    $(OBJ)/tests/profile/test_kinds.o

$(PROFILE_TEST_OBJS): CFLAGS += -DSGCPROF_BIN='"$(BIN)/sgcprof"' \
    -DSGC_DEEP_EXIT_BIN='"$(PROFILE_DEEP_EXIT)"' -DSGC_SIG_HELPER_BIN='"$(PROFILE_SIG_HELPER)"' \
    -Wno-missing-field-initializers

# test_names decodes sgcprof's pprof output with the same generated
# profile.proto code (runtime/sgcprof/module.mk).
$(OBJ)/tests/profile/test_names.o: CFLAGS += -I$(SGCPROF_GEN)
$(OBJ)/tests/profile/test_names.o: $(SGCPROF_GEN)/profile.pb-c.h

$(PROFILE_TEST_BIN): $(PROFILE_TEST_OBJS) $(OBJ)/gen/profile.pb-c.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(CRITERION_LIBS) -lprotobuf-c $(LDLIBS)

$(PROFILE_DEEP_EXIT): $(OBJ)/tests/profile/deep_exit.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(PROFILE_SIG_HELPER): $(OBJ)/tests/profile/sig_helper.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: test-profile test-profile-pprof test-profile-compat
test-profile: $(PROFILE_TEST_BIN) $(PROFILE_DEEP_EXIT) $(PROFILE_SIG_HELPER) $(BIN)/sgcprof
	@sh tests/check.sh test-profile $(PROFILE_TEST_BIN)

# The pprof export read by go tool pprof (golang-go) for several workloads:
# totals, flat/cum per function and every stack equal sgcprof's own figures.
test-profile-pprof: $(BIN)/sgcprof $(BIN)/gcbench $(BIN)/binarytrees $(BIN)/lrucache $(BIN)/deepstack \
    $(BIN)/largeobj $(BIN)/interp
	@sh tests/check.sh test-profile-pprof sh tests/profile/pprof_check.sh $(BIN)/sgcprof $(BIN) \
	    $(BUILD)/pprof-check

test-profile-compat: $(BIN)/sgcprof $(BIN)/gcbench $(BIN)/largeobj
	@sh tests/check.sh test-profile-compat sh tests/profile/compat_check.sh $(BIN)/sgcprof $(BIN) \
	    tests/profile/compat $(BUILD)/profile-compat

# Programs that link the heap need the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
TESTS += test-profile test-profile-pprof test-profile-compat
endif
