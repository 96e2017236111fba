// alt.go - in-process alternation for the Go peers: the segment driver that
// switches Go's allocation sampler (runtime.MemProfileRate) on and off in
// ABBA segments of the process's CPU time and writes the segment series
// (docs/FORMATS.md, "The segment series"; docs/WORKLOADS.md, "In-process
// alternation in the peers").
//
// Settings: freecheck's protocol (SGC_ALTERNATE off, none or alloc;
// SGC_ALT_SEGMENT a CPU time, 1ms..60000ms, default 5ms, or a count K of
// collection cycles, 1..1000000; SGC_ALT_OUT; SGC_SEED); the period of the
// on segments is FREECHECK_MEMPROFILERATE.
//
// Segments of K collection cycles (SGC_ALT_SEGMENT=K, end gc): a segment
// runs from just after the end of one of Go's collection cycles to just
// after the end of the K-th next one, so every segment holds whole cycles
// (the sweeping of one, the concurrent marking and assists of the next),
// where CPU-time segments (0.7 to 3 MB of allocation each, against a cycle
// every 5 to 11 MB) each see another part of a cycle.  The check point reads
// the cycle count (runtime/metrics /gc/cycles/total:gc-cycles, about 170 ns)
// every altGCPoll objects, so a boundary falls within that many allocations
// of the cycle's end.
//
// The switch.  mallocgc reads MemProfileRate on every allocation: at 0 it
// neither samples nor counts down the per-P byte count to the next sample
// (mcache.nextSample), at P it counts down and samples when the count runs
// out, drawing the next gap only then (runtime/malloc.go).  So setting it is
// exact and immediate: an off segment takes no sample, and an on segment
// resumes the gap the last on segment left, the rest of an exponential gap
// of mean P (memoryless); the gap pending at start, drawn at Go's default
// 512 KiB, is replaced as main starts (common.go, setProfileRate).  A switch
// is one store to a global.
//
// Counting.  runtime.MemProfile publishes samples only when collection
// cycles complete, so it cannot split them by segment.  The driver reads
// instead the runtime's memory profile buckets themselves, the list
// runtime.mbuckets (go:linkname, read only), summing each bucket's sampled
// allocations over its published cycle and its three unpublished ones: the
// samples recorded so far, at any moment.  That layout is Go 1.19's
// (runtime/mprof.go: bucket, memRecord, memRecordCycle), so alternation
// refuses other versions; and at the series' start and end, after
// collections have published everything, the sum must equal MemProfile's
// (else the run fails), so a wrong reading cannot pass as a count.
//
// Invariants: the segments' numbers are differences between a start
// reading (counters first, CPU time last) and an end reading (CPU time
// first); from an end reading to the next switch the rate is 0, so the
// driver's own allocations there (the series grows) are never sampled, and
// the next start reading's sample count is the end reading's; the
// program's bytes and objects are counted by the workload, not by the
// runtime, so the driver's allocations are not in them either.
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The runtime's list of memory profile buckets (runtime/mprof.go: mbuckets,
// an atomic.UnsafePointer, which is one pointer).
//
//go:linkname rtMbuckets runtime.mbuckets
var rtMbuckets unsafe.Pointer

// Go 1.19's runtime/mprof.go bucket header, memRecordCycle and memRecord.
type rtBucket struct {
	next, allnext unsafe.Pointer
	typ           int
	hash          uintptr
	size          uintptr
	nstk          uintptr
}

type rtCycle struct {
	allocs, frees         uintptr
	allocBytes, freeBytes uintptr
}

type rtMemRecord struct {
	active rtCycle
	future [3]rtCycle
}

const rtMemProfile = 1 // runtime's memProfile bucketType

// bucketSamplesOnce sums the sampled allocations recorded in every memory
// profile bucket, published or not.
func bucketSamplesOnce() (uint64, bool) {
	var n uint64
	for b := (*rtBucket)(atomic.LoadPointer(&rtMbuckets)); b != nil; b = (*rtBucket)(b.allnext) {
		if b.typ != rtMemProfile {
			return 0, false
		}
		mr := (*rtMemRecord)(unsafe.Add(unsafe.Pointer(b), unsafe.Sizeof(*b)+b.nstk*unsafe.Sizeof(uintptr(0))))
		n += uint64(mr.active.allocs + mr.future[0].allocs + mr.future[1].allocs + mr.future[2].allocs)
	}
	return n, true
}

