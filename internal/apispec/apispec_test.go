package apispec

import (
	"errors"
	"strings"
	"testing"
)

// testDoc is a small document with a template path, a literal one beside
// it, a shared response and a class of statuses.
const testDoc = `{
  "openapi": "3.1.0",
  "info": {"title": "t", "version": "1"},
  "paths": {
    "/things/{id}": {"get": {"parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
      "responses": {
        "200": {"description": "a thing", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
        "4XX": {"$ref": "#/components/responses/Problem"}}}},
    "/things/special": {"get": {"responses": {"200": {"description": "text", "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
    "/things": {"post": {"requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}},
      "responses": {"204": {"description": "no body"}}}}
  },
  "components": {
    "responses": {"Problem": {"description": "p", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}},
    "schemas": {
      "Thing": {"type": "object", "additionalProperties": false, "required": ["id", "at"],
        "properties": {"id": {"type": "string", "format": "uuid"}, "at": {"type": ["string", "null"], "format": "date-time"}}},
      "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}
    }
  }
}`

func TestFind(t *testing.T) {
	s, err := New([]byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, path, want string
		ok                 bool
	}{
		{"GET", "/things/abc", "/things/{id}", true},
		{"get", "/things/abc?x=1", "/things/{id}", true},
		{"GET", "/things/{id}", "/things/{id}", true},
		{"GET", "/things/special", "/things/special", true}, // the literal wins over the template
		{"GET", "/things/", "", false},                      // a template does not match an empty segment
		{"GET", "/things/a/b", "", false},
		{"DELETE", "/things/abc", "", false},
		{"POST", "/things", "/things", true},
	}
	for _, tc := range cases {
		op, ok := s.Find(tc.method, tc.path)
		if ok != tc.ok || op.Path != tc.want {
			t.Errorf("Find(%s, %s) = %q, %v; want %q, %v", tc.method, tc.path, op.Path, ok, tc.want, tc.ok)
		}
	}
	if got := s.Operations(); len(got) != 3 || got[0] != (Operation{"GET", "/things/special"}) {
		t.Errorf("Operations() = %v", got)
	}
}

func TestValidate(t *testing.T) {
	s, err := New([]byte(testDoc))
	if err != nil {
		t.Fatal(err)
	}
	const id = "6f1c2a4e-1d0b-4c3a-9e55-0a1b2c3d4e5f"
	cases := []struct {
		name, method, path string
		status             int
		ctype, body        string
		wantErr            string // "" for valid
		undocumented       bool
	}{
		{"valid", "GET", "/things/" + id, 200, "application/json; charset=utf-8", `{"id":"` + id + `","at":null}`, "", false},
		{"valid date-time", "GET", "/things/x", 200, "application/json", `{"id":"` + id + `","at":"2024-05-01T10:00:00Z"}`, "", false},
		{"missing required", "GET", "/things/x", 200, "application/json", `{"id":"` + id + `"}`, "at", false},
		{"extra property", "GET", "/things/x", 200, "application/json", `{"id":"` + id + `","at":null,"more":1}`, "more", false},
		{"bad format", "GET", "/things/x", 200, "application/json", `{"id":"nope","at":null}`, "uuid", false},
		{"wrong type", "GET", "/things/x", 200, "application/json", `{"id":"` + id + `","at":5}`, "at", false},
		{"not JSON", "GET", "/things/x", 200, "application/json", `{"id":`, "not JSON", false},
		{"status by class", "GET", "/things/x", 404, "application/json", `{"error":"gone"}`, "", false},
		{"class response checked", "GET", "/things/x", 400, "application/json", `{"oops":1}`, "error", false},
		{"undocumented status", "GET", "/things/x", 500, "application/json", `{"error":"x"}`, "status 500", true},
		{"undocumented content type", "GET", "/things/x", 200, "text/html", `<p>`, "text/html", true},
		{"text body", "GET", "/things/special", 200, "text/plain; charset=utf-8", `anything`, "", false},
		{"no body documented", "POST", "/things", 204, "", ``, "", false},
		{"body where none is documented", "POST", "/things", 204, "application/json", `{}`, "without a body", false},
		{"unknown route, error body", "GET", "/elsewhere", 404, "application/json", `{"error":"no route"}`, "", false},
		{"unknown route, other body", "GET", "/elsewhere", 404, "application/json", `{}`, "error", false},
		{"unknown route, other status", "GET", "/elsewhere", 200, "application/json", `{}`, "no operation", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Validate(tc.method, tc.path, tc.status, tc.ctype, []byte(tc.body))
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("want an error about %q, got %v", tc.wantErr, err)
			}
			if err != nil && errors.Is(err, ErrUndocumented) != tc.undocumented {
				t.Errorf("errors.Is(ErrUndocumented) = %v, want %v: %v", !tc.undocumented, tc.undocumented, err)
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	cases := map[string]string{
		"not JSON":               `{`,
		"OpenAPI 3.0":            strings.Replace(testDoc, `"3.1.0"`, `"3.0.3"`, 1),
		"a bad schema":           strings.Replace(testDoc, `"type": "object", "additionalProperties"`, `"type": 7, "additionalProperties"`, 1),
		"a dangling ref":         strings.Replace(testDoc, `#/components/schemas/Error"}}}}}`, `#/components/schemas/Nope"}}}}}`, 1),
		"a shared response gone": strings.Replace(testDoc, `#/components/responses/Problem`, `#/components/responses/Gone`, 1),
	}
	for name, doc := range cases {
		if doc == testDoc {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		if _, err := New([]byte(doc)); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
}
