/* sgc_stats_keys.h - the keys of the stats record (SGC_STATS, docs/FORMATS.md):
 * one table, the only place a key's name, type and value are written.
 *
 * Invariants:
 *  - The runtime writes the record in table order, one "key value" line per
 *    row (runtime/sgc_statswrite.c, sgc__statsw_fill); the harness stores every line in
 *    run_stats; analyze loads every numeric key into st_run.key[ST_K_<key>]
 *    (stats/st_db.h).  So a new key is one row here; the code that reads it
 *    names it ST_K_<key> (analyze) or by its string (anything else).
 *  - Rows are only ever appended or inserted, never renamed or removed: the
 *    record only grows, and readers ignore keys they do not know.
 *  - Types: U64 a decimal integer, INT a signed one, DEC3 a decimal with three places, WORD a
 *    word without spaces (a mode or clock of sgc_modes.h).
 *
 * Each row is X(key, TYPE, value, "meaning").  value is the C expression
 * sgc__statsw_fill prints; it may use s (the sgc_stats of the run), st (the
 * sgc_settings in force), run_ns (time since start-up), hz (the achieved
 * time-sampling rate), time_sampler_cpu and hugepages_in_effect (the fields
 * of sgc_statswrite.h's sgc_statsw_in the collector fills).  Other stages
 * ignore it.
 */
#ifndef SGC_STATS_KEYS_H
#define SGC_STATS_KEYS_H

#define SGC_STATS_KEYS(X)                                                                                     \
    X(run_ns, U64, run_ns, "time from runtime start to the record (sgc__now_ns)")                             \
    X(nursery_bytes, U64, s.nursery_bytes, "footprint bytes allocated in the nursery")                        \
    X(nursery_objects, U64, s.nursery_objects, "objects allocated in the nursery")                            \
    X(large_bytes, U64, s.large_bytes, "footprint bytes allocated as large objects")                          \
    X(large_objects, U64, s.large_objects, "objects allocated as large objects")                              \
    X(bytes_allocated, U64, s.nursery_bytes + s.large_bytes, "nursery_bytes + large_bytes")                   \
    X(objects_allocated, U64, s.nursery_objects + s.large_objects, "nursery_objects + large_objects")         \
    X(minor_collections, U64, s.minor_collections, "minor collections")                                       \
    X(minor_ns, U64, s.minor_ns, "time spent in minor collections")                                           \
    X(major_collections, U64, s.major_collections, "major collections")                                       \
    X(major_ns, U64, s.major_ns, "time spent in major collections")                                           \
    X(gc_ns, U64, s.minor_ns + s.major_ns, "minor_ns + major_ns")                                             \
    X(bytes_promoted, U64, s.bytes_promoted, "nursery bytes copied into the old generation")                  \
    X(large_promoted, U64, s.large_promoted, "young large objects that survived a minor collection")          \
    X(heap_bytes, U64, s.heap_bytes, "old generation + large objects in use at exit")                         \
    X(peak_heap_bytes, U64, s.peak_heap_bytes, "high-water mark of old generation + large objects + nursery") \
    X(alloc_samples, U64, s.alloc_samples, "sampled objects recorded")                                        \
    X(alloc_sample_points, U64, s.alloc_sample_points, "sample points hit (an object can hit several)")       \
    X(sampled_bytes, U64, s.sampled_bytes, "bytes allocated while allocation sampling was on")                \
    X(time_samples, U64, s.time_samples, "time samples taken in the signal handler")                          \
    X(time_samples_dropped, U64, s.time_samples_dropped, "time samples lost to a full buffer")                \
    X(time_samples_written, U64, s.time_samples_written, "time samples written to the profile")               \
    X(time_sampling_ns, U64, s.time_sampling_ns, "how long time sampling was on")                             \
    X(time_samples_missed, U64, s.time_samples_missed, "timer expirations merged while not running")          \
    X(time_samples_throttled, U64, s.time_samples_throttled, "timer periods skipped by pacing")               \
    X(time_snapshot_retries, U64, s.time_snapshot_retries, "thread mode: stack snapshots retried")            \
    X(time_snapshots_torn, U64, s.time_snapshots_torn, "thread mode: snapshots given up as torn")             \
    X(time_sampler_cpu, INT, time_sampler_cpu, "thread mode: the sampler thread's CPU, -1 if none")           \
    X(time_hz_achieved, DEC3, hz, "time_samples / (time_sampling_ns / 1e9); 0 if off")                        \
    X(alloc_period, U64, st->alloc_period, "setting in force at start: SGC_ALLOC_PERIOD")                     \
    X(alloc_mode, WORD, sgc_alloc_mode_name(st->alloc_mode), "setting: SGC_ALLOC_MODE")                       \
    X(seed, U64, st->seed, "setting: SGC_SEED")                                                               \
    X(alloc_offset, U64, st->alloc_offset, "setting: SGC_ALLOC_OFFSET")                                       \
    X(time_hz, U64, st->time_hz, "setting: SGC_TIME_HZ")                                                      \
    X(time_clock, WORD, sgc_clock_name(st->time_clock), "setting: SGC_TIME_CLOCK")                            \
    X(time_mode, WORD, sgc_time_mode_name(st->time_mode), "setting: SGC_TIME_MODE")                           \
    X(nursery_size, U64, st->nursery_size, "setting: SGC_NURSERY")                                            \
    X(major_growth, DEC3, st->major_growth, "setting: SGC_MAJOR_GROWTH")                                      \
    X(stress_every, U64, st->stress_every, "setting: SGC_GC_STRESS")                                          \
    X(verify, U64, st->verify, "setting: SGC_VERIFY")                                                         \
    X(poison, U64, st->poison, "setting: SGC_POISON")                                                         \
    X(sample_spin_ns, U64, st->sample_spin_ns, "setting: SGC_SAMPLE_SPIN_NS")                                 \
    X(sample_spin_clock, WORD, sgc_clock_name(st->sample_spin_clock), "setting: SGC_SAMPLE_SPIN_CLOCK")       \
    X(sample_spin_iters_per_us, DEC3, st->spin_iters_per_ns * 1000, "calibrated spin loop speed")             \
    X(virtual_clock_ns, U64, st->virtual_clock_ns, "setting: SGC_VIRTUAL_CLOCK (0: the real clock)")          \
    X(hugepages, U64, st->hugepages, "setting: SGC_HUGEPAGES")                                                \
    X(hugepages_in_effect, U64, hugepages_in_effect, "1: every heap mapping was advised MADV_HUGEPAGE")       \
    X(stack_frames_interned, U64, s.stack_frames_interned, "frames interned by the incremental stack walk")

#endif /* SGC_STATS_KEYS_H */
