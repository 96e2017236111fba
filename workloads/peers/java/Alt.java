// Alt.java - in-process alternation for the Java peers: the segment driver
// that switches HotSpot's heap sampling on and off in ABBA segments of the
// process's CPU time and writes the segment series (docs/FORMATS.md, "The
// segment series"; docs/WORKLOADS.md, "In-process alternation in the peers").
//
// Settings: freecheck's protocol (SGC_ALTERNATE off, none or alloc;
// SGC_ALT_SEGMENT a CPU time, 1ms..60000ms, default 5ms; SGC_ALT_OUT;
// SGC_SEED); the period of the on segments is the agent's interval
// (-agentpath:.../libfcagent.so=interval=P), which the agent sets as the JVM
// loads it.
//
// The switch is the agent's (fcagent.c): it enables or disables the
// SampledObjectAlloc event (JVMTI SetEventNotificationMode), at a boundary
// where the segments' kinds differ (and for the lead-in).  HotSpot tests
// that the event is enabled on every allocation slow path, so off takes
// effect at once; on takes effect when the thread next refills its TLAB,
// because only then does HotSpot lower the TLAB's end to the next sample
// point (docs/WORKLOADS.md measures that lag).  After the last segment
// sampling is switched off, so nothing after the series is sampled.  The samples are the agent's
// count of the events it received, read at every boundary; the bytes are the
// JVM's count of the bytes this thread allocated (ThreadMXBean); the CPU time
// is the process's (the agent's clock_gettime(CLOCK_PROCESS_CPUTIME_ID)):
// the collector and the JIT compilers run on threads of their own.
//
// Invariants: a segment's numbers are differences between its start reading
// (counters first, CPU time last) and its end reading (CPU time first);
// nothing between an end reading and the next start reading allocates
// (native calls return primitives, the series lives in arrays grown only
// right after a start reading, inside a segment), so the segments' bytes and
// samples add up to the counts over the series' span that the stats record
// reports.
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

final class Alt {
    private Alt() {}

    /** The check point's countdown: tick() leaves its decrement only when it runs out. */
    static long countdown = Long.MAX_VALUE;

    /** The check point: the workloads call it once per allocated object. */
    static void tick() {
        if (--countdown <= 0) {
            slow();
        }
    }

    // ---- The agent's side (fcagent.c) ----------------------------------------

    /** CPU time of the process, ns. */
    static native long cpuNanos();

    /** SampledObjectAlloc events delivered so far. */
    static native long samples();

    /** Enables (disables) the SampledObjectAlloc event; false if the agent cannot. */
    static native boolean setSampling(boolean on);

    /** The interval the agent set (0: loaded without sampling). */
    static native long interval();

    // ---- State ------------------------------------------------------------------

    private static final int OFF = 0, NONE = 1, ALLOC = 2;
    private static final long DEFAULT_SEED = 1592652782L; // the runtime's SGC_SEED default
    private static final int FIRST_CHECK = 16;

    private static int mode = OFF;
    /** The program's name for messages: a field, since a string constant's first use would allocate. */
    private static String program = "peer";
    private static int phase;
    private static boolean closed;
    private static long seed = DEFAULT_SEED;
    private static long targetNs = 5_000_000L;
    private static String out;
    private static long period;
    private static boolean samplingAtStart;
    private static boolean sampling; // the events are enabled

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static GarbageCollectorMXBean[] young = new GarbageCollectorMXBean[0];
    private static GarbageCollectorMXBean[] old = new GarbageCollectorMXBean[0];

    // The running segment.
    private static int index, block, pos;
    private static char kind;
    private static int on;
    private static long sCpu, sWall, sBytes, sIter, sSamples, sMinor, sMajor, lastEnd;
    private static long iterations;
    private static long armed = Long.MAX_VALUE;
    private static long wallBase;

    // Completed segments (columns).
    private static int n;
    private static int[] gIndex, gBlock, gPos, gOn;
    private static char[] gKind;
    private static boolean[] gExit;
    private static long[] gCpu, gWall, gBytes, gIter, gSamples, gMinor, gMajor, gSwitch;

