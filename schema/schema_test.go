package schema

import (
	"strings"
	"testing"
)

const product = `{"type":"object","required":["title","price"],"properties":{
	"title":{"type":"string"},"price":{"type":"number","minimum":0},"tags":{"type":"array","items":{"type":"string"}}}}`

func TestValidate(t *testing.T) {
	s, err := Compile([]byte(product))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(`{"title":"Kettle","price":12.5,"tags":["kitchen"]}`)); err != nil {
		t.Errorf("a valid answer: %v", err)
	}
	for _, bad := range []string{`{"title":"Kettle"}`, `{"title":5,"price":1}`, `{"title":"K","price":-1}`, `"prose"`, `not json`} {
		if err := s.Validate([]byte(bad)); err == nil {
			t.Errorf("%s validated", bad)
		} else if strings.Contains(err.Error(), location) {
			t.Errorf("%s: the message names the internal location: %v", bad, err)
		}
	}
	if err := s.Validate([]byte(`{"title":5}`)); err == nil || !strings.Contains(err.Error(), "price") {
		t.Errorf("the message should name what is missing: %v", err)
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, bad := range []string{
		`{"type": 12}`,
		`{"$ref": "file:///etc/passwd"}`,
		`{"$ref": "https://example.com/schema.json"}`,
		`[1, 2]`,
		`{"type": "object"`,
		`{"properties": {"a": {"pattern": "("}}}`,
	} {
		if _, err := Compile([]byte(bad)); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
	if _, err := Compile([]byte(`{"$defs":{"p":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/p"}}}`)); err != nil {
		t.Errorf("a reference inside the schema: %v", err)
	}
}
