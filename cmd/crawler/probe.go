package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// probeTimeout bounds a probe: a health check that hangs is a failed one.
const probeTimeout = 5 * time.Second

// probe is `crawler probe URL`: a health check for images without curl. It
// succeeds when URL answers 2xx within probeTimeout, and otherwise says
// why on stderr.
func probe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 {
		return usageError{"usage: crawler probe URL"}
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args[0], nil)
	if err != nil {
		return usageError{fmt.Sprintf("probe: %v", err)}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("probe %s: %w", args[0], err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("probe %s: %s: %s", args[0], resp.Status, body)
	}
	fmt.Fprintf(stdout, "%s: %s\n", args[0], resp.Status)
	return nil
}
