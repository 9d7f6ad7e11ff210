package api

import (
	"context"
	"net"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"github.com/durablecrawl/crawler/mcpserver"
)

// mcpRoute serves the service's own MCP endpoint (package mcpserver) at
// /mcp: its tools call this API with the caller's key.
func (s *server) mcpRoute() fiber.Handler {
	h := mcpserver.Handler(mcpserver.Options{
		Verify: func(ctx context.Context, key string) error {
			ctx, cancel := context.WithTimeout(ctx, s.RequestTimeout)
			defer cancel()
			_, err := s.Store.Authenticate(ctx, key)
			return err
		},
		APIBase: s.mcpBase,
	})
	return adaptor.HTTPHandler(h)
}

// mcpBase is the address the MCP tools reach the API at: its own
// (SelfURL), or without one where the request reached it, on loopback
// only: a Host header must not send the tools' requests, and the caller's
// key, elsewhere. "" is none.
func (s *server) mcpBase(r *http.Request) string {
	if s.SelfURL != "" {
		return s.SelfURL
	}
	if host, _, err := net.SplitHostPort(r.Host); err == nil {
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return "http://" + r.Host
		}
	}
	return ""
}
