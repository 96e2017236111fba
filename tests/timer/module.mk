# tests/timer/module.mk - the time sampler's tests: test-timer (Criterion,
# one test at a time so rates are not skewed by each other: achieved rate at 100/1000/2000 Hz, exact stacks, dropped-sample accounting,
# restarts) and test-timer-stress (10 kHz time sampling with 4 KiB allocation
# sampling on a GC-heavy program for 4 s, in the ASan+UBSan build under
# $(BUILD)/san).
TIMER_TEST_BIN := $(BIN)/tests/test_timer
TIMER_STRESS_BIN := $(BIN)/tests/timer_stress
CRITERION_LIBS ?= $(shell pkg-config --libs criterion)

$(OBJ)/tests/timer/test_timer.o: CFLAGS += -Wno-missing-field-initializers

$(TIMER_TEST_BIN): $(OBJ)/tests/timer/test_timer.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(CRITERION_LIBS) $(LDLIBS)

$(TIMER_STRESS_BIN): $(OBJ)/tests/timer/timer_stress.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: test-timer test-timer-stress timer-stress-san
test-timer: $(TIMER_TEST_BIN)
	@sh tests/check.sh test-timer $(TIMER_TEST_BIN) --jobs 1

timer-stress-san:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANITIZE=address,undefined $(BUILD)/san/bin/tests/timer_stress

test-timer-stress: timer-stress-san
	@SGC_TIME_HZ=10000 SGC_ALLOC_PERIOD=4K SGC_PROFILE=$(BUILD)/san/timer-stress.prof \
	    SGC_STATS=$(BUILD)/san/timer-stress.stats \
	    sh tests/check.sh test-timer-stress timeout 300 $(BUILD)/san/bin/tests/timer_stress 4

# Programs that link the heap need the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
TESTS += test-timer test-timer-stress
endif
