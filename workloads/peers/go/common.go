// common.go - what the Go peers share: arguments, checksum, the sampling
// setting, and the stats record with the runtime's own sample count.
//
// Built with one workload file (binarytrees.go or gcbench.go) into one
// program, standard library only (workloads/peers/module.mk).
//
// Sampling: runtime.MemProfileRate is the mean number of bytes between two
// sampled allocations (random exponential gaps, so alloc_mode is poisson).
// It is set from FREECHECK_MEMPROFILERATE as main starts, before any work; unset or empty means the baseline, 0 (no sampling; the Go default of
// 512 KiB would otherwise be on).  The runtime draws the gap to the next
// sample only when it takes one, so the gap pending at start still has the
// default mean; the program therefore takes one sample at rate 1 and one at
// the new rate, which draws a fresh gap with the new mean.  Those and any
// start-up allocations the runtime sampled at its default rate are counted
// at start (after a collection publishes them) and subtracted.
//
// Counting: every sampled allocation adds 1 to the AllocObjects of its
// stack's record in the runtime's memory profile (runtime.MemProfile), which
// publishes samples once a collection cycle completes.  At exit the program
// runs runtime.GC() (twice) and sums AllocObjects over all records: alloc_samples is
// that sum minus the start-up sum, the runtime's own count of the samples
// taken while the setting was in force.  With FREECHECK_GO_HEAPPROFILE=FILE
// the program also writes runtime/pprof's heap profile in its text form
// (debug=1) to FILE right after counting: its header's allocated-objects
// total is the same records' sum, written by the standard library.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// spec says what a peer accepts.
type spec struct {
	name         string
	summary      string
	defaultSize  int64
	maxSize      int64
	defaultDepth int64
	depthMin     int64
	depthMax     int64 // 0: no --depth
}

type run struct {
	size  int64
	depth int64
}

var (
	startTime      time.Time // when start() began
	profileRate    int       // runtime.MemProfileRate in force
	startupSamples int64     // samples taken before the setting was in force

	bytesAllocated   uint64 // sum of the sizes of the objects the workload allocated
	objectsAllocated uint64 // their number
)

// setProfileRate sets runtime.MemProfileRate from FREECHECK_MEMPROFILERATE
// (bytes, a whole decimal number >= 0; unset: 0).  Bad values exit 2.
func setProfileRate() int {
	rate := 0
	if v, ok := os.LookupEnv("FREECHECK_MEMPROFILERATE"); ok && v != "" {
		n, err := strconv.ParseUint(v, 10, 31)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: FREECHECK_MEMPROFILERATE '%s' is not a whole number of bytes in 0..2147483647\n",
				progName(), v)
			os.Exit(2)
		}
		rate = int(n)
	}
	if rate > 1 {
		runtime.MemProfileRate = 1 // every allocation is sampled, and the next gap is 0 ...
		sink = new([4]*int)
		runtime.MemProfileRate = rate // ... so this one is sampled too, drawing a gap with mean rate
		sink = new([4]*int)
		sink = nil
	}
	runtime.MemProfileRate = rate
	return rate
}

// sink keeps the allocations of setProfileRate on the heap.
var sink *[4]*int

func progName() string {
	name := os.Args[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// countSamples completes collection cycles (each publishes the samples
// taken before it; the second covers any the first missed) and returns the
// sum of AllocObjects over the memory profile's records.
func countSamples() int64 {
	runtime.GC()
	runtime.GC()
	var records []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		records = make([]runtime.MemProfileRecord, n+64)
		var ok bool
		n, ok = runtime.MemProfile(records, true)
		if ok {
			break
		}
	}
	var total int64
	for _, r := range records[:n] {
		total += r.AllocObjects
	}
	return total
}

func usageError(s *spec, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "%s: %s (see %s --help)\n", s.name, fmt.Sprintf(format, args...), s.name)
	os.Exit(2)
}

