package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestLogFormat: CRAWLER_LOG_FORMAT=json gives one JSON object a line,
// text gives key=value lines, and the level filters both.
func TestLogFormat(t *testing.T) {
	var buf bytes.Buffer
	l := newLogger(&buf, "info", "json")
	l.Debug("hidden")
	l.Info("worker started", "taskQueue", "crawler")
	var entry map[string]any
	if err := json.Unmarshal(buf.Bytes(), &entry); err != nil {
		t.Fatalf("json log %q: %v", buf.String(), err)
	}
	if entry["msg"] != "worker started" || entry["taskQueue"] != "crawler" || entry["level"] != "INFO" {
		t.Errorf("json entry %v", entry)
	}

	buf.Reset()
	newLogger(&buf, "warn", "text").Info("hidden")
	newLogger(&buf, "warn", "text").Warn("slow", "n", 3)
	if got := buf.String(); !strings.Contains(got, `level=WARN msg=slow n=3`) || strings.Contains(got, "hidden") {
		t.Errorf("text log %q", got)
	}
}

// TestUnknownLogFormat: an unknown format stops the command with an error
// naming the variable, before it connects to anything.
func TestUnknownLogFormat(t *testing.T) {
	t.Setenv("CRAWLER_LOG_FORMAT", "xml")
	err := run([]string{"worker"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "CRAWLER_LOG_FORMAT") {
		t.Errorf("err = %v, want an error naming CRAWLER_LOG_FORMAT", err)
	}
}
