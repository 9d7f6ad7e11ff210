// Package console is the service's web console: a page the API process
// serves at /console, its script and its styles, embedded in the binary.
// It stands only on the public HTTP API with the API key a person signs
// in with (docs/console.md), so it shows nothing the key could not read.
package console

import (
	"embed"
	"encoding/json"
	"mime"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"
)

//go:embed assets
var assets embed.FS

// Prefix is where the console is served.
const Prefix = "/console"

// Policy is the console's Content-Security-Policy: its own script and
// styles only (no inline script, no eval), the API of its own origin,
// no pictures or frames from anywhere, and no framing by other sites.
// A crawled page's markdown shown in the console can run nothing.
const Policy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Options are what the console's script is told of the deployment, as
// /console/config.json.
type Options struct {
	// TemporalUI is the Temporal UI's address ("" for none), Namespace
	// the namespace crawls run in: the console links each crawl to its
	// workflow there.
	TemporalUI string `json:"temporalUI"`
	Namespace  string `json:"namespace"`
}

// Handler serves the console: /console and /console/ are its page,
// /console/<file> its script and styles, and /console/config.json o.
// Anything else under it goes to the next handler (the API's 404).
func Handler(o Options) fiber.Handler {
	config, err := json.Marshal(o)
	if err != nil {
		panic(err) // two strings always marshal
	}
	return func(c *fiber.Ctx) error {
		name := strings.TrimPrefix(c.Path(), Prefix)
		if name == "" || name == "/" {
			name = "/index.html"
		}
		if name == "/config.json" && c.Method() == fiber.MethodGet {
			setHeaders(c)
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
			return c.Send(config)
		}
		if strings.Contains(name[1:], "/") || strings.HasPrefix(name, "/.") || c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
			return c.Next()
		}
		body, err := assets.ReadFile("assets" + name)
		if err != nil {
			return c.Next()
		}
		setHeaders(c)
		c.Set(fiber.HeaderContentType, contentType(name))
		return c.Send(body)
	}
}

// setHeaders sets the console's policy and the headers that keep its
// files what they are.
func setHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentSecurityPolicy, Policy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderCacheControl, "no-cache")
}

// contentType is a file's media type by its extension.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".html":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
