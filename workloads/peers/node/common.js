// common.js - what the JavaScript peers share: arguments, checksum, object
// counts, V8's sampling heap profiler driven through the in-process
// inspector, in-process alternation, and the stats record.
//
// The peers are freecheck's binarytrees and gcbench in JavaScript, run by
// Node.js, for V8's allocation sampler (docs/WORKLOADS.md, "Peer programs").
//
// Sampling.  FREECHECK_V8_SAMPLE_INTERVAL=P (bytes; unset or 0: none) starts
// V8's sampling heap profiler with mean interval P through a node:inspector
// Session in this process (HeapProfiler.startSampling) as the work starts,
// and stops it as the work ends (HeapProfiler.stopSampling).  Both flags
// includeObjectsCollectedByMajorGC and includeObjectsCollectedByMinorGC are
// set, so the profile keeps every sample V8 took, also of objects collected
// since; alloc_samples is the number of samples in the returned profile.
// (node --heap-prof starts the same profiler without those flags: a sample
// is dropped when its object dies, so its file holds only the samples of
// objects still live at exit; docs/WORKLOADS.md.)  The inspector answers a
// command before Session.post returns, so starting and stopping are
// synchronous.
//
// In-process alternation (freecheck's protocol: SGC_ALTERNATE off, none or
// alloc; SGC_ALT_SEGMENT a CPU time, 1ms..60000ms, default 5ms;
// SGC_ALT_OUT; SGC_SEED): startSampling switches the sampler on at the
// start of every sampled segment (a fresh profile each, also after another
// one), stopSampling off at its end and returns the segment's samples, so
// the profile's extraction happens between the segment's end reading and
// the next segment's start reading: charged to no segment.  The inspector
// starts V8's sampler with kSamplingForceGC, so stopSampling first collects
// all garbage (a full collection, several milliseconds); the driver makes
// the same collection at every other boundary too (an empty start and stop),
// so that every segment of every cell starts from a fully collected heap.
// The CPU time is the process's (process.cpuUsage(): V8 collects and
// compiles on threads of its own), or with FREECHECK_V8_CPU_CLOCK=thread
// the main thread's (CLOCK_THREAD_CPUTIME_ID through fcthread.node, a
// native addon next to this file), which is only the whole work when V8
// runs on that one thread: thread needs node's --single-threaded (V8's
// collector and compilers on the main thread), else it exits 2.  The
// process's time also counts the inspector's and libuv's threads and the
// concurrent sweeping after every boundary's full collection, which vary
// from segment to segment.
//
// Counts.  bytes_allocated is the V8 heap bytes of the objects the program
// allocated, as V8 lays them out on 64-bit without pointer compression (a
// three-word header and one word per field; tests/peers/ checks the sizes
// against a heap snapshot): 48 bytes per binarytrees node, 56 per gcbench
// node.  gcbench's array of doubles is a Float64Array, whose elements V8
// keeps outside its heap (an ArrayBuffer's backing store), so they are not
// in bytes_allocated (the array is one of objects_allocated).  Counters live
// in Int32Arrays and every number in a field is a small integer, so that
// optimized code allocates nothing but the objects (unoptimized code boxes
// the hash's intermediate doubles in heap numbers until V8 optimizes it).
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const inspector = require("node:inspector");
const { performance } = require("node:perf_hooks");

const DEFAULT_SEED = 1592652782n; // the runtime's SGC_SEED default (docs/RUNTIME.md)
const FIRST_CHECK = 16;
const FAR = 1 << 30; // the countdown when no segment is running (a small integer)

let programName = "peer";
let startNs = 0;

// The objects the workload allocated, as two Int32Array slots (the low part
// below 2^30, the high part counting 2^30s), so that counting allocates no
// heap number in any of V8's tiers; each is an object of nodeBytes bytes,
// but the few "others", whose bytes are added up apart.
const objs = new Int32Array(2);
const TWO30 = 0x40000000;
let nodeBytes = 0, others = 0, otherBytes = 0;

function objectsNow() {
    return objs[1] * TWO30 + objs[0];
}

function bytesNow() {
    return (objectsNow() - others) * nodeBytes + otherBytes;
}

function usageError(name, what) {
    process.stderr.write(`${name}: ${what} (see ${name} --help)\n`);
    process.exit(2);
}

function settingError(what) {
    process.stderr.write(`${programName}: ${what}\n`);
    process.exit(2);
}

