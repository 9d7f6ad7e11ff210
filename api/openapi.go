package api

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

// openAPIDocument is the OpenAPI 3.1 description of this API (openapi.json
// beside this file). Tests in this package hold every route registered in
// New to an operation of it, and the answers of the handler and
// integration tests to its response schemas.
//
//go:embed openapi.json
var openAPIDocument string

// OpenAPI returns the OpenAPI 3.1 document of the API, as served at
// GET /openapi.json. Each call returns a fresh copy.
func OpenAPI() []byte { return []byte(openAPIDocument) }

// serveOpenAPI handles GET /openapi.json; it needs no API key.
func serveOpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.SendString(openAPIDocument)
}
