package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// nodeReport runs node with args (a client script and its arguments),
// with extra environment variables, its standard error to the test's, and
// returns the JSON object the script prints: one entry a step. what names
// the client in failures.
func nodeReport(ctx context.Context, t *testing.T, what string, extraEnv []string, args ...string) map[string]json.RawMessage {
	t.Helper()
	cmd := exec.CommandContext(ctx, "node", args...)
	if len(extraEnv) > 0 {
		cmd.Env = append(os.Environ(), extraEnv...)
	}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s's run failed: %v\n%s", what, err, out)
	}
	var report map[string]json.RawMessage
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("%s's run printed %q: %v", what, out, err)
	}
	return report
}