// bucketSamples reads the sum until two readings in a row agree: a cycle
// published while the goroutine was preempted in the middle of a reading
// moves counts between the fields read.
func bucketSamples() uint64 {
	prev, ok := bucketSamplesOnce()
	for ok {
		n, ok2 := bucketSamplesOnce()
		if !ok2 {
			break
		}
		if n == prev {
			return n
		}
		prev = n
	}
	fmt.Fprintf(os.Stderr, "%s: a memory profile bucket is not of the memory profile: this runtime's layout is not Go 1.19's\n",
		progName())
	os.Exit(1)
	return 0
}

// The process's CPU time: the collector's and sweeper's goroutines run on
// other threads than the workload's, so the thread's time would miss work
// that sampling causes (sampled objects are swept specially).
var cpuTs syscall.Timespec

func cpuNow() uint64 {
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 2 /* CLOCK_PROCESS_CPUTIME_ID */, uintptr(unsafe.Pointer(&cpuTs)), 0)
	return uint64(cpuTs.Sec)*1e9 + uint64(cpuTs.Nsec)
}

const (
	altOff = iota
	altNone
	altAlloc
)

const altDefaultSeed = 1592652782 // the runtime's SGC_SEED default (docs/RUNTIME.md)
const altFirstCheck = 16
const altGCPoll = 256 // objects between readings of the cycle count (SGC_ALT_SEGMENT=K)

type altSeg struct {
	index, block, pos      int
	kind                   byte
	on                     int
	end                    string
	cpu, wall, bytes, iter uint64
	samples, gcs, switchNs uint64
}

type altSnap struct {
	cpu, wall, bytes, iter, samples, gcs uint64
}

var (
	altCountdown int64 = math.MaxInt64 // the check point's countdown (altTick)
	alt          struct {
		mode        int
		phase       int
		closed      bool
		seed        uint64
		targetNs    uint64
		fills       uint64 // K: segments of K collection cycles (0: of targetNs CPU time)
		out         string
		rate        int // the on segments' MemProfileRate
		cur         altSeg
		start       altSnap
		lastEnd     uint64
		lastSamples uint64 // the sample count at the last reading (rate 0 since)
		iterations  uint64
		armed       int64
		wallBase    time.Time
		gcSample    []metrics.Sample
		segs        []altSeg
	}
)

// altTick is the check point: the workloads call it once per allocated object.
func altTick() {
	altCountdown--
	if altCountdown <= 0 {
		altSlow()
	}
}

func altBad(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", progName(), fmt.Sprintf(format, args...))
	os.Exit(2)
}

// altPhase is docs/FORMATS.md's phase of a seed (the runtime's phase_for_seed).
func altPhase(seed uint64) int {
	z := seed ^ 0xa17e4a7e5e6a5eed
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z >> 63)
}

func altKindAt(pos int) byte {
	outer := pos == 0 || pos == 3
	if outer == (alt.phase == 0) {
		return 'A'
	}
	return 'B'
}

func altCount() {
	alt.iterations += uint64(alt.armed - altCountdown)
	alt.armed = altCountdown
}

func altArm(n int64) {
	altCount()
	altCountdown = n
	alt.armed = n
}

func altGCs() uint64 {
	metrics.Read(alt.gcSample)
	if alt.gcSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return alt.gcSample[0].Value.Uint64()
}

func altWall() uint64 { return uint64(time.Since(alt.wallBase).Nanoseconds()) }

// altBegin switches to the running segment's state, then takes its start
// reading (counters first, CPU time last).
func altBegin() {
	k := altKindAt(alt.cur.pos)
	alt.cur.kind = k
	alt.cur.on = 0
	if alt.mode == altAlloc && k == 'B' {
		alt.cur.on = 1
	}
	gcs := altGCs()
	if alt.mode == altAlloc {
		if k == 'B' {
			runtime.MemProfileRate = alt.rate
		} else {
			runtime.MemProfileRate = 0
		}
	} else {
		runtime.MemProfileRate = profileRate
	}
	altCount()
	// The rate has been 0 since the last end reading (or since altStart's
	// count), so the sample count is still the one read there: one pass
	// over the buckets per boundary.
	alt.start = altSnap{samples: alt.lastSamples, bytes: bytesAllocated, iter: alt.iterations, gcs: gcs}
	alt.start.wall = altWall()
	alt.start.cpu = cpuNow()
	altArm(altFirstCheck)
}