func intValue(s *spec, name, text string, min, max int64) int64 {
	if text == "" || strings.TrimLeft(text, "0123456789") != "" {
		usageError(s, "%s '%s' is not a whole decimal number in %d..%d", name, text, min, max)
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil || v < min || v > max {
		usageError(s, "%s %s is out of range %d..%d", name, text, min, max)
	}
	return v
}

// start sets the sampling rate, counts the samples taken so far, then
// parses the arguments.  The first thing main does.
func start(s *spec) run {
	startTime = time.Now()
	profileRate = setProfileRate()
	startupSamples = countSamples()
	r := run{size: s.defaultSize, depth: s.defaultDepth}
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := arg, "", false
		if j := strings.IndexByte(arg, '='); j >= 0 {
			name, value, hasValue = arg[:j], arg[j+1:], true
		}
		switch {
		case arg == "--help" || arg == "-h":
			depth := ""
			if s.depthMax > 0 {
				depth = " [--depth D]"
			}
			fmt.Printf("usage: %s [--size N]%s\n%s\n\n", s.name, depth, s.summary)
			fmt.Printf("  --size N     the amount of work, as freecheck's %s --size; 1..%d, default %d\n",
				s.name, s.maxSize, s.defaultSize)
			if s.depthMax > 0 {
				fmt.Printf("  --depth D    maximum tree depth; %d..%d, default %d\n", s.depthMin, s.depthMax, s.defaultDepth)
			}
			fmt.Printf("  --help       this text\n\n" +
				"Prints one line \"checksum <16 hex digits>\", the same as freecheck's workload.\n" +
				"With SGC_STATS=FILE, writes a stats record (docs/FORMATS.md) to FILE at exit.\n" +
				"FREECHECK_MEMPROFILERATE=BYTES sets runtime.MemProfileRate (unset: 0, no sampling).\n" +
				"SGC_ALTERNATE=none|alloc with SGC_ALT_OUT=FILE switches it on and off in segments of CPU\n" +
				"time and writes the segment series (docs/FORMATS.md).\n" +
				"Exit status: 0 ok, 1 failure, 2 bad arguments or settings.\n")
			os.Exit(0)
		case name == "--size" || (name == "--depth" && s.depthMax > 0):
			if !hasValue {
				if i+1 >= len(args) {
					usageError(s, "option %s needs a value", name)
				}
				i++
				value = args[i]
			}
			if name == "--size" {
				r.size = intValue(s, name, value, 1, s.maxSize)
			} else {
				r.depth = intValue(s, name, value, s.depthMin, s.depthMax)
			}
		case strings.HasPrefix(arg, "-"):
			usageError(s, "unknown option '%s'", arg)
		default:
			usageError(s, "unexpected argument '%s'", arg)
		}
	}
	if published := altStart(); published >= 0 {
		startupSamples = published // the record covers the series' span (alt.go)
	}
	return r
}

// checksum is workloads/wl_common.h's wl_checksum (docs/WORKLOADS.md, "The checksum").
type checksum struct{ h uint64 }

func newChecksum() checksum { return checksum{0x6a09e667f3bcc908} }

func (c *checksum) mix(v uint64) {
	h := c.h<<27 | c.h>>37
	c.h = (h^v)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
}

func (c *checksum) value() uint64 {
	h := c.h
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// finish prints the checksum line and, when SGC_STATS names a file, writes
// the stats record there (docs/FORMATS.md) with the runtime's sample count.
func finish(s *spec, sum *checksum) {
	altTotal := altFinish() // the series ends first: nothing after it is sampled
	if _, err := fmt.Printf("checksum %016x\n", sum.value()); err != nil {
		fmt.Fprintf(os.Stderr, "%s: cannot write the checksum to standard output\n", s.name)
		os.Exit(1)
	}
	path := os.Getenv("SGC_STATS")
	if path == "" {
		return
	}
	runNs := time.Since(startTime).Nanoseconds()
	total := altTotal
	if total < 0 {
		total = countSamples()
	}
	samples := total - startupSamples
	if heap := os.Getenv("FREECHECK_GO_HEAPPROFILE"); heap != "" {
		f, err := os.Create(heap)
		if err == nil {
			err = pprof.Lookup("heap").WriteTo(f, 1)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: cannot write the heap profile to %s: %v\n", s.name, heap, err)
			os.Exit(1)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sgc-stats 1\n")
	// In 19 digits by a loop of 19 steps whatever the time: formatting it
	// costs the same in every run (the simulated part's repeated runs).
	var digits [19]byte
	for i, v := 18, uint64(runNs); i >= 0; i, v = i-1, v/10 {
		digits[i] = byte('0' + v%10)
	}
	fmt.Fprintf(&b, "run_ns %s\n", digits[:])
	fmt.Fprintf(&b, "bytes_allocated %d\n", bytesAllocated)
	fmt.Fprintf(&b, "objects_allocated %d\n", objectsAllocated)
	fmt.Fprintf(&b, "alloc_samples %d\n", samples)
	fmt.Fprintf(&b, "alloc_samples_startup %d\n", startupSamples)
	fmt.Fprintf(&b, "alloc_period %d\n", profileRate)
	fmt.Fprintf(&b, "alloc_mode poisson\n")
	fmt.Fprintf(&b, "time_samples 0\n")
	fmt.Fprintf(&b, "peer_system go\n")
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, []byte(b.String()), 0o644)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		fmt.Fprintf(os.Stderr, "%s: cannot write the stats record to %s: %v\n", s.name, path, err)
		os.Exit(1)
	}
}
