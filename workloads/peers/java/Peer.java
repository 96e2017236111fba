// Peer.java - what the Java peers share: arguments, checksum, allocation
// counts and the stats record with the heap sampler's own sample count.
//
// Sampling is HotSpot's heap sampling (JEP 331), turned on only by the agent
// fcagent.c (-agentpath:.../libfcagent.so=interval=BYTES); without
// the agent the JVM takes no heap samples and the run is the baseline.  The
// counts come from the agent through the native method heapSamplerCounts(),
// which HotSpot resolves in the agent library; without the agent it is
// unresolved (UnsatisfiedLinkError) and alloc_samples is 0.
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

final class Peer {
    final String name;
    long size;
    long depth;

    /** Objects the workload allocated (counted by the workload). */
    static long objects;

    private final long startNs = System.nanoTime();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long bytesAtStart;

    /** {samples, traces, failed, interval, distinct stacks, sum of the stacks' counts}; in fcagent.c. */
    static native long[] heapSamplerCounts();

    private Peer(String name, long size, long depth) {
        this.name = name;
        this.size = size;
        this.depth = depth;
    }

    private static void usageError(String name, String what) {
        System.err.println(name + ": " + what + " (see " + name + " --help)");
        System.exit(2);
    }

    private static long intValue(String name, String option, String text, long min, long max) {
        if (text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9') || text.length() > 18) {
            usageError(name, option + " '" + text + "' is not a whole decimal number in " + min + ".." + max);
        }
        long v = Long.parseLong(text);
        if (v < min || v > max) {
            usageError(name, option + " " + v + " is out of range " + min + ".." + max);
        }
        return v;
    }

    /** Parses --size N (also --size=N) and, when depthMax > 0, --depth D; --help. Bad arguments exit 2. */
    static Peer start(String name, String summary, String[] args, long defaultSize, long maxSize, long defaultDepth,
                      long depthMin, long depthMax) {
        Peer p = new Peer(name, defaultSize, defaultDepth);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            int eq = arg.indexOf('=');
            String option = eq >= 0 ? arg.substring(0, eq) : arg;
            if (arg.equals("--help") || arg.equals("-h")) {
                System.out.println("usage: " + name + " [--size N]" + (depthMax > 0 ? " [--depth D]" : "") + "\n" + summary
                        + "\n\n  --size N     the amount of work, as freecheck's " + name + " --size; 1.." + maxSize
                        + ", default " + defaultSize
                        + (depthMax > 0 ? "\n  --depth D    maximum tree depth; " + depthMin + ".." + depthMax
                                + ", default " + defaultDepth : "")
                        + "\n  --help       this text\n\n"
                        + "Prints one line \"checksum <16 hex digits>\", the same as freecheck's workload.\n"
                        + "With SGC_STATS=FILE, writes a stats record (docs/FORMATS.md) to FILE at exit.\n"
                        + "Heap sampling: java -agentpath:build/bin/peers/libfcagent.so=interval=BYTES.\n"
                        + "SGC_ALTERNATE=none|alloc with SGC_ALT_OUT=FILE switches it on and off in segments of\n"
                        + "CPU time and writes the segment series (docs/FORMATS.md).\n"
                        + "Exit status: 0 ok, 1 failure, 2 bad arguments.");
                System.exit(0);
            } else if (option.equals("--size") || (option.equals("--depth") && depthMax > 0)) {
                String value;
                if (eq >= 0) {
                    value = arg.substring(eq + 1);
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    usageError(name, "option " + option + " needs a value");
                    return p;
                }
                if (option.equals("--size")) {
                    p.size = intValue(name, option, value, 1, maxSize);
                } else {
                    p.depth = intValue(name, option, value, depthMin, depthMax);
                }
            } else if (arg.startsWith("-")) {
                usageError(name, "unknown option '" + arg + "'");
            } else {
                usageError(name, "unexpected argument '" + arg + "'");
            }
        }
        Alt.start(name); // in-process alternation, when SGC_ALTERNATE asks for it (and Alt's class initialized)
        p.bytesAtStart = p.threads.getCurrentThreadAllocatedBytes();
        return p;
    }

    // ---- Checksum: workloads/wl_common.h's wl_checksum (docs/WORKLOADS.md, "The checksum").

    private long h = 0x6a09e667f3bcc908L;

    void mix(long v) {
        h = (Long.rotateLeft(h, 27) ^ v) * 0x9e3779b97f4a7c15L + 0x632be59bd9b4e019L;
    }

    void mixDouble(double d) {
        mix(Double.doubleToRawLongBits(d));
    }

    private long value() {
        long x = h;
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 33;
        return x;
    }

    /** Prints the checksum line; with SGC_STATS, writes the stats record (docs/FORMATS.md). */
    void finish() {
        Alt.finish(name); // the series ends first
        long bytes = threads.getCurrentThreadAllocatedBytes() - bytesAtStart;
        long runNs = System.nanoTime() - startNs;
        long[] c;
        try {
            c = heapSamplerCounts();
        } catch (UnsatisfiedLinkError e) {
            c = null; // no agent: HotSpot takes no heap samples
        }
        System.out.println(String.format("checksum %016x", value()));
        System.out.flush();
        if (System.out.checkError()) {
            System.err.println(name + ": cannot write the checksum to standard output");
            System.exit(1);
        }
        String path = System.getenv("SGC_STATS");
        if (path == null || path.isEmpty()) {
            return;
        }
        StringBuilder b = new StringBuilder();
        b.append("sgc-stats 1\n");
        // In 19 digits by a loop of 19 steps whatever the time: formatting it
        // costs the same in every run (the simulated part's repeated runs).
        char[] digits = new char[19];
        long v = runNs;
        for (int i = 18; i >= 0; i--, v /= 10) {
            digits[i] = (char) ('0' + v % 10);
        }
        b.append("run_ns ").append(digits).append('\n');
        if (Alt.active()) { // the record covers the series' span
            bytes = Alt.lastBytes - Alt.firstBytes;
            b.append("bytes_allocated ").append(bytes).append('\n');
            b.append("objects_allocated ").append(objects).append('\n');
            b.append("alloc_samples ").append(Alt.lastSamples - Alt.firstSamples).append('\n');
            b.append("alloc_samples_startup ").append(Alt.firstSamples).append('\n');
        } else {
            b.append("bytes_allocated ").append(bytes).append('\n');
            b.append("objects_allocated ").append(objects).append('\n');
            b.append("alloc_samples ").append(c == null ? 0 : c[0]).append('\n');
        }
        if (c != null) {
            b.append("alloc_traces ").append(c[1]).append('\n');
            b.append("alloc_traces_failed ").append(c[2]).append('\n');
            b.append("alloc_stacks ").append(c[4]).append('\n');
            b.append("alloc_stack_counts ").append(c[5]).append('\n');
        }
        b.append("alloc_period ").append(Alt.active() ? Alt.period() : c == null ? 0 : c[3]).append('\n');
        b.append("alloc_mode poisson\n");
        b.append("time_samples 0\n");
        b.append("peer_system hotspot\n");
        Path target = Paths.get(path);
        Path tmp = Paths.get(path + ".tmp");
        try {
            Files.write(tmp, b.toString().getBytes(StandardCharsets.US_ASCII));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the message below names the problem
            }
            System.err.println(name + ": cannot write the stats record to " + path + ": " + e);
            System.exit(1);
        }
    }
}
