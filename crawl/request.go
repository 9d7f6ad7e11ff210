package crawl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"reflect"
	"sort"
	"strings"

	"github.com/andybalholm/cascadia"

	"github.com/durablecrawl/crawler/netguard"
	"github.com/durablecrawl/crawler/pageformats"
	"github.com/durablecrawl/crawler/schema"
	"github.com/durablecrawl/crawler/webhook"
)

// Limits of a create request that the tags of Options do not state: the
// ranges of maxResults and maxDepth, which depend on the request shape, and
// the sizes of URLs, pattern lists and extraction instructions.
const (
	MaxResultsCurrent   = 10000 // maxResults: 1..10000, none by default
	MaxResultsLegacy    = 999   // maxResults in the older shape: 1..999, required
	MaxDepthCurrent     = 100   // maxDepth: 1..100
	MaxDepthLegacy      = 50    // maxDepth in the older shape: 1..50, required
	DefaultMaxDepth     = 10    // maxDepth when the current shape leaves it out
	MaxStartURLs        = 100   // startUrls: 1..100 URLs
	MaxURLLength        = 2048  // bytes of a start URL, a path pattern, or a followed link
	MaxExtractionLength = 20000 // bytes of extraction instructions
	MaxPatterns         = 100   // entries of includeOnlyPaths, excludePaths, includeOnlyTags, excludeTags
)

// Stacks maps each accepted `stack` value to the engine it implies.
var Stacks = map[string]string{
	"react":     EnginePlaywright,
	"next":      EnginePlaywright,
	"vue":       EnginePlaywright,
	"nuxt":      EnginePlaywright,
	"angular":   EnginePlaywright,
	"svelte":    EnginePlaywright,
	"gatsby":    EnginePlaywright,
	"remix":     EnginePlaywright,
	"ember":     EnginePlaywright,
	"wordpress": EngineCheerio,
	"drupal":    EngineCheerio,
	"hugo":      EngineCheerio,
	"jekyll":    EngineCheerio,
	"static":    EngineCheerio,
}

