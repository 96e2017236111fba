/* sgc_prof_kinds.h - the profile's record kinds (SGC_PROFILE, docs/PROFILE.md):
 * one table, the only place a kind's number, name and fields are written.
 *
 * Invariants:
 *  - The writer's enum sgc_prof_kind (runtime/sgc_profile.h, SGC_REC_<ID>),
 *    the reader's names (sgc_pr_kind_name in runtime/sgc_profread.c, which
 *    sgcprof dump prints) and docs/PROFILE.md's "Record kinds" table (its
 *    kind, name and fields columns; tests/profile/test_kinds.c checks them)
 *    come from these rows.
 *  - Numbers are stored in every profile: a row is only ever appended with
 *    the next number, never renumbered or removed (readers skip a kind they
 *    do not know by its length).  0 is never a kind (corrupt data).
 *  - Nothing here depends on the rest of the runtime.
 *
 * Each row is X(ID, number, "dump name", "fields"): the fields in payload
 * order, as docs/PROFILE.md names them (varints unless it says otherwise).
 */
#ifndef SGC_PROF_KINDS_H
#define SGC_PROF_KINDS_H

#define SGC_PROF_KINDS(X)                                                    \
    X(STRING, 1, "string", "id, bytes (the rest of the payload)")            \
    X(NODE, 2, "node", "id, parent, func")                                   \
    X(TYPE, 3, "type", "tid, name")                                          \
    X(ALLOC_CONFIG, 4, "alloc-config", "ts, period, mode")                   \
    X(ALLOC_SAMPLE, 5, "alloc-sample", "ts, node, tid, size, points, flags") \
    X(TIME_CONFIG, 6, "time-config", "ts, hz, clock")                        \
    X(TIME_SAMPLE, 7, "time-sample", "ts, node, phase")                      \
    X(TIME_DROPPED, 8, "time-dropped", "ts, count")                          \
    X(GC_EVENT, 9, "gc-event", "kind, ts, duration, heap, rss")              \
    X(END, 10, "end", "ts, records")                                         \
    X(TIME_MISSED, 11, "time-missed", "ts, count")                           \
    X(EXIT_SIGNAL, 12, "exit-signal", "ts, signal")

/* The dump name of kind, or "unknown" (a kind of a newer writer, or 0). */
static inline const char *sgc_prof_kind_name(int kind) {
#define SGC__PROF_KIND_NAME(id, no, name, fields) \
    if (kind == (no))                             \
        return name;
    SGC_PROF_KINDS(SGC__PROF_KIND_NAME)
#undef SGC__PROF_KIND_NAME
    return "unknown";
}

#endif /* SGC_PROF_KINDS_H */
