package metrics

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
)

// Temporal gives the Temporal SDK's metrics (requests, polls, task and
// activity latencies, slots) to a Prometheus registry: counters and gauges
// as they are, timers as histograms in seconds.
//
// The SDK uses one metric name with different tag sets (a request carries
// an operation, an activity its type, and so on). Prometheus wants one set
// of label names per metric, so each metric's labels are the union of the
// tags it was used with, empty where a use had no such tag.
type Temporal struct {
	mu       sync.Mutex
	families map[string]*family
}

// NewTemporal returns the adapter, registered on r; pass it as the
// MetricsHandler of the Temporal client.
func NewTemporal(r prometheus.Registerer) *Temporal {
	t := &Temporal{families: map[string]*family{}}
	r.MustRegister(t)
	return t
}

// Handler is the client.MetricsHandler with no tags.
func (t *Temporal) Handler() client.MetricsHandler { return tagged{t: t} }

type kind int

const (
	counterKind kind = iota
	gaugeKind
	timerKind
)

// timerBuckets cover a poll's long wait as well as a quick request.
var timerBuckets = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

type family struct {
	kind   kind
	keys   map[string]bool
	series map[string]*series // by the canonical form of its tags
}

type series struct {
	tags    map[string]string
	value   float64  // counter or gauge
	count   uint64   // timer
	sum     float64  // timer, seconds
	buckets []uint64 // timer, per bound
}

var invalidName = regexp.MustCompile(`[^a-zA-Z0-9_:]`)

// name makes an SDK metric name a valid Prometheus one.
func name(s string) string {
	s = invalidName.ReplaceAllString(s, "_")
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "_" + s
	}
	return s
}

// series returns the series of a metric and tags, created on first use.
func (t *Temporal) series(metric string, k kind, tags map[string]string) *series {
	metric = name(metric)
	key := canonical(tags)
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.families[metric]; f != nil && f.kind != k {
		metric += [...]string{"_counter", "_gauge", "_timer"}[k] // the same name as another kind
	}
	f := t.families[metric]
	if f == nil {
		f = &family{kind: k, keys: map[string]bool{}, series: map[string]*series{}}
		t.families[metric] = f
	}
	s := f.series[key]
	if s == nil {
		s = &series{tags: tags}
		if k == timerKind {
			s.buckets = make([]uint64, len(timerBuckets))
		}
		f.series[key] = s
		for k := range tags {
			f.keys[k] = true
		}
	}
	return s
}

func canonical(tags map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(tags[k])
		b.WriteByte(0)
	}
	return b.String()
}

// Describe sends nothing: the metrics are known only as the SDK uses them.
func (t *Temporal) Describe(chan<- *prometheus.Desc) {}

// Collect sends every series, each family with the union of its labels.
func (t *Temporal) Collect(ch chan<- prometheus.Metric) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for metric, f := range t.families {
		keys := slices.Sorted(maps.Keys(f.keys))
		labels := make([]string, len(keys))
		for i, k := range keys {
			labels[i] = name(k)
		}
		desc := prometheus.NewDesc(metric, "Temporal SDK metric "+metric+".", labels, nil)
		for _, s := range f.series {
			values := make([]string, len(keys))
			for i, k := range keys {
				values[i] = s.tags[k]
			}
			switch f.kind {
			case counterKind:
				ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, s.value, values...)
			case gaugeKind:
				ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, s.value, values...)
			case timerKind:
				cum := map[float64]uint64{}
				var n uint64
				for i, b := range timerBuckets {
					n += s.buckets[i]
					cum[b] = n
				}
				ch <- prometheus.MustNewConstHistogram(desc, s.count, s.sum, cum, values...)
			}
		}
	}
}

func (t *Temporal) add(s *series, d float64) {
	t.mu.Lock()
	s.value += d
	t.mu.Unlock()
}

func (t *Temporal) set(s *series, v float64) {
	t.mu.Lock()
	s.value = v
	t.mu.Unlock()
}

func (t *Temporal) observe(s *series, d time.Duration) {
	secs := d.Seconds()
	t.mu.Lock()
	s.count++
	s.sum += secs
	for i, b := range timerBuckets {
		if secs <= b {
			s.buckets[i]++
			break
		}
	}
	t.mu.Unlock()
}

// tagged is the handler for one set of tags.
type tagged struct {
	t    *Temporal
	tags map[string]string
}

func (h tagged) WithTags(tags map[string]string) client.MetricsHandler {
	merged := maps.Clone(h.tags)
	if merged == nil {
		merged = map[string]string{}
	}
	maps.Copy(merged, tags)
	return tagged{t: h.t, tags: merged}
}

func (h tagged) Counter(metric string) client.MetricsCounter {
	s := h.t.series(metric, counterKind, h.tags)
	return counterFunc(func(d int64) { h.t.add(s, float64(d)) })
}

func (h tagged) Gauge(metric string) client.MetricsGauge {
	s := h.t.series(metric, gaugeKind, h.tags)
	return gaugeFunc(func(v float64) { h.t.set(s, v) })
}

func (h tagged) Timer(metric string) client.MetricsTimer {
	s := h.t.series(metric, timerKind, h.tags)
	return timerFunc(func(d time.Duration) { h.t.observe(s, d) })
}

type counterFunc func(int64)

func (f counterFunc) Inc(d int64) { f(d) }

type gaugeFunc func(float64)

func (f gaugeFunc) Update(v float64) { f(v) }

type timerFunc func(time.Duration)

func (f timerFunc) Record(d time.Duration) { f(d) }