function intValue(name, option, text, min, max) {
    if (!/^[0-9]+$/.test(text) || text.length > 15) {
        usageError(name, `${option} '${text}' is not a whole decimal number in ${min}..${max}`);
    }
    const v = Number(text);
    if (v < min || v > max) {
        usageError(name, `${option} ${v} is out of range ${min}..${max}`);
    }
    return v;
}

// ---- Checksum: workloads/wl_common.h's wl_checksum (docs/WORKLOADS.md) ----

const M64 = (1n << 64n) - 1n;
const bitsF = new Float64Array(1);
const bitsU = new BigUint64Array(bitsF.buffer);

class Checksum {
    constructor() {
        this.h = 0x6a09e667f3bcc908n;
    }
    // Mixes a 64-bit value given as a BigInt (taken mod 2^64).
    mix(v) {
        const h = ((this.h << 27n) | (this.h >> 37n)) & M64;
        this.h = (((h ^ (BigInt.asUintN(64, v))) * 0x9e3779b97f4a7c15n) + 0x632be59bd9b4e019n) & M64;
    }
    mixNumber(n) {
        this.mix(BigInt(n));
    }
    mixDouble(d) {
        bitsF[0] = d;
        this.mix(bitsU[0]);
    }
    value() {
        let h = this.h;
        h ^= h >> 33n;
        h = (h * 0xff51afd7ed558ccdn) & M64;
        h ^= h >> 33n;
        h = (h * 0xc4ceb9fe1a85ec53n) & M64;
        h ^= h >> 33n;
        return h;
    }
}

// ---- V8's sampler through the inspector --------------------------------

let session = null;

function post(method, params) {
    let result, error;
    session.post(method, params, (e, r) => {
        error = e;
        result = r;
    });
    if (error) {
        process.stderr.write(`${programName}: the inspector refused ${method}: ${error.message}\n`);
        process.exit(1);
    }
    if (result === undefined) {
        process.stderr.write(`${programName}: the inspector did not answer ${method} synchronously\n`);
        process.exit(1);
    }
    return result;
}

function samplerOpen() {
    if (session === null) {
        session = new inspector.Session();
        session.connect();
        post("HeapProfiler.enable", {});
    }
}

function samplerStart(interval) {
    post("HeapProfiler.startSampling", {
        samplingInterval: interval,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
    });
}

// The program's own samples.  V8 reports a sample's size as the size of
// the allocation sampled times round(1 / (1 - exp(-size / P))) (the
// expected number of allocations of that size per sample), so a node of
// nodeBytes bytes shows as 56 * 74 = 4144 at P = 4096 (gcbench), 48 * 86 =
// 4128 (binarytrees).  Optimized code may fold two nodes' allocations into
// one of twice the size (gcbench's populate, which makes a node's two
// children: 112 bytes, 112 * 37 = 4144 at 4096 but 112 * 586 = 65632 at
// 65536, against a node's 56 * 1171 = 65576), which V8 samples as one.  A
// sample is the program's own when its size is that of one or two nodes
// (ownSizes) and its stack's leaf frame is in the workload's script
// (ownUrls: its path and its file URL): that leaves out what V8 allocates
// for the driver (the clock readings, the inspector's messages) and the
// heap numbers in which unoptimized code boxes doubles (gcbench's array
// fill and sum, until V8's concurrent on-stack replacement has compiled
// them: how many depends on the load), whose reported size differs (16
// bytes: 16 * 257 = 4112 at 4096).  Other sizes map to the same reported
// sizes (at 4096: 32, 344 bytes to 4128; 296, 592 to 4144); the workloads'
// scripts allocate no such object in their timed work but gcbench's one
// Float64Array (tests/peers/ allow it one sample).
let ownSizes = [];
let ownUrls = [];

function ownSetup() {
    const file = require.main ? require.main.filename : "";
    ownUrls = [file, require("node:url").pathToFileURL(file).href];
    ownSizes = [1, 2].map((k) => k * nodeBytes * Math.round(1 / (1 - Math.exp(-k * nodeBytes / interval))));
}

