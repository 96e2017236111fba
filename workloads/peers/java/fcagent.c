/* fcagent.c - a JVMTI agent that turns on HotSpot's heap sampling (JEP 331)
 * and records a stack trace per sample, as an allocation profiler does.
 *
 *   java -agentpath:build/bin/peers/libfcagent.so=interval=BYTES ...
 *
 * On load, for BYTES > 0, it asks for can_generate_sampled_object_alloc_events,
 * enables the SampledObjectAlloc event and calls SetHeapSamplingInterval(BYTES):
 * HotSpot then samples an allocation after a random number of bytes with mean
 * BYTES (geometric gaps).  interval=0 is the baseline with the agent loaded:
 * it asks for nothing and enables nothing, so HotSpot samples nothing (this
 * differs from SetHeapSamplingInterval(0), which would sample every
 * allocation).  For each sample, in the
 * allocating thread, the agent takes the thread's stack (GetStackTrace, up to
 * HS_MAX_FRAMES frames) and records it in a table of distinct stacks with a
 * count each, under a lock.
 *
 * Counting (docs/WORKLOADS.md, "Peer programs"): samples is the number of
 * SampledObjectAlloc events HotSpot delivered; traces the number of them
 * whose stack was recorded; the table's counts add up to traces.  The Java
 * peers read all three through the native method Peer.heapSamplerCounts(),
 * which HotSpot finds in this library because it is an agent library.
 *
 * In-process alternation (Alt.java): the Java driver calls the native
 * methods Alt.setSampling (SetEventNotificationMode for SampledObjectAlloc,
 * enable or disable; the capability and the interval stay as set at load),
 * Alt.samples (the event count), Alt.cpuNanos (the process's CPU time,
 * clock_gettime(CLOCK_PROCESS_CPUTIME_ID)) and Alt.interval.
 *
 * Invariants: samples == traces + failed (a failed GetStackTrace is counted,
 * not hidden); the sum of the table's counts == traces.  A bad option prints
 * a message naming it and exits with status 2.
 */
#include <jni.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { HS_MAX_FRAMES = 64 };

/* One distinct stack and the samples taken with it. */
typedef struct hs_stack {
    uint64_t hash;          /* 0: empty slot */
    uint64_t count;         /* samples recorded with this stack */
    jint depth;             /* frames */
    jvmtiFrameInfo *frames; /* depth frames, innermost first */
} hs_stack;

static pthread_mutex_t hs_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t hs_samples; /* SampledObjectAlloc events */
static uint64_t hs_traces;  /* events whose stack was recorded */
static uint64_t hs_failed;  /* events whose stack could not be taken or stored */
static jint hs_interval;    /* the interval set */
static hs_stack *hs_table;  /* open addressing, hs_cap slots, a power of two */
static jvmtiEnv *hs_jvmti;  /* the agent's environment (alternation switches events with it) */
static size_t hs_cap, hs_used;

static uint64_t hs_hash(const jvmtiFrameInfo *frames, jint depth) {
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)depth;
    for (jint i = 0; i < depth; i++) {
        h = (h ^ (uint64_t)(uintptr_t)frames[i].method) * 0x100000001b3ull;
        h = (h ^ (uint64_t)frames[i].location) * 0x100000001b3ull;
    }
    return h ? h : 1;
}

static hs_stack *hs_slot(hs_stack *table, size_t cap, uint64_t hash, const jvmtiFrameInfo *frames, jint depth) {
    for (size_t i = (size_t)hash & (cap - 1);; i = (i + 1) & (cap - 1)) {
        hs_stack *s = &table[i];
        if (s->hash == 0 ||
            (s->hash == hash && s->depth == depth && memcmp(s->frames, frames, (size_t)depth * sizeof *frames) == 0))
            return s;
    }
}

/* Adds one sample with this stack.  Returns 0, or -1 if out of memory. */
static int hs_record(const jvmtiFrameInfo *frames, jint depth) {
    if (2 * (hs_used + 1) > hs_cap) {
        size_t cap = hs_cap ? 2 * hs_cap : 4096;
        hs_stack *table = calloc(cap, sizeof *table);
        if (!table)
            return -1;
        for (size_t i = 0; i < hs_cap; i++)
            if (hs_table[i].hash)
                *hs_slot(table, cap, hs_table[i].hash, hs_table[i].frames, hs_table[i].depth) = hs_table[i];
        free(hs_table);
        hs_table = table;
        hs_cap = cap;
    }
    uint64_t hash = hs_hash(frames, depth);
    hs_stack *s = hs_slot(hs_table, hs_cap, hash, frames, depth);
    if (s->hash == 0) {
        jvmtiFrameInfo *copy = malloc((size_t)(depth ? depth : 1) * sizeof *copy);
        if (!copy)
            return -1;
        memcpy(copy, frames, (size_t)depth * sizeof *copy);
        *s = (hs_stack){hash, 0, depth, copy};
        hs_used++;
    }
    s->count++;
    return 0;
}

