package extract

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Combine turns the answers for a page's chunks, in order, into the
// page's extraction as JSON. An answer that is JSON (possibly inside a
// code fence) stays JSON; any other answer becomes a JSON string. Answers
// of several chunks are merged: arrays are concatenated, objects merged
// key by key (arrays concatenated, the first non-null value kept
// otherwise), null answers dropped; text answers are joined.
func Combine(answers []string) json.RawMessage {
	var values []any
	var texts []string
	allJSON := true
	for _, a := range answers {
		a = unfence(strings.TrimSpace(a))
		if a == "" {
			continue
		}
		v, ok := parseJSON(a)
		if !ok {
			allJSON = false
			texts = append(texts, a)
			continue
		}
		if v == nil {
			continue // this part holds nothing the instructions ask for
		}
		values = append(values, v)
		texts = append(texts, a)
	}
	if len(texts) == 0 {
		return json.RawMessage("null")
	}
	if !allJSON {
		return mustMarshal(strings.Join(texts, "\n\n"))
	}
	if len(texts) == 1 && !strings.Contains(texts[0], `\u0000`) {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(texts[0])) == nil {
			return json.RawMessage(buf.Bytes()) // as the model wrote it, keys in its order
		}
	}
	switch len(values) {
	case 0:
		return json.RawMessage("null")
	case 1:
		return mustMarshal(values[0])
	}
	return mustMarshal(merge(values))
}

// merge combines the JSON values of several chunks.
func merge(values []any) any {
	switch first := values[0].(type) {
	case []any:
		out := append([]any{}, first...)
		for _, v := range values[1:] {
			arr, ok := v.([]any)
			if !ok {
				return values // different shapes: keep each chunk's answer
			}
			out = append(out, arr...)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for _, v := range values {
			obj, ok := v.(map[string]any)
			if !ok {
				return values
			}
			for k, val := range obj {
				old, seen := out[k]
				switch {
				case !seen || old == nil:
					out[k] = val
				case val == nil:
				default:
					a, aok := old.([]any)
					b, bok := val.([]any)
					if aok && bok {
						out[k] = append(a, b...)
					}
				}
			}
		}
		return out
	}
	return values
}

func parseJSON(s string) (any, bool) {
	if !json.Valid([]byte(s)) {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// unfence returns the content of an answer that is one fenced code block.
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	body := s[3 : len(s)-3]
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return s
	}
	if strings.Contains(body[:nl], " ") {
		return s // not a language tag: text that happens to start with a fence
	}
	return strings.TrimSpace(body[nl+1:])
}

// mustMarshal encodes v without NUL characters, which Postgres's jsonb
// refuses.
func mustMarshal(v any) json.RawMessage {
	v = withoutNUL(v)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage("null") // unreachable: values come from the JSON decoder
	}
	return json.RawMessage(bytes.TrimSpace(buf.Bytes()))
}

func withoutNUL(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, "\x00", "")
	case []any:
		for i := range x {
			x[i] = withoutNUL(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[strings.ReplaceAll(k, "\x00", "")] = withoutNUL(val)
		}
		return out
	}
	return v
}
