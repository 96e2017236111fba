# tests/accuracy/module.mk - the accuracy study's tests (in "make test"):
#   test-accuracy   the exact profile against hand-computed totals and the
#                   stats record; sgcprof accuracy on profiles with known
#                   distances; fixed-mode aliasing on a periodic program and
#                   a periodic sgc-replay trace; a small study end to end
#                   (tests/accuracy/accuracy_check.sh)
#   test-sgcprof-io what sgcprof reads and what it replaces
#                   (tests/accuracy/sgcprof_io.sh)
ifneq ($(wildcard runtime/sgc_gc.c),)
ACC_TEST_DIR := $(BUILD)/tests/accuracy

$(ACC_TEST_DIR)/acc-sites: $(OBJ)/tests/accuracy/acc_sites.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: test-accuracy
test-accuracy: $(ACC_TEST_DIR)/acc-sites $(BIN)/sgcprof $(BIN)/sgc-replay $(BIN)/gcbench $(BIN)/interp
	@sh tests/check.sh accuracy sh tests/accuracy/accuracy_check.sh $(BIN) $(ACC_TEST_DIR)/acc-sites
TESTS += test-accuracy

# What sgcprof reads and replaces (tests/accuracy/sgcprof_io.sh): pprof -o onto a FIFO, a
# directory, a device, a link or the profile itself refused; bounded inputs.
.PHONY: test-sgcprof-io
test-sgcprof-io: $(BIN)/sgcprof $(BIN)/gcbench
	@sh tests/check.sh sgcprof-io sh tests/accuracy/sgcprof_io.sh $(BIN)
TESTS += test-sgcprof-io
endif