static void JNICALL hs_on_sample(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass klass,
                                 jlong size) {
    jvmtiFrameInfo frames[HS_MAX_FRAMES];
    jint depth = 0;
    jvmtiError err = (*jvmti)->GetStackTrace(jvmti, thread, 0, HS_MAX_FRAMES, frames, &depth);
    pthread_mutex_lock(&hs_lock);
    hs_samples++;
    if (err == JVMTI_ERROR_NONE && hs_record(frames, depth) == 0)
        hs_traces++;
    else
        hs_failed++;
    pthread_mutex_unlock(&hs_lock);
}

/* Parses "interval=BYTES" (0..2^31-1); anything else: message, exit 2. */
static jint hs_parse(const char *options) {
    const char *p = options ? options : "";
    if (strncmp(p, "interval=", 9) != 0) {
        fprintf(stderr, "fcagent: the agent's options must be 'interval=BYTES', not '%s'\n", p);
        exit(2);
    }
    p += 9;
    long long v = 0;
    if (*p == '\0')
        v = -1;
    for (; *p && v >= 0; p++)
        v = (*p < '0' || *p > '9' || v > 0x7fffffffLL) ? -1 : v * 10 + (*p - '0');
    if (v < 0 || v > 0x7fffffffLL) {
        fprintf(stderr, "fcagent: interval '%s' is not a whole number of bytes in 0..2147483647\n", options + 9);
        exit(2);
    }
    return (jint)v;
}

static void hs_check(jvmtiEnv *jvmti, jvmtiError err, const char *what) {
    if (err == JVMTI_ERROR_NONE)
        return;
    char *name = NULL;
    (*jvmti)->GetErrorName(jvmti, err, &name);
    fprintf(stderr, "fcagent: %s failed: %s\n", what, name ? name : "unknown JVMTI error");
    exit(1);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    hs_interval = hs_parse(options);
    jvmtiEnv *jvmti = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK || !jvmti) {
        fprintf(stderr, "fcagent: this JVM offers no JVMTI 11 (heap sampling needs Java 11 or later)\n");
        exit(1);
    }
    hs_jvmti = jvmti;
    if (hs_interval == 0)
        return JNI_OK; /* the baseline: no sampling */
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    hs_check(jvmti, (*jvmti)->AddCapabilities(jvmti, &caps),
             "AddCapabilities(can_generate_sampled_object_alloc_events)");
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.SampledObjectAlloc = hs_on_sample;
    hs_check(jvmti, (*jvmti)->SetEventCallbacks(jvmti, &callbacks, sizeof callbacks), "SetEventCallbacks");
    hs_check(jvmti, (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
             "enabling SampledObjectAlloc");
    hs_check(jvmti, (*jvmti)->SetHeapSamplingInterval(jvmti, hs_interval), "SetHeapSamplingInterval");
    return JNI_OK;
}

/* Peer.heapSamplerCounts(): {samples, traces, failed, interval, distinct
 * stacks, sum of the table's counts}. */
JNIEXPORT jlongArray JNICALL Java_Peer_heapSamplerCounts(JNIEnv *env, jclass cls) {
    jlong v[6];
    pthread_mutex_lock(&hs_lock);
    uint64_t sum = 0;
    for (size_t i = 0; i < hs_cap; i++)
        sum += hs_table[i].count;
    v[0] = (jlong)hs_samples;
    v[1] = (jlong)hs_traces;
    v[2] = (jlong)hs_failed;
    v[3] = (jlong)hs_interval;
    v[4] = (jlong)hs_used;
    v[5] = (jlong)sum;
    pthread_mutex_unlock(&hs_lock);
    jlongArray a = (*env)->NewLongArray(env, 6);
    if (a)
        (*env)->SetLongArrayRegion(env, a, 0, 6, v);
    return a;
}

/* ---- In-process alternation (Alt.java) -------------------------------------- */

JNIEXPORT jlong JNICALL Java_Alt_cpuNanos(JNIEnv *env, jclass cls) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (jlong)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

JNIEXPORT jlong JNICALL Java_Alt_samples(JNIEnv *env, jclass cls) {
    return (jlong)__atomic_load_n(&hs_samples, __ATOMIC_ACQUIRE);
}

JNIEXPORT jlong JNICALL Java_Alt_interval(JNIEnv *env, jclass cls) { return hs_interval; }

JNIEXPORT jboolean JNICALL Java_Alt_setSampling(JNIEnv *env, jclass cls, jboolean on) {
    if (hs_interval == 0 || !hs_jvmti)
        return JNI_FALSE;
    jvmtiError err = (*hs_jvmti)->SetEventNotificationMode(hs_jvmti, on ? JVMTI_ENABLE : JVMTI_DISABLE,
                                                           JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    return err == JVMTI_ERROR_NONE ? JNI_TRUE : JNI_FALSE;
}