// Stops sampling; returns [the number of samples taken since the start, the
// number of them that are the program's own].
function samplerStop() {
    const profile = post("HeapProfiler.stopSampling", {}).profile;
    const own = new Set(), todo = [profile.head];
    while (todo.length > 0) {
        const n = todo.pop();
        if (ownUrls.includes(n.callFrame.url)) own.add(n.id);
        for (const c of n.children) todo.push(c);
    }
    let k = 0;
    for (const s of profile.samples) if (ownSizes.includes(s.size) && own.has(s.nodeId)) k++;
    return [profile.samples.length, k];
}

// ---- Settings --------------------------------------------------------------

function unsignedEnv(name, max, what) {
    const v = process.env[name];
    if (v === undefined || v === "") return null;
    if (!/^[0-9]+$/.test(v) || BigInt(v) > max) settingError(`${name}=${v}: ${what}`);
    return BigInt(v);
}

let interval = 0; // FREECHECK_V8_SAMPLE_INTERVAL

// ---- In-process alternation --------------------------------------------------

const OFF = 0, NONE = 1, ALLOC = 2;

// docs/FORMATS.md's phase of a seed (the runtime's phase_for_seed).
function phaseFor(seed) {
    let z = seed ^ 0xa17e4a7e5e6a5eedn;
    z = (z + 0x9e3779b97f4a7c15n) & M64;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
    z ^= z >> 31n;
    return Number(z >> 63n);
}

const alt = {
    mode: OFF, phase: 0, closed: false, seed: DEFAULT_SEED, targetNs: 5e6, fills: 0, out: "",
    index: 0, block: 0, pos: 3, kind: "A", on: 0, sampling: false,
    sCpu: 0, sWall: 0, sBytes: 0, sIter: 0, sMinor: 0, sMajor: 0, lastEnd: 0,
    iterations: 0, armed: FAR, samples: 0, ownSamples: 0, segs: [],
};
let countdown = FAR;

let threadClock = null; // fcthread.node's threadCpuNs with FREECHECK_V8_CPU_CLOCK=thread
let gcCounts = null; // fcthread.node's counts of V8's collections: [0] scavenges, [1] mark-compacts
const GC_POLL = 64; // objects between readings of the scavenge count (SGC_ALT_SEGMENT=K)

// fcthread.node (next to this file), loaded when the settings need it.
function addon(what) {
    try {
        return require(path.join(__dirname, "fcthread.node"));
    } catch (e) {
        process.stderr.write(`${programName}: ${what}: cannot load ${path.join(__dirname, "fcthread.node")} ` +
            `(make peers-build-v8 builds it): ${e.message}\n`);
        process.exit(1);
    }
}

function cpuNs() {
    if (threadClock) return threadClock();
    const u = process.cpuUsage();
    return (u.user + u.system) * 1000;
}

function wallNs() {
    return Math.round(performance.now() * 1e6);
}

function kindAt(pos) {
    const outer = pos === 0 || pos === 3;
    return outer === (alt.phase === 0) ? "A" : "B";
}

function countIterations() {
    alt.iterations += alt.armed - countdown;
    alt.armed = countdown;
}

function arm(n) {
    countIterations();
    countdown = n;
    alt.armed = n;
}

// Switches to the running segment's state, then takes its start reading
// (counters first, CPU time last).
function begin() {
    alt.kind = kindAt(alt.pos);
    const on = alt.mode === ALLOC ? alt.kind === "B" : interval > 0;
    alt.on = alt.mode === ALLOC && on ? 1 : 0;
    if (on) samplerStart(interval); // every sampled segment is a fresh profile: its samples are its own
    alt.sampling = on;
    countIterations();
    alt.sBytes = bytesNow();
    alt.sIter = alt.iterations;
    if (gcCounts) {
        alt.sMinor = gcCounts[0];
        alt.sMajor = gcCounts[1];
    }
    alt.sWall = wallNs();
    alt.sCpu = cpuNs();
    arm(FIRST_CHECK);
}