    // Over the series' span, for the stats record.
    static long firstBytes, firstSamples, lastBytes, lastSamples;

    static boolean active() {
        return mode != OFF;
    }

    static long period() {
        return mode == ALLOC || samplingAtStart ? period : 0;
    }

    private static void bad(String name, String what) {
        System.err.println(name + ": " + what);
        System.exit(2);
    }

    /** docs/FORMATS.md's phase of a seed (the runtime's phase_for_seed). */
    static int phaseFor(long s) {
        long z = s ^ 0xa17e4a7e5e6a5eedL;
        z += 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        z ^= z >>> 31;
        return (int) (z >>> 63);
    }

    private static char kindAt(int p) {
        boolean outer = p == 0 || p == 3;
        return outer == (phase == 0) ? 'A' : 'B';
    }

    private static void countIterations() {
        iterations += armed - countdown;
        armed = countdown;
    }

    private static void arm(long k) {
        countIterations();
        countdown = k;
        armed = k;
    }

    private static long sum(GarbageCollectorMXBean[] beans) {
        long t = 0;
        for (GarbageCollectorMXBean b : beans) {
            long c = b.getCollectionCount();
            if (c > 0) {
                t += c;
            }
        }
        return t;
    }

    private static long wall() {
        return System.nanoTime() - wallBase;
    }

    /** Switches to the running segment's state, then takes its start reading. */
    private static void begin(String name) {
        kind = kindAt(pos);
        boolean b = kind == 'B';
        on = mode == ALLOC && b ? 1 : 0;
        boolean was = sampling;
        sampling = mode == ALLOC ? b : samplingAtStart;
        if (mode == ALLOC && (b != was || index == 0) && !setSampling(b)) {
            System.err.println(name + ": the agent could not " + (b ? "enable" : "disable") + " SampledObjectAlloc");
            System.exit(1);
        }
        countIterations();
        sSamples = samples();
        // A segment's bytes start where the previous segment's ended: the JVM
        // itself may allocate on this thread between the two readings (seen
        // with C2 compiling: 2832 bytes in 1 of 14 gcbench runs at load 11),
        // and the record's bytes_allocated (lastBytes - firstBytes) must be
        // the sum of the segments'.
        sBytes = index == 0 ? THREADS.getCurrentThreadAllocatedBytes() : lastBytes;
        sMinor = sum(young);
        sMajor = sum(old);
        sIter = iterations;
        sWall = wall();
        sCpu = cpuNanos();
        if (gCpu == null || n == gCpu.length) {
            grow(); // inside the segment: its bytes are this segment's
        }
        arm(FIRST_CHECK);
    }

    private static void grow() {
        int c = Math.max(2 * n, 4096);
        if (gCpu == null) {
            gIndex = new int[0];
            gBlock = new int[0];
            gPos = new int[0];
            gOn = new int[0];
            gKind = new char[0];
            gExit = new boolean[0];
            gCpu = gWall = gBytes = gIter = gSamples = gMinor = gMajor = gSwitch = new long[0];
        }
        gIndex = java.util.Arrays.copyOf(gIndex, c);
        gBlock = java.util.Arrays.copyOf(gBlock, c);
        gPos = java.util.Arrays.copyOf(gPos, c);
        gOn = java.util.Arrays.copyOf(gOn, c);
        gKind = java.util.Arrays.copyOf(gKind, c);
        gExit = java.util.Arrays.copyOf(gExit, c);
        gCpu = java.util.Arrays.copyOf(gCpu, c);
        gWall = java.util.Arrays.copyOf(gWall, c);
        gBytes = java.util.Arrays.copyOf(gBytes, c);
        gIter = java.util.Arrays.copyOf(gIter, c);
        gSamples = java.util.Arrays.copyOf(gSamples, c);
        gMinor = java.util.Arrays.copyOf(gMinor, c);
        gMajor = java.util.Arrays.copyOf(gMajor, c);
        gSwitch = java.util.Arrays.copyOf(gSwitch, c);
    }

