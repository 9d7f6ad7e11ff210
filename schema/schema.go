// Package schema checks JSON values against a JSON Schema a caller gave:
// the schema of a crawl's extraction (Firecrawl's json format), compiled
// once when the crawl is requested and again where answers are checked.
//
// Schemas are read as draft 2020-12 unless they name another draft with
// $schema. A $ref may point inside the schema only: nothing is loaded
// from files or the network.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MaxBytes is the largest schema accepted.
const MaxBytes = 32 << 10

// Schema is a compiled schema.
type Schema struct {
	s *jsonschema.Schema
}

// noLoader refuses every $ref outside the schema itself.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: a schema may refer only to its own parts", url)
}

const location = "urn:crawler:schema"

// Compile reads raw as a JSON Schema.
func Compile(raw json.RawMessage) (*Schema, error) {
	if len(raw) > MaxBytes {
		return nil, fmt.Errorf("is larger than %d bytes", MaxBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("is not JSON: %v", err)
	}
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, errors.New("must be a JSON Schema: an object (or true or false)")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(location, doc); err != nil {
		return nil, fmt.Errorf("is not a valid JSON Schema: %v", short(err))
	}
	s, err := c.Compile(location)
	if err != nil {
		return nil, fmt.Errorf("is not a valid JSON Schema: %v", short(err))
	}
	return &Schema{s: s}, nil
}

// Validate returns nil when raw is JSON that the schema accepts, else
// what is wrong, in a few lines a person (or a model) can act on.
func (s *Schema) Validate(raw json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if err := s.s.Validate(v); err != nil {
		return errors.New(short(err))
	}
	return nil
}

// short is err's message without the schema's internal location, cut to
// a length that fits a log entry and a prompt.
func short(err error) string {
	msg := strings.ReplaceAll(err.Error(), location, "schema")
	msg = strings.ReplaceAll(msg, "jsonschema validation failed with 'schema#'\n", "")
	if len(msg) > 1500 {
		msg = msg[:1500] + " …"
	}
	return strings.TrimSpace(msg)
}