// Records the running segment as ended now (CPU time first); a sampled
// segment then stops the sampler and counts its profile's samples.
function end(exit, cpu) {
    const wall = wallNs();
    countIterations();
    const bytes = bytesNow(), iter = alt.iterations;
    const minor = gcCounts ? gcCounts[0] - alt.sMinor : 0, major = gcCounts ? gcCounts[1] - alt.sMajor : 0;
    let samples = 0;
    if (alt.sampling) {
        const [all, own] = samplerStop();
        samples = all;
        alt.ownSamples += own;
        alt.sampling = false;
    } else if (!exit) {
        // stopSampling makes V8 collect all garbage first (the inspector asks
        // for kSamplingForceGC), so every boundary gets that same collection,
        // also where no segment was sampled: every segment starts from a
        // fully collected heap, whatever its kind and whatever the cell.
        samplerStart(interval > 0 ? interval : 0x7fffffff);
        samplerStop();
    }
    alt.samples += samples;
    alt.segs.push([alt.index, alt.block, alt.pos, alt.kind, alt.on, exit ? "exit" : alt.fills ? "gc" : "iter",
        cpu - alt.sCpu, wall - alt.sWall, bytes - alt.sBytes, iter - alt.sIter, samples,
        alt.index > 0 ? alt.sCpu - alt.lastEnd : 0, minor, major]);
    alt.lastEnd = cpu;
}

function nextSegment() {
    alt.index++;
    alt.pos = (alt.pos + 1) % 4;
    if (alt.pos === 0) alt.block++;
    begin();
}

function altSlow() {
    if (alt.mode === OFF || alt.closed) {
        arm(FAR);
        return;
    }
    countIterations();
    if (alt.fills) {
        // Segments of K scavenges: end just after the K-th one ends.
        if (gcCounts[0] - alt.sMinor >= alt.fills) {
            end(false, cpuNs());
            nextSegment();
        } else {
            arm(GC_POLL);
        }
        return;
    }
    const now = cpuNs();
    const elapsed = now - alt.sCpu;
    if (elapsed >= alt.targetNs) {
        end(false, now);
        nextSegment();
        return;
    }
    // Look again when about half of the remaining time should have passed
    // at the rate so far (as the runtime's driver does).
    const done = alt.iterations - alt.sIter;
    let next = elapsed > 0 ? (alt.targetNs - elapsed) * done / elapsed / 2 : FIRST_CHECK;
    next = Math.min(Math.max(next, 1), FAR);
    arm(Math.floor(next));
}

// The check point: the workloads call it once per allocated node (an
// object of spec.nodeBytes bytes) ...
function tick() {
    if (++objs[0] === TWO30) {
        objs[0] = 0;
        objs[1]++;
    }
    if (--countdown <= 0) altSlow();
}

// ... and once per other object, with its bytes.
function tickOther(bytes) {
    others++;
    otherBytes += bytes;
    tick();
}

function altStart() {
    const v = process.env.SGC_ALTERNATE;
    ["SGC_ALT_SEGMENT", "SGC_ALT_OUT", "SGC_ALT_CARRY", "SGC_ALT_COST"].forEach((name, i) => {
        const w = process.env[name];
        if (w === undefined || w === "" || w === "0") return; // an empty path and a cost of 0 ask for nothing
        if (i >= 2) settingError(`${name}=${w}: freecheck's debug cost; this program does not inject it (unset ${name})`);
        if (v === undefined || v === "off") {
            settingError(`${name}=${w}: has no effect without in-process alternation (SGC_ALTERNATE is off or unset); ` +
                `set SGC_ALTERNATE or unset ${name}`);
        }
    });
    if (v === undefined || v === "off") return;
    if (v === "none") alt.mode = NONE;
    else if (v === "alloc") alt.mode = ALLOC;
    else if (v === "time" || v === "both") {
        settingError(`SGC_ALTERNATE=${v}: this program has no time sampler; it alternates off, none or alloc`);
    } else settingError(`SGC_ALTERNATE=${v}: expected off, none or alloc`);
    const s = process.env.SGC_ALT_SEGMENT;
    if (s !== undefined) {
        const ms = s.endsWith("ms"), n = ms ? s.slice(0, -2) : s;
        if (!/^[1-9][0-9]*$/.test(n) || Number(n) > (ms ? 60000 : 1000000)) {
            settingError(`SGC_ALT_SEGMENT=${s}: expected a CPU time from 1ms to 60000ms, or a number of scavenges ` +
                "(V8's minor collections) from 1 to 1000000");
        }
        if (ms) {
            alt.targetNs = Number(n) * 1e6;
        } else {
            alt.fills = Number(n);
            alt.targetNs = 0;
        }
    }
    const seed = unsignedEnv("SGC_SEED", M64, "expected an unsigned decimal integer below 2^64");
    if (seed !== null) alt.seed = seed;
    const clock = process.env.FREECHECK_V8_CPU_CLOCK;
    if (clock !== undefined && clock !== "process" && clock !== "thread") {
        settingError(`FREECHECK_V8_CPU_CLOCK=${clock}: expected process or thread`);
    }
    if (clock === "thread") {
        if (!process.execArgv.includes("--single-threaded")) {
            settingError("FREECHECK_V8_CPU_CLOCK=thread: the main thread's CPU time is the whole work only with " +
                "node --single-threaded (FREECHECK_NODE_OPTS=--single-threaded): V8 collects and compiles on " +
                "threads of its own otherwise");
        }
        threadClock = addon("FREECHECK_V8_CPU_CLOCK=thread").threadCpuNs;
    }
    // The collections of each segment, counted as they end (fcthread.node).
    gcCounts = addon("SGC_ALTERNATE").gcCounts;
    alt.out = process.env.SGC_ALT_OUT || "";
    if (alt.mode === ALLOC && interval === 0) {
        settingError("SGC_ALTERNATE=alloc: alternating V8's sampler needs its interval: FREECHECK_V8_SAMPLE_INTERVAL=BYTES");
    }
    samplerOpen();
    alt.phase = phaseFor(alt.seed);
    alt.pos = 3; // the lead-in stands where the previous block's last segment would
    begin();
}