// altEnd records the running segment as ended now (CPU time first); the rate
// is 0 from its counters' reading to the next segment's switch.
func altEnd(end string, cpu uint64) {
	wall := altWall()
	altCount()
	e := altSnap{cpu: cpu, wall: wall, bytes: bytesAllocated, iter: alt.iterations, samples: bucketSamples()}
	runtime.MemProfileRate = 0
	alt.lastSamples = e.samples
	e.gcs = altGCs()
	s := alt.cur
	s.end = end
	s.cpu = e.cpu - alt.start.cpu
	s.wall = e.wall - alt.start.wall
	s.bytes = e.bytes - alt.start.bytes
	s.iter = e.iter - alt.start.iter
	s.samples = e.samples - alt.start.samples
	s.gcs = e.gcs - alt.start.gcs
	if s.index > 0 {
		s.switchNs = alt.start.cpu - alt.lastEnd
	}
	alt.lastEnd = e.cpu
	alt.segs = append(alt.segs, s)
}

//go:noinline
func altSlow() {
	if alt.mode == altOff || alt.closed {
		altArm(math.MaxInt64)
		return
	}
	altCount()
	if alt.fills > 0 {
		// Segments of K cycles: end just after the K-th cycle ends.
		if altGCs()-alt.start.gcs >= alt.fills {
			altEnd("gc", cpuNow())
			altNext()
			return
		}
		altArm(altGCPoll)
		return
	}
	now := cpuNow()
	elapsed := now - alt.start.cpu
	if elapsed >= alt.targetNs {
		altEnd("iter", now)
		altNext()
		return
	}
	// Look again when about half of the remaining time should have passed
	// at the rate so far (as the runtime's driver does).
	done := alt.iterations - alt.start.iter
	next := float64(altFirstCheck)
	if elapsed > 0 {
		next = float64(alt.targetNs-elapsed) * float64(done) / float64(elapsed) / 2
	}
	if next < 1 {
		next = 1
	}
	if next > 1e15 {
		next = 1e15
	}
	altArm(int64(next))
}

// altNext begins the segment after the one just ended.
func altNext() {
	alt.cur.index++
	alt.cur.pos = (alt.cur.pos + 1) % 4
	if alt.cur.pos == 0 {
		alt.cur.block++
	}
	altBegin()
}

// altStart reads the settings (bad ones exit 2) and, when SGC_ALTERNATE is
// none or alloc, begins the lead-in.  Returns the memory profile's published
// count at the series' start (after collections), or -1 when off.
func altStart() int64 {
	v, ok := os.LookupEnv("SGC_ALTERNATE")
	for i, name := range []string{"SGC_ALT_SEGMENT", "SGC_ALT_OUT", "SGC_ALT_CARRY", "SGC_ALT_COST"} {
		w := os.Getenv(name)
		if w == "" || w == "0" { // an empty path and a cost of 0 ask for nothing
			continue
		}
		if i >= 2 {
			altBad("%s=%s: freecheck's debug cost; this program does not inject it (unset %s)", name, w, name)
		}
		if !ok || v == "off" {
			altBad("%s=%s: has no effect without in-process alternation (SGC_ALTERNATE is off or unset); "+
				"set SGC_ALTERNATE or unset %s", name, w, name)
		}
	}
	if !ok || v == "off" {
		return -1
	}
	switch v {
	case "none":
		alt.mode = altNone
	case "alloc":
		alt.mode = altAlloc
	case "time", "both":
		altBad("SGC_ALTERNATE=%s: this program has no time sampler; it alternates off, none or alloc", v)
	default:
		altBad("SGC_ALTERNATE=%s: expected off, none or alloc", v)
	}
	if !strings.HasPrefix(runtime.Version(), "go1.19") {
		altBad("SGC_ALTERNATE=%s: counting samples per segment reads Go 1.19's memory profile buckets; this is %s",
			v, runtime.Version())
	}
	alt.targetNs = 5000000
	if s, ok := os.LookupEnv("SGC_ALT_SEGMENT"); ok {
		ms, err := strconv.ParseUint(strings.TrimSuffix(s, "ms"), 10, 64)
		bad := err != nil || strings.HasPrefix(s, "+") || strings.HasPrefix(s, "0")
		if !strings.HasSuffix(s, "ms") {
			// K collection cycles.
			if bad || ms < 1 || ms > 1000000 {
				altBad("SGC_ALT_SEGMENT=%s: expected a CPU time from 1ms to 60000ms, or a number of collection "+
					"cycles from 1 to 1000000", s)
			}
			alt.fills, alt.targetNs = ms, 0
		} else {
			if bad || ms < 1 || ms > 60000 {
				altBad("SGC_ALT_SEGMENT=%s: expected a CPU time from 1ms to 60000ms, or a number of collection "+
					"cycles from 1 to 1000000", s)
			}
			alt.targetNs = ms * 1000000
		}
	}
	alt.seed = altDefaultSeed
	if s, ok := os.LookupEnv("SGC_SEED"); ok {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || strings.HasPrefix(s, "+") {
			altBad("SGC_SEED=%s: expected an unsigned decimal integer below 2^64", s)
		}
		alt.seed = n
	}
	alt.out = os.Getenv("SGC_ALT_OUT")
	if alt.mode == altAlloc && profileRate <= 0 {
		altBad("SGC_ALTERNATE=alloc: alternating Go's sampler needs its period: FREECHECK_MEMPROFILERATE=BYTES")
	}
	alt.rate = profileRate
	alt.phase = altPhase(alt.seed)
	alt.gcSample = []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	alt.segs = make([]altSeg, 0, 1024)
	alt.armed = math.MaxInt64
	alt.wallBase = time.Now()

	runtime.MemProfileRate = 0 // until the lead-in's switch: nothing before the series is sampled after this count
	published := countSamples()
	if b := bucketSamples(); b != uint64(published) {
		fmt.Fprintf(os.Stderr, "%s: the memory profile's buckets count %d samples, runtime.MemProfile %d: "+
			"this runtime's layout is not the one the driver reads\n", progName(), b, published)
		os.Exit(1)
	}
	alt.lastSamples = uint64(published)
	alt.cur = altSeg{pos: 3} // the lead-in stands where the previous block's last segment would
	altBegin()
	return published
}

