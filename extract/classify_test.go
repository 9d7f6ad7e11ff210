package extract

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"google.golang.org/api/googleapi"
)

// TestClassifyClientErrors covers clients whose HTTP answers the recorder
// does not see: their errors say the status, or a code.
func TestClassifyClientErrors(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		retryable bool
		status    int
	}{
		{"google rate limit", fmt.Errorf("generate: %w", &googleapi.Error{Code: 429}), true, 429},
		{"google unavailable", &googleapi.Error{Code: 503}, true, 503},
		{"google bad key", &googleapi.Error{Code: 403}, false, 403},
		{"langchaingo authentication code", llms.NewError(llms.ErrCodeAuthentication, "x", "bad key"), false, 0},
		{"langchaingo rate limit code", llms.NewError(llms.ErrCodeRateLimit, "x", "slow down"), true, 0},
		{"network error", errors.New("connection refused"), true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := classify(context.Background(), tt.err, 0, 0)
			if e.Retryable != tt.retryable || e.Status != tt.status {
				t.Errorf("retryable %v status %d, want %v %d", e.Retryable, e.Status, tt.retryable, tt.status)
			}
		})
	}
}
