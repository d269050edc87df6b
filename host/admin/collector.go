package admin

import (
	"github.com/prometheus/client_golang/prometheus"

	"vkm/host/figures"
)

// NoBehavior is the behavior label of a script error outside any
// behavior's callback (figures.NoBehavior).
const NoBehavior = figures.NoBehavior

// collector reports the figures the loop last handed over (Update), at
// scrape time: every figure of Config.Figures with a Metric, as a counter
// or a gauge by its Kind, a sample a label for a figure by label.
type collector Admin

var _ prometheus.Collector = (*collector)(nil)

// describe makes the description of every figure with a Metric, by its
// place in the set (nil for the others).
func describe(set *figures.Set) []*prometheus.Desc {
	if set == nil {
		return nil
	}
	descs := make([]*prometheus.Desc, len(set.Figures()))
	for i, f := range set.Figures() {
		if f.Metric == "" {
			continue
		}
		var labels []string
		if f.Label != "" {
			labels = []string{f.Label}
		}
		descs[i] = prometheus.NewDesc(f.Metric, f.Help, labels, nil)
	}
	return descs
}

// Describe sends the descriptions of every metric Collect reports.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		if d != nil {
			ch <- d
		}
	}
}

// Collect reports the figures last handed over. A figure added to the set
// after New has no description and is not reported.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := &c.figures
	for i := range min(v.Len(), len(c.descs)) {
		d := c.descs[i]
		if d == nil {
			continue
		}
		kind := prometheus.CounterValue
		if v.Figure(i).Kind == figures.Gauge {
			kind = prometheus.GaugeValue
		}
		v.Samples(i, func(label string, x float64) {
			if label == "" {
				ch <- prometheus.MustNewConstMetric(d, kind, x)
			} else {
				ch <- prometheus.MustNewConstMetric(d, kind, x, label)
			}
		})
	}
}
