package batch

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBatchKnowsNothingOfTemporal: the engine runs without Temporal (its
// activities adapt it), and without the activities or the workflows.
func TestBatchKnowsNothingOfTemporal(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"go.temporal.io/", "github.com/durablecrawl/crawler/workflows", "github.com/durablecrawl/crawler/activities"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("package batch depends on %s", dep)
			}
		}
	}
}
