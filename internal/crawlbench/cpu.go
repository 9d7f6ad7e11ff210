package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuParts names the parts of the machine whose CPU time a service crawl
// is split into, in the order they are printed.
var cpuParts = []string{"worker", "API", "Temporal", "Postgres", "site and bench", "rest"}

// cpuSplit is the CPU time, in seconds, of each of cpuParts.
type cpuSplit map[string]float64

// split reads the CPU time each part of the service has used so far; the
// rest is what the machine used beside them (the kernel's own threads,
// other processes).
func (s *service) split() cpuSplit {
	out := cpuSplit{
		"worker":   procCPU(s.worker.cmd.Process.Pid),
		"API":      procCPU(s.api.cmd.Process.Pid),
		"Temporal": procCPU(s.temporal.cmd.Process.Pid),
		"Postgres": postgresCPU(),
		// The generated site is served by this process, which also polls
		// the API; Crawlee's node, a child, counts here once it exits.
		"site and bench": procCPU(os.Getpid()),
	}
	sum := 0.0
	for _, v := range out {
		sum += v
	}
	out["rest"] = machineCPU() - sum
	return out
}

// minus is the CPU time used between before and s.
func (s cpuSplit) minus(before cpuSplit) cpuSplit {
	out := cpuSplit{}
	for k, v := range s {
		out[k] = v - before[k]
	}
	return out
}

// procCPU is the CPU time of a process and of its children it has waited
// for, in seconds, from /proc/PID/stat; 0 where it cannot be read.
func procCPU(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted from the closing one (utime is the 14th field of the line).
	i := strings.LastIndexByte(string(raw), ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(raw[i+1:]))
	if len(fields) < 15 {
		return 0
	}
	ticks := 0.0
	for _, f := range fields[11:15] { // utime, stime, cutime, cstime
		n, _ := strconv.ParseFloat(f, 64)
		ticks += n
	}
	return ticks / clockTicks
}

// postgresCPU is the CPU time of every process named postgres: the server
// and its backends (those that ended count in the server's children).
func postgresCPU() float64 {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	sum := 0.0
	for _, dir := range dirs {
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(dir))
		sum += procCPU(pid)
	}
	return sum
}
