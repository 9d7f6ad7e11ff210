package api

import (
	"net/http/httptest"
	"testing"
)

// TestMCPBase: the MCP tools reach the API at its own address, or, without
// one, where the request reached it on loopback, never at a host the
// request's Host header names.
func TestMCPBase(t *testing.T) {
	for _, c := range []struct {
		self, host, want string
	}{
		{"http://127.0.0.1:8080", "evil.example", "http://127.0.0.1:8080"},
		{"", "127.0.0.1:9000", "http://127.0.0.1:9000"},
		{"", "localhost:9000", "http://localhost:9000"},
		{"", "[::1]:9000", "http://[::1]:9000"},
		{"", "evil.example:80", ""},
		{"", "10.0.0.5:8080", ""},
		{"", "evil.example", ""},
	} {
		s := &server{Options: Options{SelfURL: c.self}}
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Host = c.host
		if got := s.mcpBase(r); got != c.want {
			t.Errorf("SelfURL %q, Host %q: %q, want %q", c.self, c.host, got, c.want)
		}
	}
}
