// fcthread.cc - fcthread.node, the JavaScript peers' native addon (N-API and
// V8's C++ API): what Node.js 20 does not offer the in-process driver
// (common.js) from JavaScript.
//  - threadCpuNs(): the calling thread's CPU time, CLOCK_THREAD_CPUTIME_ID
//    (process.cpuUsage() is the whole process's), used with
//    FREECHECK_V8_CPU_CLOCK=thread under node --single-threaded, where the
//    main thread does all of V8's work;
//  - gcCounts: a Uint32Array over this addon's counters of V8's collections,
//    [0] scavenges (V8's minor collections), [1] mark-compacts (major), [2]
//    the others, incremented by a GC epilogue callback
//    (Isolate::AddGCEpilogueCallback) as each one ends, so the driver reads
//    them with one array load and cuts segments of K scavenges
//    (SGC_ALT_SEGMENT=K).
// Built by workloads/peers/module.mk against the headers of the node it
// runs under.
//
// Invariants: threadCpuNs() returns nanoseconds as a double (exact below
// 2^53 ns, about 104 days of CPU time); the counters are touched only by
// the callback, which V8 calls on the thread that collected (the main
// thread under --single-threaded, and for every scavenge and mark-compact:
// the epilogue runs on the isolate's thread).
#include <node_api.h>
#include <stdint.h>
#include <time.h>
#include <v8.h>

static uint32_t gc_counts[3];

static void gc_epilogue(v8::Isolate *, v8::GCType type, v8::GCCallbackFlags, void *) {
    if (type & v8::kGCTypeScavenge)
        gc_counts[0]++;
    else if (type & v8::kGCTypeMarkSweepCompact)
        gc_counts[1]++;
    else
        gc_counts[2]++;
}

static napi_value thread_cpu_ns(napi_env env, napi_callback_info) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    napi_value v;
    if (napi_create_double(env, (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec, &v) != napi_ok)
        return nullptr;
    return v;
}

static napi_value init(napi_env env, napi_value exports) {
    napi_value f, buffer, counts;
    if (napi_create_function(env, "threadCpuNs", NAPI_AUTO_LENGTH, thread_cpu_ns, nullptr, &f) != napi_ok ||
        napi_set_named_property(env, exports, "threadCpuNs", f) != napi_ok ||
        napi_create_external_arraybuffer(env, gc_counts, sizeof gc_counts, nullptr, nullptr, &buffer) != napi_ok ||
        napi_create_typedarray(env, napi_uint32_array, 3, buffer, 0, &counts) != napi_ok ||
        napi_set_named_property(env, exports, "gcCounts", counts) != napi_ok)
        return nullptr;
    v8::Isolate::GetCurrent()->AddGCEpilogueCallback(gc_epilogue, nullptr);
    return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
