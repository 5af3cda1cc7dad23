package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/pluginhost"
)

// dashboardFile is the Grafana dashboard over the board's metrics.
var dashboardFile = filepath.Join("..", "..", "docs", "grafana", "pact-board.json")

// With PACT_METRICS_ADDR set, /metrics answers on that address and only
// there, with the gauges read at scrape time; the board's own listener
// has no /metrics.
func TestMetricsAreServedOnlyOnTheirOwnListener(t *testing.T) {
	m, logs, _ := startMain(t, map[string]string{"PACT_METRICS_ADDR": "127.0.0.1:0"})
	require.NotNil(t, m.MetricsAddr())
	require.NotNil(t, m.Metrics())
	require.Contains(t, logs.String(), "serving /metrics")
	metricsBase, base := "http://"+m.MetricsAddr().String(), "http://"+m.Addr().String()

	code, body := status(t, metricsBase+"/metrics")
	require.Equal(t, 200, code)
	for _, name := range []string{"pact_db_pool_connections", "pact_held_waits 0", "pact_event_subscribers",
		"pact_outbox_pending 0", "pact_outbox_delivery_attempts_total{outcome=\"sent\"} 0", "pact_log_queued_entries",
		"pact_log_integration_lag_seconds_bucket", "go_goroutines"} {
		require.Contains(t, body, name)
	}
	code, _ = status(t, metricsBase+"/healthz")
	require.Equal(t, 404, code, "the metrics listener serves /metrics only")
	code, _ = status(t, base+"/metrics")
	require.Equal(t, 404, code, "the board's own listener has no /metrics")
}

// Unset, PACT_METRICS_ADDR opens no listener and builds no registry.
func TestMetricsAreOffByDefault(t *testing.T) {
	m, _, _ := startMain(t, nil)
	require.Nil(t, m.MetricsAddr())
	require.Nil(t, m.Metrics())
}

// TestMetricsOfAnExercisedBoard calls every tool (and refused calls, and a
// tool that does not exist), makes Admin API calls that succeed and fail,
// and a plugin call, then gathers every family from the board's registry.
// LabelsAreBounded is OBS-001 (docs/invariants.md): every label is on the
// allow-list, each value is of its label's bounded set, and no value is
// the id of anything the database holds. GrafanaDashboard checks that
// docs/grafana/pact-board.json parses and that every query names a metric
// the registry gathers.
func TestMetricsOfAnExercisedBoard(t *testing.T) {
	a := newAdminBoard(t)
	cs, roots := a.toolAgents(t)
	ctx := context.Background()
	callEveryTool(roots, func(name string, args map[string]any) map[string]any {
		text, err := callTool(ctx, cs, name, args)
		require.NoError(t, err)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(text), &v))
		return v
	})
	// A wait the MCP transport holds (nothing wakes it: no hub) is counted
	// once, ok, when it answers.
	waits := func() float64 { return toolCalls(t, a, "pact_wait") }
	before := waits()
	_, err := callTool(ctx, cs, "pact_wait", map[string]any{"mandate_id": roots["code-web"], "seconds": 1})
	require.NoError(t, err)
	require.Equal(t, before+1, waits(), "a held pact_wait is one call")

	_, err = a.k.Tools().Call(ctx, "code-web", "pact_post", json.RawMessage(`{"project_id": "web", "titel": "x"}`))
	require.Equal(t, "invalid_request", kernel.Outcome(err))
	_, err = a.k.Tools().Call(ctx, "code-web", "pact_code_web_tool", json.RawMessage(`{}`))
	require.Error(t, err)
	_, err = a.k.Tools().Call(ctx, "ghost-agent", "pact_whoami", nil)
	require.Equal(t, "agent_unknown", kernel.Outcome(err))

	a.Person("ana", "olga", identity.Viewer)
	require.Equal(t, 200, a.Admin("olga", "GET", "/me", "").Status)
	require.Equal(t, 200, a.Admin("olga", "GET", "/agents", "").Status)
	require.Equal(t, 403, a.Admin("olga", "POST", "/agents/code-web/tokens", "{}").Status)
	require.Equal(t, 401, a.Admin("", "GET", "/me", "").Status)

	// A notifier the operator lists whose binary is missing: the call is
	// timed with its outcome, and the plugin reported down.
	plugins, err := pluginhost.New([]pluginhost.Spec{{Name: "pager", Kind: pluginhost.KindNotifier, Binary: "no-such-binary"}},
		&pluginhost.Options{Dir: t.TempDir(), Metrics: a.metrics, BackoffMin: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() { _ = plugins.Close() })
	n, err := plugins.Notifier("pager")
	require.NoError(t, err)
	_, err = n.Capabilities(ctx)
	require.Error(t, err)

	require.NoError(t, observe(a.metrics, a.k, a.d, nil, plugins))
	families, err := a.metrics.Registry().Gather()
	require.NoError(t, err)

	t.Run("LabelsAreBounded", func(t *testing.T) {
		allowed := boundedLabels(t, a, []string{"pager"})
		ids := storedIDs(t, a)
		require.Empty(t, unbounded(families, allowed, ids))
		// The population was there to check.
		seen := labelValues(families)
		require.Subset(t, seen["tool"], a.k.Tools().Names(), "every tool was called and counted")
		require.NotContains(t, seen["tool"], "pact_code_web_tool", "an unknown tool's name is never a label")
		require.Contains(t, seen["outcome"], "invalid_request")
		require.NotContains(t, seen["outcome"], "error", "no call failed, a held one included")
		require.Contains(t, seen["operation"], "people-get-me")
		require.Subset(t, seen["status"], []string{"200", "401", "403"})
		require.Contains(t, seen["plugin"], "pager")
	})
	t.Run("GrafanaDashboard", func(t *testing.T) {
		exprs := dashboardQueries(t)
		require.NotEmpty(t, exprs)
		names := gatheredNames(families)
		for _, expr := range exprs {
			used := metricNames(expr)
			require.NotEmpty(t, used, "query %q names no metric", expr)
			for _, name := range used {
				require.True(t, names[name], "query %q names %s, which the registry does not gather", expr, name)
			}
		}
	})
}

