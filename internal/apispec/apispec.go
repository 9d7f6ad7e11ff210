// Package apispec checks HTTP answers against an OpenAPI 3.1 document: that
// the operation exists, that the status is one it documents, and that the
// body validates against the JSON Schema (draft 2020-12) of that response.
// Tests use it to keep the API and its description (api/openapi.json) in
// step.
package apispec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// docURL is the name under which the document is added to the schema
// compiler; schemas are compiled from JSON pointers into it.
const docURL = "openapi.json"

// ErrUndocumented is wrapped by Validate's error when the document has no
// operation for the method and path, or no response for the status.
var ErrUndocumented = errors.New("not in the OpenAPI document")

// Spec is a parsed OpenAPI 3.1 document with every schema compiled. It is
// safe for concurrent use.
type Spec struct {
	ops     []Operation
	answers map[string]map[string]map[string]*jsonschema.Schema // op key -> status -> media type -> schema (nil: any body)
	schemas map[string]*jsonschema.Schema                       // components/schemas by name
}

// Operation is a method and path template the document describes.
type Operation struct {
	Method string // upper case: GET, POST...
	Path   string // as the document spells it: /crawls/{id}
}

func (o Operation) key() string { return o.Method + " " + o.Path }

// New parses an OpenAPI 3.1 document and compiles every schema it holds:
// the components' schemas, and the schemas of each operation's
// parameters, request body and responses (following references to
// components). Formats (date-time, uuid, uri...) are asserted. Any schema
// that does not compile is an error.
func New(doc []byte) (*Spec, error) {
	var top struct {
		OpenAPI    string                                `json:"openapi"`
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas   map[string]json.RawMessage `json:"schemas"`
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &top); err != nil {
		return nil, fmt.Errorf("parse OpenAPI document: %w", err)
	}
	if !strings.HasPrefix(top.OpenAPI, "3.1.") {
		return nil, fmt.Errorf("OpenAPI document is version %q, want 3.1.x", top.OpenAPI)
	}
	tree, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("parse OpenAPI document: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(docURL, tree); err != nil {
		return nil, fmt.Errorf("add OpenAPI document: %w", err)
	}
	compile := func(ptr ...string) (*jsonschema.Schema, error) {
		loc := docURL + "#" + pointer(ptr...)
		s, err := c.Compile(loc)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", loc, err)
		}
		return s, nil
	}

	s := &Spec{answers: map[string]map[string]map[string]*jsonschema.Schema{}, schemas: map[string]*jsonschema.Schema{}}
	for name := range top.Components.Schemas {
		if s.schemas[name], err = compile("components", "schemas", name); err != nil {
			return nil, err
		}
	}
	for path, item := range top.Paths {
		for method, raw := range item {
			if !isMethod(method) {
				continue // parameters, summary, servers...
			}
			op := Operation{Method: strings.ToUpper(method), Path: path}
			answers, err := compileOperation(raw, top.Components.Responses, []string{"paths", path, method}, compile)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op.key(), err)
			}
			s.ops = append(s.ops, op)
			s.answers[op.key()] = answers
		}
	}
	slices.SortFunc(s.ops, func(a, b Operation) int { return strings.Compare(a.key(), b.key()) })
	return s, nil
}

// compileOperation compiles the schemas of one operation (at JSON pointer
// tokens at) and returns its responses' schemas by status and media type.
func compileOperation(raw json.RawMessage, shared map[string]json.RawMessage, at []string,
	compile func(...string) (*jsonschema.Schema, error)) (map[string]map[string]*jsonschema.Schema, error) {
	type content map[string]struct {
		Schema json.RawMessage `json:"schema"`
	}
	var op struct {
		Parameters []struct {
			Ref    string          `json:"$ref"`
			Schema json.RawMessage `json:"schema"`
		} `json:"parameters"`
		RequestBody *struct {
			Content content `json:"content"`
		} `json:"requestBody"`
		Responses map[string]json.RawMessage `json:"responses"`
	}
	if err := json.Unmarshal(raw, &op); err != nil {
		return nil, err
	}
	for i, p := range op.Parameters {
		if p.Schema != nil {
			if _, err := compile(append(slices.Clone(at), "parameters", strconv.Itoa(i), "schema")...); err != nil {
				return nil, err
			}
		}
	}
	if op.RequestBody != nil {
		for media := range op.RequestBody.Content {
			if _, err := compile(append(slices.Clone(at), "requestBody", "content", media, "schema")...); err != nil {
				return nil, err
			}
		}
	}
	if len(op.Responses) == 0 {
		return nil, fmt.Errorf("no responses")
	}
	out := map[string]map[string]*jsonschema.Schema{}
	for status, r := range op.Responses {
		where := append(slices.Clone(at), "responses", status)
		var resp struct {
			Ref     string  `json:"$ref"`
			Content content `json:"content"`
		}
		if err := json.Unmarshal(r, &resp); err != nil {
			return nil, fmt.Errorf("response %s: %w", status, err)
		}
		if resp.Ref != "" {
			name, ok := strings.CutPrefix(resp.Ref, "#/components/responses/")
			if !ok || shared[name] == nil {
				return nil, fmt.Errorf("response %s: unknown reference %q", status, resp.Ref)
			}
			if err := json.Unmarshal(shared[name], &resp); err != nil {
				return nil, fmt.Errorf("response %s: %w", resp.Ref, err)
			}
			where = []string{"components", "responses", name}
		}
		out[status] = map[string]*jsonschema.Schema{}
		for media, m := range resp.Content {
			var sch *jsonschema.Schema
			if m.Schema != nil {
				var err error
				if sch, err = compile(append(slices.Clone(where), "content", media, "schema")...); err != nil {
					return nil, err
				}
			}
			out[status][media] = sch
		}
	}
	return out, nil
}

