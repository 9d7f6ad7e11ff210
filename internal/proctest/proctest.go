// Package proctest finds and kills the processes a test started: a crash
// on demand.
package proctest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// descendants returns the processes this process started, at any depth,
// whose command line holds name.
func descendants(name string) []int {
	parent := map[int]int{}
	cmd := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		parent[pid], _ = strconv.Atoi(fields[1])
		line, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		cmd[pid] = string(line)
	}
	me := os.Getpid()
	var out []int
	for pid, c := range cmd {
		if !strings.Contains(c, name) {
			continue
		}
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == me {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// KillDescendants kills (SIGKILL) the processes this process started, at
// any depth, whose command line holds name, as a crash would, and returns
// how many it killed.
func KillDescendants(name string) int {
	killed := 0
	for _, pid := range descendants(name) {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	return killed
}

// DescendantsRSS is the resident memory, in bytes, of the processes this
// process started whose command line holds name.
func DescendantsRSS(name string) int64 {
	return descendantsSum(name, "status", "VmRSS:")
}

// DescendantsPSS is the proportional set size, in bytes, of the processes
// this process started whose command line holds name: the memory they
// hold, with pages they share counted once among them (where RSS counts
// a shared page in every process that maps it).
func DescendantsPSS(name string) int64 {
	return descendantsSum(name, "smaps_rollup", "Pss:")
}

// descendantsSum sums, over the processes this process started whose
// command line holds name, the field (in kB) of their /proc/PID/file, in
// bytes.
func descendantsSum(name, file, field string) int64 {
	var total int64
	for _, pid := range descendants(name) {
		raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), file))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if kb, ok := strings.CutPrefix(line, field); ok {
				n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
				total += n << 10
			}
		}
	}
	return total
}