// StackNames returns the accepted stack values in order.
func StackNames() []string {
	names := make([]string, 0, len(Stacks))
	for k := range Stacks {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Server describes what the server can do; some options are refused when
// the server lacks what they need.
type Server struct {
	StaticEgressProxy bool // useStaticIps needs a configured proxy
	LLM               bool // extraction needs a configured LLM
	Browser           bool // engineType playwright needs the browser engine
	// ProxyPools are the names of the operator's proxy pools (kind, or
	// kind@COUNTRY; package proxypool): Firecrawl's proxy and location
	// country need one.
	ProxyPools []string
	// ExtractionLimit is the longest extraction the server's model leaves
	// room for (0: MaxExtractionLength).
	ExtractionLimit int
	// AllowPrivateNetworks accepts start URLs on loopback, private and
	// other internal addresses; without it they are refused at once.
	AllowPrivateNetworks bool
	// ObeyRobots says the workers follow robots.txt for every crawl.
	ObeyRobots bool
}

// ParseRequest validates a POST /crawls body in either request shape and
// returns the effective options. Every bad field is reported, not only the
// first, in an *Error with code EINVALID.
func ParseRequest(body []byte, srv Server) (Options, error) {
	fields, err := decodeObject(body)
	if err != nil {
		return Options{}, &Error{Code: EINVALID, Message: "the request body must be a JSON object",
			Details: []FieldError{{Field: "body", Message: err.Error()}}}
	}
	p := parser{fields: fields}
	for _, k := range sortedKeys(fields) {
		switch {
		case !knownFields[k]:
			p.fail(k, "unknown field")
		case hasNUL(fields[k]):
			p.fail(k, "must not contain NUL characters")
		}
	}

	// Each option is read by the rule of its option tag, or by its reader
	// in customFields, in the order Options declares them.
	var o Options
	v := reflect.ValueOf(&o).Elem()
	for _, f := range optionFields {
		if f.rule == nil {
			customFields[f.name](&p, &o, srv)
			continue
		}
		f.rule.read(&p, f.name, v.Field(f.index))
	}

	if len(p.errs) > 0 {
		return Options{}, &Error{Code: EINVALID, Message: "the request has invalid fields", Details: p.errs}
	}
	return o, nil
}

// customFields read the options whose rules the option tag cannot state:
// each sets its field of o (and startUrls the shape too) and reports bad
// values on p. They run in the order of the fields of Options, so each may
// rely on the fields before it.
var customFields = map[string]func(p *parser, o *Options, srv Server){
	"startUrls":        readStartURLs,
	"maxResults":       readMaxResults,
	"maxDepth":         readMaxDepth,
	"useStaticIps":     readUseStaticIPs,
	"extraction":       readExtraction,
	"extractionSchema": readExtractionSchema,
	"engineType":       readEngineType,
	"stack":            readStack,
	"formats":          readFormats,
	"webhook":          readWebhook,
}

// readFormats: known formats; a screenshot needs the browser engine, and
// makes the crawl's engine the browser (unless it asked for another).
func readFormats(p *parser, o *Options, srv Server) {
	o.Formats = p.patterns("formats", checkFormat)
	if pageformats.ShotOf(o.Formats) == "" {
		return
	}
	switch {
	case !srv.Browser:
		p.fail("formats", "a screenshot needs the browser engine, which this server does not run")
	case o.EngineType == EngineCheerio:
		p.fail("formats", "a screenshot needs the browser engine: engineType cheerio cannot take one")
	default:
		o.EngineType = EnginePlaywright
	}
}

// readWebhook: a URL, or an object with url, headers, metadata and
// events; its URL obeys the private-network rule of start URLs.
func readWebhook(p *parser, o *Options, srv Server) {
	raw, ok := p.raw("webhook")
	if !ok {
		return
	}
	internal := InternalHost
	if srv.AllowPrivateNetworks {
		internal = nil
	}
	c, bad := webhook.Parse(raw, internal)
	for _, b := range bad {
		field := "webhook"
		if b.Field != "" {
			field += "." + b.Field
		}
		p.fail(field, b.Message)
	}
	o.Webhook = c
}

// readStartURLs decides the request shape: startUrl (one URL) in the
// current one, startUrls (a list) in the older one.
func readStartURLs(p *parser, o *Options, srv Server) {
	_, hasCurrent := p.fields["startUrl"]
	_, hasLegacy := p.fields["startUrls"]
	switch {
	case hasCurrent && hasLegacy:
		p.fail("startUrl", "give either startUrl or startUrls, not both")
		p.fail("startUrls", "give either startUrl or startUrls, not both")
	case !hasCurrent && !hasLegacy:
		p.fail("startUrl", "required (or startUrls in the older request shape)")
	case hasCurrent:
		o.Shape = ShapeCurrent
		if u, ok := p.str("startUrl"); ok {
			if msg := checkStartURL(u, srv); msg != "" {
				p.fail("startUrl", msg)
			} else {
				o.StartURLs = []string{strings.TrimSpace(u)}
			}
		} else if !p.bad("startUrl") {
			p.fail("startUrl", "required")
		}
	default:
		o.Shape = ShapeLegacy
		if urls, ok := p.strings("startUrls"); ok {
			switch {
			case len(urls) == 0:
				p.fail("startUrls", "must hold at least one URL")
			case len(urls) > MaxStartURLs:
				p.fail("startUrls", fmt.Sprintf("at most %d URLs", MaxStartURLs))
			}
			for i, u := range urls {
				if msg := checkStartURL(u, srv); msg != "" {
					p.fail(fmt.Sprintf("startUrls[%d]", i), msg)
				} else {
					o.StartURLs = append(o.StartURLs, strings.TrimSpace(u))
				}
			}
		} else if !p.bad("startUrls") {
			p.fail("startUrls", "required")
		}
	}
}

// readMaxResults: optional in the current shape, required (and lower) in
// the older one.
func readMaxResults(p *parser, o *Options, _ Server) {
	limit := MaxResultsCurrent
	if o.Shape == ShapeLegacy {
		limit = MaxResultsLegacy
	}
	if n, ok := p.integer("maxResults", 1, limit); ok {
		o.MaxResults = &n
	} else if o.Shape == ShapeLegacy && !p.bad("maxResults") {
		p.fail("maxResults", fmt.Sprintf("required in the older request shape (1..%d)", limit))
	}
}

// readMaxDepth: DefaultMaxDepth in the current shape, required (and lower)
// in the older one.
func readMaxDepth(p *parser, o *Options, _ Server) {
	limit := MaxDepthCurrent
	if o.Shape == ShapeLegacy {
		limit = MaxDepthLegacy
	}
	o.MaxDepth = DefaultMaxDepth
	if n, ok := p.integer("maxDepth", 1, limit); ok {
		o.MaxDepth = n
	} else if o.Shape == ShapeLegacy && !p.bad("maxDepth") {
		p.fail("maxDepth", fmt.Sprintf("required in the older request shape (1..%d)", limit))
	}
}

// readUseStaticIPs refuses useStaticIps on a server without an egress proxy.
func readUseStaticIPs(p *parser, o *Options, srv Server) {
	o.UseStaticIPs = p.boolean("useStaticIps", false)
	if o.UseStaticIPs && !srv.StaticEgressProxy {
		p.fail("useStaticIps", "no static egress address is configured on this server")
	}
}

// readExtraction bounds extraction instructions by the server's model and
// refuses them on a server without one.
func readExtraction(p *parser, o *Options, srv Server) {
	s, ok := p.str("extraction")
	if !ok {
		return
	}
	switch {
	case len(s) > MaxExtractionLength:
		p.fail("extraction", fmt.Sprintf("at most %d characters", MaxExtractionLength))
	case srv.ExtractionLimit > 0 && len(s) > srv.ExtractionLimit:
		p.fail("extraction", fmt.Sprintf("at most %d bytes with this server's model (a quarter of its context)", srv.ExtractionLimit))
	case strings.TrimSpace(s) != "" && !srv.LLM:
		p.fail("extraction", "no LLM is configured on this server, so extraction instructions cannot be honoured")
	default:
		o.Extraction = strings.TrimSpace(s)
	}
}

// DefaultSchemaInstructions are a crawl's extraction instructions when it
// gives a schema and no instructions.
const DefaultSchemaInstructions = "Extract from the page the data the JSON Schema describes."

// readExtractionSchema: a JSON Schema (an object) the extraction's answer
// must validate against; it needs an LLM, and gives the crawl default
// instructions when it has none.
func readExtractionSchema(p *parser, o *Options, srv Server) {
	raw, ok := p.raw("extractionSchema")
	if !ok {
		return
	}
	if _, err := schema.Compile(raw); err != nil {
		p.fail("extractionSchema", err.Error())
		return
	}
	if !srv.LLM {
		p.fail("extractionSchema", "no LLM is configured on this server, so an extraction schema cannot be honoured")
		return
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		p.fail("extractionSchema", "must be JSON")
		return
	}
	o.ExtractionSchema = compact.Bytes()
	if o.Extraction == "" && !p.bad("extraction") {
		o.Extraction = DefaultSchemaInstructions
	}
}

// readEngineType reads engineType and its older name engine, which must
// agree when both are given; playwright needs a browser.
func readEngineType(p *parser, o *Options, srv Server) {
	o.EngineType = EngineAuto
	engineType, hasType := p.enum("engineType", EngineAuto, EngineCheerio, EnginePlaywright)
	engine, hasEngine := p.enum("engine", EngineCheerio, EnginePlaywright)
	switch {
	case hasType && hasEngine && engineType != engine:
		p.fail("engine", "disagrees with engineType; give one of them")
	case hasType:
		o.EngineType = engineType
	case hasEngine:
		o.EngineType = engine
	}
	if o.EngineType == EnginePlaywright && !srv.Browser {
		field := "engineType"
		if hasEngine {
			field = "engine"
		}
		p.fail(field, "this deployment runs no browser workers, so the playwright engine is not available")
	}
}

// readStack accepts the keys of Stacks.
func readStack(p *parser, o *Options, _ Server) {
	if v, ok := p.enum("stack", StackNames()...); ok {
		o.Stack = v
	}
}

// hasNUL reports whether a JSON value holds a NUL character in a string.
func hasNUL(v json.RawMessage) bool {
	return bytes.Contains(v, []byte(`\u0000`)) || bytes.IndexByte(v, 0) >= 0
}

// Given returns a request body as the crawl records it: the same JSON
// object re-encoded, so that what the decoder tolerated (a lone surrogate
// escape, repeated keys) is stored as it was understood. Call it only on a
// body ParseRequest accepted.
func Given(body []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(out.Bytes()), nil
}

func decodeObject(body []byte) (map[string]json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, fmt.Errorf("empty body")
	}
	if body[0] != '{' {
		return nil, fmt.Errorf("expected a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return nil, fmt.Errorf("malformed JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("malformed JSON: data after the object")
	}
	return fields, nil
}

// parser decodes single fields and collects one error per bad field.
type parser struct {
	fields map[string]json.RawMessage
	errs   []FieldError
}

func (p *parser) fail(field, msg string) {
	p.errs = append(p.errs, FieldError{Field: field, Message: msg})
}

func (p *parser) bad(field string) bool {
	for _, e := range p.errs {
		if e.Field == field {
			return true
		}
	}
	return false
}

// raw returns the field's JSON, or false when it is absent or null (an
// explicit null means "use the default").
func (p *parser) raw(field string) (json.RawMessage, bool) {
	v, ok := p.fields[field]
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return nil, false
	}
	return v, true
}

func (p *parser) str(field string) (string, bool) {
	v, ok := p.raw(field)
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		p.fail(field, "must be a string")
		return "", false
	}
	return s, true
}