function altFinish() {
    if (alt.mode === OFF || alt.closed) return;
    end(true, cpuNs());
    alt.closed = true;
    countdown = FAR;
    alt.armed = FAR;
    if (!alt.out) return;
    const mode = alt.mode === ALLOC ? "alloc" : "none";
    const period = alt.mode === ALLOC || interval > 0 ? interval : 0;
    const lines = ["sgc-segments 1", `alternate ${mode}`, `pattern ${alt.phase === 0 ? "ABBA" : "BAAB"}`,
        `segment_fills ${alt.fills}`, `segment_cpu_ns ${alt.targetNs}`, `alloc_period ${period}`, "alloc_mode poisson",
        "time_hz 0", "time_clock none", `seed ${alt.seed}`, "nursery_size 0", "carry_ns 0", "cost_ns 0",
        "system v8", `cpu_clock ${threadClock ? "thread" : "process"}`,
        "unmeasured alloc_points gc_ns major_cpu_ns",
        "columns index block pos kind on end cpu_ns wall_ns bytes iterations alloc_samples alloc_points " +
        "sampled_bytes time_samples minor major gc_ns major_cpu_ns switch_ns"];
    for (const g of alt.segs) {
        const sampled = (alt.mode === ALLOC ? g[4] === 1 : interval > 0) ? g[8] : 0;
        lines.push(`seg ${g[0]} ${g[1]} ${g[2]} ${g[3]} ${g[4]} ${g[5]} ${Math.round(g[6])} ${Math.round(g[7])} ` +
            `${g[8]} ${g[9]} ${g[10]} 0 ${sampled} 0 ${g[12]} ${g[13]} 0 0 ${Math.round(g[11])}`);
    }
    lines.push(`segments ${alt.segs.length}`);
    writeAtomic(alt.out, lines.join("\n") + "\n", "the segment series", "SGC_ALT_OUT");
}

// n (below 2^53) in 19 decimal digits, by a loop of 19 steps whatever its
// value: formatting the run's time costs the same in every run, so repeated
// runs under valgrind (the simulated part) count the same.
function digits19(n) {
    const d = new Array(19);
    for (let i = 18; i >= 0; i--) {
        d[i] = n % 10;
        n = Math.floor(n / 10);
    }
    return d.join("");
}

function writeAtomic(path, text, what, setting) {
    const tmp = path + ".tmp";
    try {
        fs.writeFileSync(tmp, text);
        fs.renameSync(tmp, path);
    } catch (e) {
        try {
            fs.unlinkSync(tmp);
        } catch (ignored) {
            // the message below names the problem
        }
        process.stderr.write(`${programName}: cannot write ${what} to ${path} (${setting}): ${e.message}\n`);
        process.exit(1);
    }
}

// ---- Start and finish ------------------------------------------------------