// The label check fails for a label naming an agent, and for a bounded
// label whose value is an id.
func TestLabelCheckCatchesUnboundedLabels(t *testing.T) {
	reg := prometheus.NewRegistry()
	byAgent := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pact_by_agent_total", Help: "h"}, []string{"agent"})
	byTool := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "pact_by_tool_total", Help: "h"}, []string{"tool"})
	reg.MustRegister(byAgent, byTool)
	byAgent.WithLabelValues("code-web").Inc()
	byTool.WithLabelValues("code-web").Inc()
	families, err := reg.Gather()
	require.NoError(t, err)
	found := unbounded(families, map[string]func(family, value string) bool{
		"tool": func(_, v string) bool { return true }}, map[string]bool{"code-web": true})
	require.Len(t, found, 3, "%v", found)
	require.Contains(t, strings.Join(found, "\n"), `label "agent" is not on the allow-list`)
	require.Contains(t, strings.Join(found, "\n"), `"code-web" is the id of a stored row`)
}

// toolCalls is how many calls of tool the board counted, by any outcome
// but error.
func toolCalls(t *testing.T, a *adminBoard, tool string) float64 {
	families, err := a.metrics.Registry().Gather()
	require.NoError(t, err)
	n := 0.0
	for _, f := range families {
		if f.GetName() != "pact_tool_calls_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			require.NotEqual(t, "error", labels["outcome"], "%s: a call ended in error", labels["tool"])
			if labels["tool"] == tool {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// unbounded lists what breaks OBS-001 in families: a label not in
// allowed, a value its label's check refuses, a value that is a stored id.
func unbounded(families []*dto.MetricFamily, allowed map[string]func(family, value string) bool, ids map[string]bool) []string {
	var out []string
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				name, value := l.GetName(), l.GetValue()
				check, ok := allowed[name]
				switch {
				case !ok:
					out = append(out, fmt.Sprintf("%s: label %q is not on the allow-list", f.GetName(), name))
				case !check(f.GetName(), value):
					out = append(out, fmt.Sprintf("%s: %s=%q is not of the label's bounded set", f.GetName(), name, value))
				}
				if ids[value] {
					out = append(out, fmt.Sprintf("%s: %s=%q is the id of a stored row", f.GetName(), name, value))
				}
			}
		}
	}
	return out
}