func (p *parser) boolean(field string, def bool) bool {
	v, ok := p.raw(field)
	if !ok {
		return def
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		p.fail(field, "must be a boolean")
		return def
	}
	return b
}

func (p *parser) integer(field string, lo, hi int) (int, bool) {
	v, ok := p.raw(field)
	if !ok {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		p.fail(field, fmt.Sprintf("must be an integer from %d to %d", lo, hi))
		return 0, false
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		p.fail(field, fmt.Sprintf("must be an integer from %d to %d", lo, hi))
		return 0, false
	}
	return int(f), true
}

func (p *parser) enum(field string, allowed ...string) (string, bool) {
	s, ok := p.str(field)
	if !ok {
		return "", false
	}
	for _, a := range allowed {
		if s == a {
			return s, true
		}
	}
	p.fail(field, fmt.Sprintf("must be one of: %s", strings.Join(allowed, ", ")))
	return "", false
}

func (p *parser) strings(field string) ([]string, bool) {
	v, ok := p.raw(field)
	if !ok {
		return nil, false
	}
	var list []string
	if err := json.Unmarshal(v, &list); err != nil {
		p.fail(field, "must be an array of strings")
		return nil, false
	}
	return list, true
}

func (p *parser) patterns(field string, check func(string) string) []string {
	list, ok := p.strings(field)
	if !ok {
		return nil
	}
	if len(list) > MaxPatterns {
		p.fail(field, fmt.Sprintf("at most %d entries", MaxPatterns))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, s := range list {
		s = strings.TrimSpace(s)
		if msg := check(s); msg != "" {
			p.fail(fmt.Sprintf("%s[%d]", field, i), msg)
			continue
		}
		out = append(out, s)
	}
	return out
}

func checkURL(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "must be a URL"
	}
	if len(s) > MaxURLLength {
		return fmt.Sprintf("longer than %d characters", MaxURLLength)
	}
	u, err := url.Parse(s)
	if err != nil {
		return "is not a valid URL"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "must be an absolute http or https URL"
	}
	if u.Hostname() == "" {
		return "must name a host"
	}
	if u.User != nil {
		return "must not carry credentials"
	}
	return ""
}