// Parses --size N (also --size=N) and, when spec.depthMax > 0, --depth D;
// --help; bad arguments exit 2.  Reads the sampling setting, then starts
// sampling (or alternation).  Returns {size, depth}.
function start(spec) {
    programName = spec.name;
    nodeBytes = spec.nodeBytes;
    startNs = wallNs();
    const run = { size: spec.defaultSize, depth: spec.defaultDepth };
    const args = process.argv.slice(2);
    for (let i = 0; i < args.length; i++) {
        const arg = args[i];
        const eq = arg.indexOf("=");
        const option = eq >= 0 ? arg.slice(0, eq) : arg;
        if (arg === "--help" || arg === "-h") {
            process.stdout.write(`usage: ${spec.name} [--size N]${spec.depthMax ? " [--depth D]" : ""}\n${spec.summary}\n\n` +
                `  --size N     the amount of work, as freecheck's ${spec.name} --size; 1..${spec.maxSize}, default ${spec.defaultSize}\n` +
                (spec.depthMax ? `  --depth D    maximum tree depth; ${spec.depthMin}..${spec.depthMax}, default ${spec.defaultDepth}\n` : "") +
                "  --help       this text\n\n" +
                "Prints one line \"checksum <16 hex digits>\", the same as freecheck's workload.\n" +
                "With SGC_STATS=FILE, writes a stats record (docs/FORMATS.md) to FILE at exit.\n" +
                "FREECHECK_V8_SAMPLE_INTERVAL=BYTES runs V8's sampling heap profiler over the work\n" +
                "(through node:inspector); SGC_ALTERNATE=none|alloc with SGC_ALT_OUT=FILE switches it\n" +
                "on and off in segments of CPU time and writes the segment series (docs/FORMATS.md).\n" +
                "Exit status: 0 ok, 1 failure, 2 bad arguments or settings.\n");
            process.exit(0);
        } else if (option === "--size" || (option === "--depth" && spec.depthMax > 0)) {
            let value;
            if (eq >= 0) value = arg.slice(eq + 1);
            else if (i + 1 < args.length) value = args[++i];
            else usageError(spec.name, `option ${option} needs a value`);
            if (option === "--size") run.size = intValue(spec.name, option, value, 1, spec.maxSize);
            else run.depth = intValue(spec.name, option, value, spec.depthMin, spec.depthMax);
        } else if (arg.startsWith("-")) {
            usageError(spec.name, `unknown option '${arg}'`);
        } else {
            usageError(spec.name, `unexpected argument '${arg}'`);
        }
    }
    if (spec.check) spec.check(run);
    const iv = unsignedEnv("FREECHECK_V8_SAMPLE_INTERVAL", 0x7fffffffn, "expected a whole number of bytes in 0..2147483647");
    interval = iv === null ? 0 : Number(iv);
    if (interval > 0) {
        ownSetup();
        samplerOpen();
    }
    altStart();
    if (interval > 0 && alt.mode === OFF) samplerStart(interval);
    return run;
}

// Ends sampling (or the series), prints the checksum line and, with
// SGC_STATS, writes the stats record.
function finish(sum) {
    let samples = 0, own = 0;
    if (alt.mode !== OFF) {
        altFinish(); // stops the sampler of a last sampled segment
        samples = alt.samples;
        own = alt.ownSamples;
    } else if (interval > 0) {
        [samples, own] = samplerStop();
    }
    const runNs = wallNs() - startNs;
    process.stdout.write(`checksum ${sum.value().toString(16).padStart(16, "0")}\n`);
    const path = process.env.SGC_STATS;
    if (!path) return;
    const period = alt.mode === ALLOC || interval > 0 ? interval : 0;
    const rec = ["sgc-stats 1", `run_ns ${digits19(Math.round(runNs))}`, `bytes_allocated ${bytesNow()}`,
        `objects_allocated ${objectsNow()}`, `alloc_samples ${samples}`, `alloc_period ${period}`, "alloc_mode poisson",
        "time_samples 0", "peer_system v8"];
    if (period > 0) rec.push(`v8_node_samples ${own}`, `v8_other_samples ${samples - own}`);
    writeAtomic(path, rec.join("\n") + "\n", "the stats record", "SGC_STATS");
}

// With FREECHECK_V8_HEAPSNAPSHOT=FILE, writes V8's heap snapshot to FILE:
// the workloads call this once, with their long-lived tree built, so that
// tests/peers/ can check the object sizes above against V8's own.
function snapshotPoint() {
    const path = process.env.FREECHECK_V8_HEAPSNAPSHOT;
    if (path) require("node:v8").writeHeapSnapshot(path);
}

module.exports = { start, finish, tick, tickOther, snapshotPoint, Checksum, usageError };