    /** Records the running segment as ended now (CPU time first). */
    private static void end(boolean exit, long cpu) {
        long w = wall();
        countIterations();
        long bytes = THREADS.getCurrentThreadAllocatedBytes();
        long smp = samples();
        long minor = sum(young), major = sum(old);
        int i = n++;
        gIndex[i] = index;
        gBlock[i] = block;
        gPos[i] = pos;
        gKind[i] = kind;
        gOn[i] = on;
        gExit[i] = exit;
        gCpu[i] = cpu - sCpu;
        gWall[i] = w - sWall;
        gBytes[i] = bytes - sBytes;
        gIter[i] = iterations - sIter;
        gSamples[i] = smp - sSamples;
        gMinor[i] = minor - sMinor;
        gMajor[i] = major - sMajor;
        gSwitch[i] = index > 0 ? sCpu - lastEnd : 0;
        lastEnd = cpu;
        lastBytes = bytes;
        lastSamples = smp;
    }

    private static void slow() {
        if (mode == OFF || closed) {
            arm(Long.MAX_VALUE);
            return;
        }
        countIterations();
        long now = cpuNanos();
        long elapsed = now - sCpu;
        if (elapsed >= targetNs) {
            end(false, now);
            index++;
            pos = (pos + 1) % 4;
            if (pos == 0) {
                block++;
            }
            begin(program);
            return;
        }
        // Look again when about half of the remaining time should have passed
        // at the rate so far (as the runtime's driver does).
        long done = iterations - sIter;
        double next = elapsed > 0 ? (double) (targetNs - elapsed) * done / elapsed / 2.0 : FIRST_CHECK;
        if (next < 1) {
            next = 1;
        }
        if (next > 1e15) {
            next = 1e15;
        }
        arm((long) next);
    }

    private static long parseUnsigned(String name, String var, String v, String what) {
        if (v.isEmpty() || v.length() > 20 || !v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            bad(name, var + "=" + v + ": " + what);
        }
        try {
            return Long.parseUnsignedLong(v);
        } catch (NumberFormatException e) {
            bad(name, var + "=" + v + ": " + what);
            return 0;
        }
    }