// checkStartURL is checkURL, and refuses a host that is an internal
// address (an IP literal netguard forbids, or localhost) unless the server
// allows private networks. Names that resolve to such addresses are the
// API's to refuse (it resolves them); the fetcher refuses them in any case.
func checkStartURL(s string, srv Server) string {
	if msg := checkURL(s); msg != "" || srv.AllowPrivateNetworks {
		return msg
	}
	u, _ := url.Parse(strings.TrimSpace(s))
	if InternalHost(u.Hostname()) {
		return "is on a private, loopback or reserved address, which this server does not crawl"
	}
	return ""
}

// InternalHost reports whether host names this machine or an internal
// network by itself: localhost (and its subdomains) or an IP address
// netguard forbids.
func InternalHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	if err != nil {
		return false
	}
	return !netguard.Allowed(ip)
}

func checkPathGlob(s string) string {
	switch {
	case s == "":
		return "must not be empty"
	case len(s) > MaxURLLength:
		return "too long"
	case strings.ContainsAny(s, " \t\n"):
		return "must not contain whitespace"
	}
	return ""
}

func checkSelector(s string) string {
	if s == "" {
		return "must not be empty"
	}
	if _, err := cascadia.ParseGroup(s); err != nil {
		return "is not a valid CSS selector"
	}
	return ""
}

func checkFormat(s string) string {
	if !pageformats.IsKnown(s) {
		return "is not a format: one of " + strings.Join(pageformats.Known, ", ")
	}
	return ""
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
