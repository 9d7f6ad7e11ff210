package crawl

import (
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/durablecrawl/crawler/webhook"
)

// TestOptionFieldsAreKnown: every option with a JSON name is a field a
// request may give, and so are the aliases.
func TestOptionFieldsAreKnown(t *testing.T) {
	typ := reflect.TypeFor[Options]()
	for i := range typ.NumField() {
		name := typ.Field(i).Tag.Get("json")
		if name != "-" && !knownFields[name] {
			t.Errorf("%s (json %q) is not a known request field", typ.Field(i).Name, name)
		}
	}
	for _, a := range requestAliases {
		if !knownFields[a] {
			t.Errorf("alias %s is not a known request field", a)
		}
	}
}

// nonDefault sets v, an option read by r, to a valid value that is not
// its default.
func nonDefault(t *testing.T, v reflect.Value, r *optionRule) {
	t.Helper()
	switch v.Kind() {
	case reflect.Bool:
		def, _ := strconv.ParseBool(r.def)
		v.SetBool(!def)
	case reflect.Int:
		v.SetInt(int64(r.max))
	case reflect.Pointer:
		n := r.max
		v.Set(reflect.ValueOf(&n))
	case reflect.String:
		for _, s := range r.oneof {
			if s != r.def {
				v.SetString(s)
				return
			}
		}
		t.Fatalf("no value of %v but its default", r.oneof)
	case reflect.Slice:
		for _, s := range []string{"/docs/**", "article", "links"} {
			if r.each(s) == "" {
				v.Set(reflect.ValueOf([]string{s}))
				return
			}
		}
		t.Fatal("no list entry fits")
	}
}

// TestOptionsRoundTrip: options with every field off its default, encoded
// under their JSON names, parse back to themselves. An option that the
// encoding leaves out, or that ParseRequest does not read, fails this.
func TestOptionsRoundTrip(t *testing.T) {
	// The custom fields are set here, the simple ones by their rules.
	want := Options{
		Shape: ShapeLegacy, StartURLs: []string{"https://a.example/", "https://b.example/x"},
		MaxResults: ptr(MaxResultsLegacy), MaxDepth: MaxDepthLegacy, UseStaticIPs: true,
		Extraction: "the prices", EngineType: EnginePlaywright, Stack: "react",
		ExtractionSchema: json.RawMessage(`{"type":"object","properties":{"price":{"type":"number"}}}`),
		Formats:          []string{"links", "screenshot"},
		Webhook: &webhook.Config{URL: "https://hooks.example/in", Headers: map[string]string{"Authorization": "Bearer t"},
			Metadata: map[string]any{"project": "docs"}, Events: []string{"page", "completed"}},
	}
	v := reflect.ValueOf(&want).Elem()
	for _, f := range optionFields {
		switch {
		case f.rule != nil:
			nonDefault(t, v.Field(f.index), f.rule)
		case v.Field(f.index).IsZero():
			t.Fatalf("custom option %s is not set in the test; give it a value", f.name)
		}
	}
	body, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseRequest(body, allServer)
	if err != nil {
		t.Fatalf("ParseRequest(%s): %v", body, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseRequest(%s) =\n%+v\nwant\n%+v", body, got, want)
	}
}

// TestOptionDefaults: a request that gives only a URL gets each simple
// option's default from its tag.
func TestOptionDefaults(t *testing.T) {
	got, err := ParseRequest([]byte(`{"startUrl":"https://a.example/"}`), allServer)
	if err != nil {
		t.Fatal(err)
	}
	if got.TimeoutSeconds != 1800 || got.Origin != OriginAPI || got.MaxConcurrentPages != nil ||
		!got.IncludeLinks || got.UseSitemap || got.IncludeOnlyPaths != nil {
		t.Errorf("defaults = %+v", got)
	}
}

func TestParseRule(t *testing.T) {
	cases := []struct {
		typ  reflect.Type
		tag  string
		fits bool
	}{
		{reflect.TypeFor[bool](), "default=true", true},
		{reflect.TypeFor[bool](), "", false},
		{reflect.TypeFor[bool](), "default=yes", false},
		{reflect.TypeFor[int](), "min=1,max=5,default=2", true},
		{reflect.TypeFor[int](), "default=2", false},
		{reflect.TypeFor[*int](), "min=1,max=5", true},
		{reflect.TypeFor[int](), "min=1,max=x", false},
		{reflect.TypeFor[string](), "oneof=a|b,default=a", true},
		{reflect.TypeFor[string](), "min=1,max=2", false},
		{reflect.TypeFor[[]string](), "each=path", true},
		{reflect.TypeFor[[]string](), "each=regexp", false},
		{reflect.TypeFor[[]int](), "each=path", false},
		{reflect.TypeFor[bool](), "default=true,required", false},
	}
	for _, tc := range cases {
		_, err := parseRule(tc.typ, tc.tag)
		if (err == nil) != tc.fits {
			t.Errorf("parseRule(%s, %q) = %v, want fits %v", tc.typ, tc.tag, err, tc.fits)
		}
	}
}

func TestBaselineKeyIgnoresHowListsWereLeftOut(t *testing.T) {
	a := Options{StartURLs: []string{"https://a.example/"}, MaxDepth: 2, ExtractionSchema: json.RawMessage(`{"type": "object"}`)}
	b := a
	b.Formats, b.ExcludePaths, b.Headers = []string{}, []string{}, map[string]string{}
	a.ExtractionSchema = json.RawMessage(`{"type": "object", "properties": {"b": {}, "a": {}}, "required": ["a"]}`)
	b.ExtractionSchema = json.RawMessage(`{"type":"object","required":["a"],"properties":{"a":{},"b":{}}}`)
	if a.BaselineKey() != b.BaselineKey() {
		t.Error("nil and empty lists, or a schema spelled differently, give different keys")
	}
	for name, change := range map[string]func(o *Options){
		"depth":      func(o *Options) { o.MaxDepth = 3 },
		"main":       func(o *Options) { o.ExcludeNonMainTags = true },
		"headers":    func(o *Options) { o.Headers = map[string]string{"Cookie": "a=1"} },
		"schedule":   func(o *Options) { o.Formats = []string{"links"} },
		"extraction": func(o *Options) { o.Extraction = "prices" },
		"pdfs":       func(o *Options) { o.SkipPDFs = true },
		"pdf pages":  func(o *Options) { o.PDFMaxPages = 3 },
	} {
		c := a
		change(&c)
		if c.BaselineKey() == a.BaselineKey() {
			t.Errorf("a different %s gives the same key", name)
		}
	}
	// Keys stored before the PDF options existed still match.
	if got := (Options{StartURLs: []string{"https://a.example/"}}).BaselineKey(); got != "01004399460cde91bd6394f4e7e9273e" {
		t.Errorf("the key of a crawl without PDF options = %s, want the one stored before they existed", got)
	}
	c := a
	c.TimeoutSeconds, c.MaxResults, c.ChangeTracking = 60, new(int), true
	if c.BaselineKey() != a.BaselineKey() {
		t.Error("the timeout, the limit or change tracking itself changed the key")
	}
}
