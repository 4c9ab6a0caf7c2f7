package server

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/neardup/neardup/index"
)

// Metric names, all under the "neardup_" namespace:
//
//	neardup_http_requests_total{route,code}             requests answered, by route pattern and status
//	neardup_http_request_duration_seconds{route,code}   their latency (histogram)
//	neardup_http_requests_in_flight                     requests being served
//	neardup_http_request_body_in_flight_bytes           bytes of request bodies being served (taken from the budget)
//	neardup_http_request_body_budget_bytes              their bound, Options.MaxInFlightBytes (+Inf: none)
//	neardup_http_request_body_waits_total{outcome}      requests that found the budget full and waited, by outcome:
//	                                                    admitted, overloaded (answered 503), canceled (the client left)
//	neardup_index_documents, neardup_index_groups       index size, read at scrape time
//	neardup_index_resident_bytes                        memory of the band tables (stores that say)
//	neardup_store_write_duration_seconds{op}            time of index writes: add, add_batch, remove
//
// A route is the pattern that took the request ("GET /v1/documents/{id}"),
// never the raw path, so ids do not make new series; requests no route
// takes are "unmatched".
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inflight prometheus.Gauge
	writes   *prometheus.HistogramVec
	waits    *prometheus.CounterVec // of requests for budget, by outcome
}

// Outcomes of a request's wait for budget (label outcome).
const (
	waitAdmitted   = "admitted"
	waitOverloaded = "overloaded"
	waitCanceled   = "canceled"
)

// latencyBuckets run from 100 µs to about 3.3 s, doubling: the API answers
// in well under a millisecond, and the default buckets start at 5 ms.
var latencyBuckets = prometheus.ExponentialBuckets(100e-6, 2, 16)

func newMetrics(reg *prometheus.Registry, ix *index.Index, budget *byteBudget, log *slog.Logger) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "neardup", Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by route pattern and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "neardup", Subsystem: "http", Name: "request_duration_seconds",
			Help: "Time to answer an HTTP request, by route pattern and status code.", Buckets: latencyBuckets,
		}, []string{"route", "code"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "neardup", Subsystem: "http", Name: "requests_in_flight",
			Help: "HTTP requests being served.",
		}),
		writes: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "neardup", Subsystem: "store", Name: "write_duration_seconds",
			Help: "Time of index writes (check and durable commit), by operation: add, add_batch, remove.", Buckets: latencyBuckets,
		}, []string{"op"}),
		waits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "neardup", Subsystem: "http", Name: "request_body_waits_total",
			Help: "Requests that found the budget of request bodies full and waited, by outcome: admitted, overloaded (answered 503), canceled.",
		}, []string{"outcome"}),
	}
	for _, o := range []string{waitAdmitted, waitOverloaded, waitCanceled} {
		m.waits.WithLabelValues(o) // shown at 0 from the start
	}
	bodyBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "neardup", Subsystem: "http", Name: "request_body_in_flight_bytes",
		Help: "Bytes of request bodies being served, taken from the budget until their handlers return.",
	}, func() float64 {
		held, _ := budget.inUse()
		return float64(held)
	})
	limit := float64(budget.size)
	if budget.size == math.MaxInt64 {
		limit = math.Inf(1)
	}
	bodyLimit := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "neardup", Subsystem: "http", Name: "request_body_budget_bytes",
		Help: "The bound of request_body_in_flight_bytes (MaxInFlightBytes, --max-in-flight-bytes); +Inf: none.",
	}, func() float64 { return limit })
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.inflight, m.writes, m.waits, bodyBytes, bodyLimit, newIndexCollector(ix, log)} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	code := strconv.Itoa(status)
	m.requests.WithLabelValues(route, code).Inc()
	m.latency.WithLabelValues(route, code).Observe(d.Seconds())
}

// timeWrite records the time since start of an index write op.
func (m *metrics) timeWrite(op string, start time.Time) {
	m.writes.WithLabelValues(op).Observe(time.Since(start).Seconds())
}

// handler serves reg in the Prometheus text format. A collector that
// fails leaves its metrics out (and is logged) instead of failing the
// scrape.
func (m *metrics) handler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// indexCollector reads the index's counts once per scrape.
type indexCollector struct {
	ix                     *index.Index
	log                    *slog.Logger
	docs, groups, resident *prometheus.Desc
	residentOf             interface{ ResidentBytes() int64 }
}

func newIndexCollector(ix *index.Index, log *slog.Logger) *indexCollector {
	c := &indexCollector{
		ix:       ix,
		log:      log,
		docs:     prometheus.NewDesc("neardup_index_documents", "Documents in the index.", nil, nil),
		groups:   prometheus.NewDesc("neardup_index_groups", "Distinct shingle sets in the index.", nil, nil),
		resident: prometheus.NewDesc("neardup_index_resident_bytes", "Memory held by the index in memory: band tables, set sizes and signature digests.", nil, nil),
	}
	c.residentOf, _ = ix.Store().(interface{ ResidentBytes() int64 })
	return c
}

func (c *indexCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.docs
	ch <- c.groups
	if c.residentOf != nil {
		ch <- c.resident
	}
}

// scrapeTimeout bounds the read of the counts, which a remote store
// answers over the network.
const scrapeTimeout = 2 * time.Second

func (c *indexCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	st, err := c.ix.Stats(ctx)
	if err != nil {
		c.log.Warn("metrics: index counts", "err", err)
	} else {
		ch <- prometheus.MustNewConstMetric(c.docs, prometheus.GaugeValue, float64(st.Documents))
		ch <- prometheus.MustNewConstMetric(c.groups, prometheus.GaugeValue, float64(st.Groups))
	}
	if c.residentOf != nil {
		ch <- prometheus.MustNewConstMetric(c.resident, prometheus.GaugeValue, float64(c.residentOf.ResidentBytes()))
	}
}