// pointer is a JSON pointer to the tokens, escaped for a URL fragment.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
		b.WriteString("/" + url.PathEscape(t))
	}
	return b.String()
}

// Operations lists the operations the document describes, sorted by
// method and path.
func (s *Spec) Operations() []Operation { return slices.Clone(s.ops) }

// Find returns the operation that describes method on path, a concrete
// path (/crawls/6f1c…, a query string is ignored) or a template
// (/crawls/{id}). A template segment matches any one non-empty segment;
// when several operations match, the one with the most literal segments
// wins.
func (s *Spec) Find(method, path string) (Operation, bool) {
	path, _, _ = strings.Cut(path, "?")
	method = strings.ToUpper(method)
	got := strings.Split(path, "/")
	best, bestLiterals := Operation{}, -1
	for _, op := range s.ops {
		if op.Method != method {
			continue
		}
		want := strings.Split(op.Path, "/")
		if len(want) != len(got) {
			continue
		}
		literals := 0
		for i := range want {
			switch {
			case want[i] == got[i]:
				literals++
			case strings.HasPrefix(want[i], "{") && strings.HasSuffix(want[i], "}") && got[i] != "":
			default:
				literals = -1
			}
			if literals < 0 {
				break
			}
		}
		if literals > bestLiterals {
			best, bestLiterals = op, literals
		}
	}
	return best, bestLiterals >= 0
}

// Validate checks an answer: the document must describe the operation
// (method and path, concrete or a template, see Find) and the status
// (exactly, or by its class such as 4XX, or default), the content type
// (parameters such as charset ignored) must be one documented for that
// status, and a JSON body must validate against its schema. A body of any
// other media type is accepted as it is. An answer to a path the document
// does not describe is valid only as a 404 whose body is the document's
// Error schema: the API answers every unknown route that way.
func (s *Spec) Validate(method, path string, status int, contentType string, body []byte) error {
	op, ok := s.Find(method, path)
	if !ok {
		if errSchema := s.schemas["Error"]; status == 404 && errSchema != nil {
			if err := validateJSON(errSchema, body); err != nil {
				return fmt.Errorf("%s %s: 404 for an undocumented route: %w", method, path, err)
			}
			return nil
		}
		return fmt.Errorf("%s %s: no operation: %w", method, path, ErrUndocumented)
	}
	answers := s.answers[op.key()]
	code := strconv.Itoa(status)
	byMedia, ok := answers[code]
	if !ok {
		byMedia, ok = answers[code[:1]+"XX"]
	}
	if !ok {
		byMedia, ok = answers["default"]
	}
	if !ok {
		return fmt.Errorf("%s %s (%s): status %d: %w", method, path, op.Path, status, ErrUndocumented)
	}
	if len(byMedia) == 0 {
		if len(bytes.TrimSpace(body)) > 0 {
			return fmt.Errorf("%s %s (%s): status %d is documented without a body, got %d bytes", method, path, op.Path, status, len(body))
		}
		return nil
	}
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("%s %s (%s): status %d: content type %q: %w", method, path, op.Path, status, contentType, err)
	}
	sch, ok := byMedia[media]
	if !ok {
		return fmt.Errorf("%s %s (%s): status %d: content type %s is not documented: %w", method, path, op.Path, status, media, ErrUndocumented)
	}
	if sch == nil || !isJSON(media) {
		return nil
	}
	if err := validateJSON(sch, body); err != nil {
		return fmt.Errorf("%s %s (%s): status %d: %w", method, path, op.Path, status, err)
	}
	return nil
}

// ValidateSchema validates a JSON document against the schema of the
// document's components named name.
func (s *Spec) ValidateSchema(name string, body []byte) error {
	sch, ok := s.schemas[name]
	if !ok {
		return fmt.Errorf("no schema %q in components: %w", name, ErrUndocumented)
	}
	return validateJSON(sch, body)
}

func validateJSON(sch *jsonschema.Schema, body []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("body does not match the schema: %w", err)
	}
	return nil
}

// isMethod reports whether a key of a path item is an HTTP method.
func isMethod(key string) bool {
	switch key {
	case "get", "put", "post", "delete", "options", "head", "patch", "trace":
		return true
	}
	return false
}

func isJSON(media string) bool {
	return media == "application/json" || strings.HasSuffix(media, "+json")
}
