package console

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestHandler: the console's page, script and styles are served with
// their types and the Content-Security-Policy; any other path under it,
// or another method, falls through to the next handler.
func TestHandler(t *testing.T) {
	app := fiber.New()
	app.Get(Prefix+"*", Handler(Options{TemporalUI: "http://127.0.0.1:8233", Namespace: "default"}))
	app.Use(func(c *fiber.Ctx) error { return c.Status(404).SendString("next") })
	for _, tc := range []struct{ method, path, wantType string }{
		{"GET", "/console", "text/html"},
		{"GET", "/console/", "text/html"},
		{"GET", "/console/app.js", "text/javascript"},
		{"GET", "/console/markdown.js", "text/javascript"},
		{"GET", "/console/app.css", "text/css"},
		{"GET", "/console/config.json", "application/json"},
		{"GET", "/console/nothing.js", ""},
		{"GET", "/console/assets/app.js", ""},
		{"GET", "/console/..%2fconsole.go", ""},
		{"GET", "/console/.hidden", ""},
		{"POST", "/console/", ""},
	} {
		res, err := app.Test(httptest.NewRequest(tc.method, tc.path, nil))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		if tc.wantType == "" {
			if res.StatusCode != 404 || string(body) != "next" {
				t.Errorf("%s %s: %d %q, want the next handler's 404", tc.method, tc.path, res.StatusCode, body)
			}
			continue
		}
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), tc.wantType) {
			t.Errorf("%s %s: %d %s, want 200 %s", tc.method, tc.path, res.StatusCode, res.Header.Get("Content-Type"), tc.wantType)
		}
		if tc.path == "/console/config.json" && string(body) != `{"temporalUI":"http://127.0.0.1:8233","namespace":"default"}` {
			t.Errorf("config.json is %s", body)
		}
		if res.Header.Get("Content-Security-Policy") != Policy || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: headers %v", tc.method, tc.path, res.Header)
		}
	}
}
