# tests/timer/module.mk - the time sampler's tests: test-timer (Criterion,
# one test at a time so rates are not skewed by each other: achieved rate at 100/1000/2000 Hz, exact stacks, dropped-sample accounting,
# restarts) and test-timer-stress (10 kHz time sampling with 4 KiB allocation
# sampling on a GC-heavy program for 4 s, in the ASan+UBSan build under
# $(BUILD)/san); the sampler thread's: test-thread, test-thread-tsan,
# test-thread-asan (below) and test-thread-reuse (frame memory reused at once
# by frames of other shapes and depths and by junk-filled locals, with the
# thread at 100 kHz until it has voided 50000 copies: a copy that follows a
# frame that is not live faults).
TIMER_TEST_BIN := $(BIN)/tests/test_timer
THREAD_TEST_BIN := $(BIN)/tests/test_thread
TIMER_STRESS_BIN := $(BIN)/tests/timer_stress
THREAD_REUSE_BIN := $(BIN)/tests/thread_reuse
CRITERION_LIBS ?= $(shell pkg-config --libs criterion)

$(OBJ)/tests/timer/test_timer.o: CFLAGS += -Wno-missing-field-initializers

$(TIMER_TEST_BIN): $(OBJ)/tests/timer/test_timer.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(CRITERION_LIBS) $(LDLIBS)

$(THREAD_TEST_BIN): $(OBJ)/tests/timer/test_thread.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(CRITERION_LIBS) $(LDLIBS) -lpthread

$(THREAD_REUSE_BIN): $(OBJ)/tests/timer/thread_reuse.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS) -lpthread

$(TIMER_STRESS_BIN): $(OBJ)/tests/timer/timer_stress.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

.PHONY: test-timer test-timer-stress timer-stress-san test-thread test-thread-reuse test-thread-tsan thread-tsan test-thread-asan thread-asan
test-timer: $(TIMER_TEST_BIN)
	@sh tests/check.sh test-timer $(TIMER_TEST_BIN) --jobs 1

# The sampler thread (SGC_TIME_MODE=thread): consistency under push/pop
# stress, exact stacks, start/stop, fork, agreement with the signal sampler.
test-thread: $(THREAD_TEST_BIN)
	@sh tests/check.sh test-thread $(THREAD_TEST_BIN) --jobs 1

# The sampler thread in ThreadSanitizer and ASan+UBSan builds (a plain
# driver: Criterion cannot start under ThreadSanitizer).  The only race
# allowed is the thread's optimistic copy of the stack (sgc_timer.c,
# thread_copy), excluded from ThreadSanitizer on purpose.
THREAD_RACE := bin/tests/thread_race
$(BIN)/tests/thread_race: $(OBJ)/tests/timer/thread_race.o $(LIBDIR)/libsgc.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS) -lpthread

thread-tsan:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan SANITIZE=thread $(BUILD)/tsan/$(THREAD_RACE)
thread-asan:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANITIZE=address,undefined $(BUILD)/san/$(THREAD_RACE)

# Before the pop ordered its stores (runtime/sgc.h), 40 of 40 runs of this died
# of SIGSEGV, each within 12000 voided copies (3 s in all for the 40); after, 0 of
# 20 (1-20 s of CPU each on a busy machine).  Stops on the count, or fails
# after 120 s of the program's CPU time without reaching it.
test-thread-reuse: $(THREAD_REUSE_BIN)
	@sh tests/check.sh test-thread-reuse timeout 600 $(THREAD_REUSE_BIN) 50000 120

test-thread-tsan: thread-tsan
	@TSAN_OPTIONS=halt_on_error=1 sh tests/check.sh test-thread-tsan $(BUILD)/tsan/$(THREAD_RACE) 2
test-thread-asan: thread-asan
	@sh tests/check.sh test-thread-asan $(BUILD)/san/$(THREAD_RACE) 2

timer-stress-san:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANITIZE=address,undefined $(BUILD)/san/bin/tests/timer_stress

test-timer-stress: timer-stress-san
	@SGC_TIME_HZ=10000 SGC_ALLOC_PERIOD=4K SGC_PROFILE=$(BUILD)/san/timer-stress.prof \
	    SGC_STATS=$(BUILD)/san/timer-stress.stats \
	    sh tests/check.sh test-timer-stress timeout 300 $(BUILD)/san/bin/tests/timer_stress 4

# Programs that link the heap need the collector (runtime/sgc_gc.c).
ifneq ($(wildcard runtime/sgc_gc.c),)
TESTS += test-timer test-timer-stress test-thread test-thread-reuse test-thread-tsan test-thread-asan
endif
