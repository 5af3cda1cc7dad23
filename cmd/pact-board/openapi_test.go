package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/auth/authtest"
	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/metrics"
)

var update = flag.Bool("update", false, "rewrite docs/openapi.json from the Admin API the board serves, and the console's screenshots in docs/console/")

// openAPIFile is the committed Admin API document.
var openAPIFile = filepath.Join("..", "..", "docs", "openapi.json")

// adminBoard is the board pact-board builds (boardModules) on the test
// harness, with people signing in through a real issuer.
type adminBoard struct {
	*kerneltest.World
	d     *db.DB
	ident *identity.Service
	iss   *authtest.Issuer
	cfg   *boot.Config
	k     *kernel.Kernel
	// metrics is the registry the board records into, as with
	// PACT_METRICS_ADDR, so every test on it (the round-trip budgets among
	// them) runs with metrics on.
	metrics *metrics.Metrics
}

func newAdminBoard(t testing.TB) *adminBoard {
	t.Helper()
	reg := metrics.New()
	w := kerneltest.New(t, kerneltest.Options{Metrics: reg, Modules: func(w *kerneltest.World) []kernel.Module {
		return boardModules(w.Mandates.Keys(), nil, nil, nil, 0)
	}})
	return &adminBoard{World: w, d: w.DB, ident: w.Identity, iss: w.Issuer, cfg: w.Config, k: w.Kernel, metrics: reg}
}

// servedDocument fetches /admin/api/openapi.json from base, indented as
// the committed file is.
func servedDocument(t *testing.T, base string) []byte {
	t.Helper()
	resp, err := http.Get(base + "/admin/api/openapi.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, json.Indent(&out, raw, "", "  "))
	out.WriteByte('\n')
	return out.Bytes()
}

// TestOpenAPIDocumentIsCommitted fails when docs/openapi.json is not what
// the board serves; go test ./cmd/pact-board -run OpenAPIDocumentIsCommitted
// -update rewrites it.
func TestOpenAPIDocumentIsCommitted(t *testing.T) {
	served := servedDocument(t, newAdminBoard(t).URL)
	if *update {
		require.NoError(t, os.WriteFile(openAPIFile, served, 0o644))
	}
	committed, err := os.ReadFile(openAPIFile)
	require.NoError(t, err)
	require.Equal(t, string(committed), string(served),
		"docs/openapi.json is stale: run go test ./cmd/pact-board -run OpenAPIDocumentIsCommitted -update")
}

// TestRealBoardServesOnlyCommittedOperations starts pact-board itself and
// requires every operation it serves to be in docs/openapi.json, so a
// module pact-board wires but the test board lacks fails here.
func TestRealBoardServesOnlyCommittedOperations(t *testing.T) {
	base, _, _ := startBoard(t, nil)
	served, committed := operations(t, servedDocument(t, base)), operations(t, mustRead(t, openAPIFile))
	for _, op := range served {
		require.Contains(t, committed, op, "pact-board serves %s, which docs/openapi.json lacks", op)
	}
}

// TestEveryGatedOperationStatesItsLeastRole walks docs/openapi.json: every
// operation that takes a bearer token states the least role its gate
// enforces (x-pact-least-role; "account" where any signed-in account will
// do), which clients such as the web console use to show no control the
// server would refuse.
func TestEveryGatedOperationStatesItsLeastRole(t *testing.T) {
	var d struct {
		Paths map[string]map[string]struct {
			OperationID string             `json:"operationId"`
			Security    []map[string][]any `json:"security"`
			LeastRole   string             `json:"x-pact-least-role"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(mustRead(t, openAPIFile), &d))
	gated := 0
	for path, methods := range d.Paths {
		for method, op := range methods {
			if len(op.Security) == 0 {
				require.Empty(t, op.LeastRole, "%s %s is public", method, path)
				continue
			}
			gated++
			require.Contains(t, []string{"viewer", "approver", "owner", "account"}, op.LeastRole, "%s %s (%s)", method, path, op.OperationID)
		}
	}
	require.Greater(t, gated, 50, "the document has its gated operations")
}

// document is the part of an OpenAPI document the tests walk.
type document struct {
	Paths map[string]map[string]struct {
		OperationID string `json:"operationId"`
		LeastRole   string `json:"x-pact-least-role"`
		Parameters  []struct {
			Name string `json:"name"`
			In   string `json:"in"`
		} `json:"parameters"`
		RequestBody *struct {
			Content map[string]struct {
				Schema struct {
					Ref string `json:"$ref"`
				} `json:"schema"`
			} `json:"content"`
		} `json:"requestBody"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]schema `json:"schemas"`
	} `json:"components"`
}

type schema struct {
	Type       any               `json:"type"`
	Properties map[string]schema `json:"properties"`
	Required   []string          `json:"required"`
	Enum       []any             `json:"enum"`
	Examples   []any             `json:"examples"`
}

func parse(t *testing.T, raw []byte) *document {
	t.Helper()
	var d document
	require.NoError(t, json.Unmarshal(raw, &d))
	return &d
}

func operations(t *testing.T, raw []byte) []string {
	var out []string
	for path, methods := range parse(t, raw).Paths {
		for method := range methods {
			out = append(out, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(out)
	return out
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return raw
}

// TestOpenAPIDocumentPassesRedoclyLint runs @redocly/cli (docs/lint, pinned
// by its package-lock.json) on docs/openapi.json. Node and npm are
// required: without them the test fails rather than skips.
func TestOpenAPIDocumentPassesRedoclyLint(t *testing.T) {
	dir := installNodePackage(t, filepath.Join("..", "..", "docs", "lint"), "pact-openapi-lint",
		filepath.Join("@redocly", "cli", "package.json"))
	doc, err := filepath.Abs(openAPIFile)
	require.NoError(t, err)
	config, err := filepath.Abs(filepath.Join("..", "..", "docs", "lint", "redocly.yaml"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), lintTimeout)
	defer cancel()
	out, err := nodeCommand(ctx, dir, filepath.Join("node_modules", "@redocly", "cli", "bin", "cli.js"),
		"lint", "--config", config, doc).CombinedOutput()
	require.NoError(t, err, "redocly lint docs/openapi.json:\n%s", out)
	t.Logf("%s", out)
}
