package api

import (
	"context"
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
		APIBase: func(r *http.Request) string {
			if s.SelfURL != "" {
				return s.SelfURL
			}
			return "http://" + r.Host
		},
	})
	return adaptor.HTTPHandler(h)
}