// altFinish ends the last segment (end exit), stops sampling, checks the
// bucket count against the published one and writes the series.  Returns
// the published count at the end (-1 when off).
func altFinish() int64 {
	if alt.mode == altOff {
		return -1
	}
	if !alt.closed {
		altEnd("exit", cpuNow())
		alt.closed = true
		altCountdown = math.MaxInt64
		alt.armed = math.MaxInt64
	}
	runtime.MemProfileRate = 0 // nothing after the series is sampled
	published := countSamples()
	if b := bucketSamples(); b != uint64(published) {
		fmt.Fprintf(os.Stderr, "%s: at exit the memory profile's buckets count %d samples, runtime.MemProfile %d\n",
			progName(), b, published)
		os.Exit(1)
	}
	if alt.out != "" {
		if err := altWrite(alt.out); err != nil {
			fmt.Fprintf(os.Stderr, "%s: cannot write the segment series to %s (SGC_ALT_OUT): %v\n", progName(), alt.out, err)
			os.Exit(1)
		}
	}
	return published
}

func altWrite(path string) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	mode, pattern, period := "none", "ABBA", profileRate
	if alt.mode == altAlloc {
		mode = "alloc"
	}
	if alt.phase == 1 {
		pattern = "BAAB"
	}
	fmt.Fprintf(w, "sgc-segments 1\nalternate %s\npattern %s\nsegment_fills %d\nsegment_cpu_ns %d\n", mode, pattern,
		alt.fills, alt.targetNs)
	fmt.Fprintf(w, "alloc_period %d\nalloc_mode poisson\ntime_hz 0\ntime_clock none\nseed %d\n", period, alt.seed)
	fmt.Fprintf(w, "nursery_size 0\ncarry_ns 0\ncost_ns 0\nsystem go\ncpu_clock process\n")
	fmt.Fprintf(w, "unmeasured alloc_points gc_ns major_cpu_ns\n")
	fmt.Fprintf(w, "columns index block pos kind on end cpu_ns wall_ns bytes iterations alloc_samples alloc_points "+
		"sampled_bytes time_samples minor major gc_ns major_cpu_ns switch_ns\n")
	for _, s := range alt.segs {
		sampled := uint64(0)
		if (alt.mode == altAlloc && s.on == 1) || (alt.mode == altNone && profileRate > 0) {
			sampled = s.bytes
		}
		fmt.Fprintf(w, "seg %d %d %d %c %d %s %d %d %d %d %d 0 %d 0 0 %d 0 0 %d\n", s.index, s.block, s.pos, s.kind,
			s.on, s.end, s.cpu, s.wall, s.bytes, s.iter, s.samples, sampled, s.gcs, s.switchNs)
	}
	fmt.Fprintf(w, "segments %d\n", len(alt.segs))
	err = w.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