// boundedLabels is the allow-list: each label a metric may carry and the
// set its values come from.
func boundedLabels(t *testing.T, a *adminBoard, plugins []string) map[string]func(family, value string) bool {
	in := func(set []string) func(string, string) bool {
		return func(_, v string) bool { return slices.Contains(set, v) }
	}
	outcomes := append(errorCodes(t), "ok", "error", "refused", "sent", "retry", "dead")
	status := regexp.MustCompile(`^[1-5][0-9][0-9]$`)
	method := regexp.MustCompile(`^(notifier|credential|authissuer)\.[A-Z][A-Za-z]{1,39}$`) // the SDK interfaces' methods
	return map[string]func(family, value string) bool{
		"tool":      in(a.k.Tools().Names()),
		"operation": in(operationIDs(t, a.k)),
		"outcome":   in(outcomes),
		"status":    func(_, v string) bool { return status.MatchString(v) },
		"plugin":    in(plugins),
		"kind":      in([]string{string(pluginhost.KindNotifier), string(pluginhost.KindCredential), string(pluginhost.KindAuthIssuer)}),
		"method":    func(_, v string) bool { return method.MatchString(v) },
		"version":   func(f, _ string) bool { return f == "go_info" }, // the Go runtime's version
	}
}

// errorCodes is the error codes docs/errors.md documents.
func errorCodes(t *testing.T) []string {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "errors.md"))
	require.NoError(t, err)
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(string(raw), -1) {
		out = append(out, m[1])
	}
	require.Contains(t, out, "invalid_request")
	return out
}

// operationIDs is every Admin API operation the kernel serves.
func operationIDs(t *testing.T, k *kernel.Kernel) []string {
	raw, err := json.Marshal(k.OpenAPI())
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	var out []string
	for _, ops := range doc.Paths {
		for _, op := range ops {
			out = append(out, op.OperationID)
		}
	}
	return out
}

// storedIDs is the id of every agent, person, project, task, organization
// and mandate the board holds.
func storedIDs(t *testing.T, a *adminBoard) map[string]bool {
	var ids []string
	err := a.d.NewRaw(`SELECT id::text FROM agents UNION SELECT id::text FROM humans UNION SELECT id::text FROM projects
		UNION SELECT id::text FROM tasks UNION SELECT id::text FROM orgs UNION SELECT id::text FROM mandates`).
		Scan(context.Background(), &ids)
	require.NoError(t, err)
	require.Contains(t, ids, "code-web")
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// labelValues is every value each label takes in families.
func labelValues(families []*dto.MetricFamily) map[string][]string {
	out := map[string][]string{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if !slices.Contains(out[l.GetName()], l.GetValue()) {
					out[l.GetName()] = append(out[l.GetName()], l.GetValue())
				}
			}
		}
	}
	return out
}

// gatheredNames is every series name a query may use: each family's name
// and, for a histogram or summary, its _bucket, _sum and _count series.
func gatheredNames(families []*dto.MetricFamily) map[string]bool {
	out := map[string]bool{}
	for _, f := range families {
		out[f.GetName()] = true
		if t := f.GetType(); t == dto.MetricType_HISTOGRAM || t == dto.MetricType_SUMMARY {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				out[f.GetName()+s] = true
			}
		}
	}
	return out
}

// dashboardQueries parses the dashboard and returns every query in it:
// each target's expr and each variable's definition.
func dashboardQueries(t *testing.T) []string {
	raw, err := os.ReadFile(dashboardFile)
	require.NoError(t, err)
	type panel struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
		Panels []json.RawMessage `json:"panels"`
	}
	var d struct {
		UID        string  `json:"uid"`
		Title      string  `json:"title"`
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	require.NoError(t, json.Unmarshal(raw, &d), "the dashboard is JSON")
	require.NotEmpty(t, d.UID)
	require.NotEmpty(t, d.Title)
	var out []string
	for _, v := range d.Templating.List {
		if v.Definition != "" { // a variable read from a metric's labels
			out = append(out, v.Definition)
		}
	}
	for _, p := range d.Panels {
		require.Empty(t, p.Panels, "panel %q nests panels (a collapsed row): keep them at the top level, where this test reads them", p.Title)
		for _, tg := range p.Targets {
			require.NotEmpty(t, tg.Expr, "panel %q has a target without a query", p.Title)
			out = append(out, tg.Expr)
		}
	}
	return out
}

// metricNames is the metrics a PromQL query names: its identifiers with
// the board's or the runtime's prefix (label names and functions have
// neither).
func metricNames(expr string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`\b(pact|go|process)_[a-zA-Z0-9_:]+`).FindAllString(expr, -1) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
