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

// KillDescendants kills (SIGKILL) the processes this process started, at
// any depth, whose command line holds name, as a crash would, and returns
// how many it killed.
func KillDescendants(name string) int {
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
	me, killed := os.Getpid(), 0
	for pid, c := range cmd {
		if !strings.Contains(c, name) {
			continue
		}
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == me {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					killed++
				}
				break
			}
		}
	}
	return killed
}