    /** Reads the settings (bad ones exit 2) and, for none or alloc, begins the lead-in. */
    static void start(String name) {
        String v = System.getenv("SGC_ALTERNATE");
        String[] vars = {"SGC_ALT_SEGMENT", "SGC_ALT_OUT", "SGC_ALT_CARRY", "SGC_ALT_COST"};
        for (int i = 0; i < vars.length; i++) {
            String w = System.getenv(vars[i]);
            if (w == null || w.isEmpty() || w.equals("0")) {
                continue; // an empty path and a cost of 0 ask for nothing
            }
            if (i >= 2) {
                bad(name, vars[i] + "=" + w + ": freecheck's debug cost; this program does not inject it (unset "
                        + vars[i] + ")");
            }
            if (v == null || v.equals("off")) {
                bad(name, vars[i] + "=" + w + ": has no effect without in-process alternation (SGC_ALTERNATE is off "
                        + "or unset); set SGC_ALTERNATE or unset " + vars[i]);
            }
        }
        if (v == null || v.equals("off")) {
            return;
        }
        program = name;
        if (v.equals("none")) {
            mode = NONE;
        } else if (v.equals("alloc")) {
            mode = ALLOC;
        } else if (v.equals("time") || v.equals("both")) {
            bad(name, "SGC_ALTERNATE=" + v + ": this program has no time sampler; it alternates off, none or alloc");
        } else {
            bad(name, "SGC_ALTERNATE=" + v + ": expected off, none or alloc");
        }
        String s = System.getenv("SGC_ALT_SEGMENT");
        if (s != null) {
            if (!s.endsWith("ms")) {
                bad(name, "SGC_ALT_SEGMENT=" + s
                        + ": this program has no minor collections to count; give a CPU time such as 5ms");
            }
            long ms = parseUnsigned(name, "SGC_ALT_SEGMENT", s.substring(0, s.length() - 2),
                    "expected a CPU time from 1ms to 60000ms");
            if (ms < 1 || ms > 60000) {
                bad(name, "SGC_ALT_SEGMENT=" + s + ": expected a CPU time from 1ms to 60000ms");
            }
            targetNs = ms * 1_000_000L;
        }
        s = System.getenv("SGC_SEED");
        if (s != null) {
            seed = parseUnsigned(name, "SGC_SEED", s, "expected an unsigned decimal integer below 2^64");
        }
        out = System.getenv("SGC_ALT_OUT");
        try {
            period = interval();
        } catch (UnsatisfiedLinkError e) {
            bad(name, "SGC_ALTERNATE=" + v + ": the driver needs the agent: "
                    + "-agentpath:build/bin/peers/libfcagent.so=interval=BYTES in FREECHECK_JVM_OPTS");
        }
        samplingAtStart = period > 0;
        if (mode == ALLOC && period == 0) {
            bad(name, "SGC_ALTERNATE=alloc: alternating HotSpot's sampler needs its interval: the agent with interval=BYTES");
        }
        List<GarbageCollectorMXBean> y = new ArrayList<>(), o = new ArrayList<>();
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            String g = b.getName();
            boolean isYoung = g.contains("Young") || g.equals("Copy") || g.contains("Scavenge") || g.equals("ParNew");
            (isYoung ? y : o).add(b);
        }
        young = y.toArray(new GarbageCollectorMXBean[0]);
        old = o.toArray(new GarbageCollectorMXBean[0]);
        phase = phaseFor(seed);
        wallBase = System.nanoTime();
        pos = 3; // the lead-in stands where the previous block's last segment would
        begin(name);
        firstBytes = sBytes;
        firstSamples = sSamples;
    }

    /** Ends the last segment (end exit) and writes the series; failure exits 1. */
    static void finish(String name) {
        if (mode == OFF) {
            return;
        }
        if (!closed) {
            end(true, cpuNanos());
            closed = true;
            countdown = Long.MAX_VALUE;
            armed = Long.MAX_VALUE;
            if (mode == ALLOC) {
                setSampling(false); // nothing after the series is sampled
            }
        }
        if (out == null || out.isEmpty()) {
            return;
        }
        StringBuilder b = new StringBuilder();
        b.append("sgc-segments 1\nalternate ").append(mode == ALLOC ? "alloc" : "none");
        b.append("\npattern ").append(phase == 0 ? "ABBA" : "BAAB");
        b.append("\nsegment_fills 0\nsegment_cpu_ns ").append(targetNs);
        b.append("\nalloc_period ").append(period()).append("\nalloc_mode poisson\ntime_hz 0\ntime_clock none");
        b.append("\nseed ").append(Long.toUnsignedString(seed));
        b.append("\nnursery_size 0\ncarry_ns 0\ncost_ns 0\nsystem hotspot\ncpu_clock process");
        b.append("\nunmeasured alloc_points gc_ns major_cpu_ns");
        b.append("\ncolumns index block pos kind on end cpu_ns wall_ns bytes iterations alloc_samples alloc_points "
                + "sampled_bytes time_samples minor major gc_ns major_cpu_ns switch_ns\n");
        for (int i = 0; i < n; i++) {
            boolean sampled = mode == ALLOC ? gOn[i] == 1 : samplingAtStart;
            b.append("seg ").append(gIndex[i]).append(' ').append(gBlock[i]).append(' ').append(gPos[i]).append(' ')
                    .append(gKind[i]).append(' ').append(gOn[i]).append(' ').append(gExit[i] ? "exit" : "iter")
                    .append(' ').append(gCpu[i]).append(' ').append(gWall[i]).append(' ').append(gBytes[i])
                    .append(' ').append(gIter[i]).append(' ').append(gSamples[i]).append(" 0 ")
                    .append(sampled ? gBytes[i] : 0).append(" 0 ").append(gMinor[i]).append(' ').append(gMajor[i])
                    .append(" 0 0 ").append(gSwitch[i]).append('\n');
        }
        b.append("segments ").append(n).append('\n');
        Path target = Paths.get(out);
        Path tmp = Paths.get(out + ".tmp");
        try {
            Files.write(tmp, b.toString().getBytes(StandardCharsets.US_ASCII));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the message below names the problem
            }
            System.err.println(name + ": cannot write the segment series to " + out + " (SGC_ALT_OUT): " + e);
            System.exit(1);
        }
    }
}
