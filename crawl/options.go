package crawl

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// optionField is a field of Options as a create request names it.
type optionField struct {
	name  string      // its json name
	index int         // its index in Options
	rule  *optionRule // nil: customFields[name] reads it
}

// optionRule is a simple rule for reading one option, stated by the
// field's option tag as comma-separated key=value pairs:
//
//	default=true          a boolean, and its value when the request leaves it out
//	min=1,max=1000        an integer (int, or *int: nil when left out) in a range
//	oneof=api|web         a string, one of these values
//	each=path             a list of up to MaxPatterns path globs
//	each=selector         a list of up to MaxPatterns CSS selectors
//	each=format           a list of page formats (pageformats.Known)
//
// default applies to integers and strings too. An option left out or given
// as null takes its default.
type optionRule struct {
	def      string
	min, max int
	oneof    []string
	each     func(string) string
}

// patternChecks are the kinds of list entries each= can name.
var patternChecks = map[string]func(string) string{
	"path":     checkPathGlob,
	"selector": checkSelector,
	"format":   checkFormat,
}

// optionFields are the fields of Options a request may give, in the order
// of their declaration.
var optionFields = readOptionFields(reflect.TypeFor[Options]())

// requestAliases are request fields that name an option under another
// name: startUrl (one URL, for startUrls) and engine (the older shape's
// engineType).
var requestAliases = []string{"startUrl", "engine"}

// knownFields are the fields a create request may hold.
var knownFields = func() map[string]bool {
	known := map[string]bool{}
	for _, f := range optionFields {
		known[f.name] = true
	}
	for _, a := range requestAliases {
		known[a] = true
	}
	return known
}()

// readOptionFields reads the tags of Options. It panics on a tag it cannot
// read, or on a custom field without a reader in customFields (or a reader
// without its field): a mistake in the declaration, found at start-up.
func readOptionFields(t reflect.Type) []optionField {
	var fields []optionField
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			panic(fmt.Sprintf("crawl: Options.%s has no json tag", sf.Name))
		}
		f := optionField{name: name, index: i}
		tag := sf.Tag.Get("option")
		if tag == "custom" {
			if customFields[name] == nil {
				panic(fmt.Sprintf("crawl: option %s is custom but has no reader in customFields", name))
			}
		} else {
			r, err := parseRule(sf.Type, tag)
			if err != nil {
				panic(fmt.Sprintf("crawl: option %s: %v", name, err))
			}
			f.rule = r
		}
		fields = append(fields, f)
	}
	for name := range customFields {
		if !slices.ContainsFunc(fields, func(f optionField) bool { return f.name == name && f.rule == nil }) {
			panic(fmt.Sprintf("crawl: customFields reads %s, which is not a custom option", name))
		}
	}
	return fields
}

// parseRule reads an option tag for a field of type t.
func parseRule(t reflect.Type, tag string) (*optionRule, error) {
	if tag == "" {
		return nil, fmt.Errorf("no option tag")
	}
	r := &optionRule{}
	var hasRange bool
	for _, kv := range strings.Split(tag, ",") {
		k, v, _ := strings.Cut(kv, "=")
		var err error
		switch k {
		case "default":
			r.def = v
		case "min":
			r.min, err = strconv.Atoi(v)
			hasRange = true
		case "max":
			r.max, err = strconv.Atoi(v)
			hasRange = true
		case "oneof":
			r.oneof = strings.Split(v, "|")
		case "each":
			if r.each = patternChecks[v]; r.each == nil {
				err = fmt.Errorf("unknown list entry kind %q", v)
			}
		default:
			err = fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return nil, err
		}
	}
	base := t
	if t.Kind() == reflect.Pointer {
		base = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Bool:
		_, err := strconv.ParseBool(r.def)
		return r, err
	case base.Kind() == reflect.Int && hasRange:
		if r.def == "" {
			return r, nil
		}
		_, err := strconv.Atoi(r.def)
		return r, err
	case t.Kind() == reflect.String && len(r.oneof) > 0:
		return r, nil
	case t == reflect.TypeFor[[]string]() && r.each != nil:
		return r, nil
	}
	return nil, fmt.Errorf("tag %q does not fit a field of type %s", tag, t)
}

// read sets v, a field of Options, from the request field name.
func (r *optionRule) read(p *parser, name string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		def, _ := strconv.ParseBool(r.def)
		v.SetBool(p.boolean(name, def))
	case reflect.Int:
		if r.def != "" {
			def, _ := strconv.Atoi(r.def)
			v.SetInt(int64(def))
		}
		if n, ok := p.integer(name, r.min, r.max); ok {
			v.SetInt(int64(n))
		}
	case reflect.Pointer:
		if r.def != "" {
			def, _ := strconv.Atoi(r.def)
			v.Set(reflect.ValueOf(&def))
		}
		if n, ok := p.integer(name, r.min, r.max); ok {
			v.Set(reflect.ValueOf(&n))
		}
	case reflect.String:
		v.SetString(r.def)
		if s, ok := p.enum(name, r.oneof...); ok {
			v.SetString(s)
		}
	case reflect.Slice:
		v.Set(reflect.ValueOf(p.patterns(name, r.each)))
	}
}
