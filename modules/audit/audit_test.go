package audit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/audit"
)

func TestMain(m *testing.M) { kerneltest.Main(m) }

// board is the audit module on kerneltest's World: ana (owner), val
// (approver) and vic (viewer) of organization default with the one project
// web (its chains are _system and web), the agent code-web, one refused project add by vic, and
// organization acme of bo with its project rocket. People sign in with MFA
// required (the default).
type board struct {
	*kerneltest.World
	mod *audit.Module
	// acmeEntry is an entry of acme's.
	acmeEntry int64
}

func newBoard(t *testing.T) *board {
	t.Helper()
	ctx := context.Background()
	mod := audit.New()
	b := &board{World: kerneltest.New(t, kerneltest.Options{NoMCP: true}, mod), mod: mod}
	b.Person("", "ana", identity.Owner)
	b.Person("ana", "val", identity.Approver)
	b.Person("ana", "vic", identity.Viewer)
	b.Project("ana", "web", false)
	b.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	_, err := b.Identity.AddProject(ctx, "vic", "nope", "Nope", false)
	require.Error(t, err, "a refusal, logged")

	b.Org("acme", "bo")
	b.Project("bo", "rocket", false)
	b.acmeEntry = int64(b.Count(`SELECT max(id) FROM entries WHERE org_id = 'acme'`))
	return b
}

// entries lists GET /entries?query as vic and returns the entries.
func (b *board) entries(t *testing.T, query string) []map[string]any {
	t.Helper()
	got := b.Admin("vic", "GET", "/entries?"+query, "")
	require.Equal(t, 200, got.Status, got.Raw)
	var out []map[string]any
	for _, e := range got.Body["entries"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

func TestListEntries(t *testing.T) {
	b := newBoard(t)
	all := b.entries(t, "")
	require.Equal(t, b.Count(`SELECT count(*) FROM entries WHERE org_id = 'default'`), len(all), "only the caller's organization")
	for i := 1; i < len(all); i++ {
		require.Greater(t, all[i-1]["id"], all[i]["id"], "newest first")
	}
	for _, e := range all {
		require.NotEqual(t, "bo", strings.TrimPrefix(e["actor"].(string), "human:"))
		require.Equal(t, false, e["payload_erased"])
		require.NotNil(t, e["payload"])
	}

	web := b.entries(t, "project=web")
	require.NotEmpty(t, web)
	for _, e := range web {
		require.Equal(t, "web", e["project_id"])
	}
	reg := b.entries(t, "action=admin.agent.register")
	require.Len(t, reg, 1)
	require.Equal(t, "code-web", reg[0]["agent_id"])
	require.Len(t, b.entries(t, "agent=code-web"), len(b.entries(t, "agent=code-web&limit=500")))
	for _, e := range b.entries(t, "agent=code-web") {
		require.Equal(t, "code-web", e["agent_id"])
	}
	refused := b.entries(t, "refused=1")
	require.Len(t, refused, 1)
	require.Equal(t, "forbidden", refused[0]["outcome"])
	require.Len(t, b.entries(t, "outcome=forbidden"), 1)
	require.Len(t, b.entries(t, "limit=2"), 2)
	older := b.entries(t, fmt.Sprintf("before=%v", all[1]["id"]))
	require.Len(t, older, len(all)-2)
	require.Empty(t, b.entries(t, "task=33333333-3333-4333-8333-333333333333"))
	require.Empty(t, b.entries(t, "project=rocket"), "acme's project reads as empty")

	hourAgo, inAnHour := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	require.Len(t, b.entries(t, "from="+url.QueryEscape(hourAgo.Format(time.RFC3339))), len(all))
	require.Empty(t, b.entries(t, "from="+url.QueryEscape(inAnHour.Format(time.RFC3339))))
	require.Empty(t, b.entries(t, "to="+url.QueryEscape(hourAgo.Format(time.RFC3339))))
	plus := hourAgo.In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05") + "+02:00"
	require.Len(t, b.entries(t, "from="+plus), len(all), "an unescaped + arrives as a space and reads as +")
}

func TestListEntriesBadInput(t *testing.T) {
	b := newBoard(t)
	for _, tc := range []struct {
		query  string
		status int
	}{
		{"from=2026-01-01T00:00:00", http.StatusBadRequest},
		{"to=2026-01-01", http.StatusBadRequest},
		{"from=yesterday", http.StatusBadRequest},
		{"task=not-a-task", http.StatusBadRequest},
		{"limit=501", http.StatusUnprocessableEntity},
		{"limit=100000000000000000000", http.StatusUnprocessableEntity},
		{"limit=0", http.StatusUnprocessableEntity},
		{"before=x", http.StatusUnprocessableEntity},
		{"refused=maybe", http.StatusUnprocessableEntity},
	} {
		t.Run(tc.query, func(t *testing.T) {
			got := b.Admin("vic", "GET", "/entries?"+tc.query, "")
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, "invalid_request", got.Body["error"], got.Raw)
		})
	}
}

func TestEraseEntry(t *testing.T) {
	b := newBoard(t)
	id := b.entries(t, "action=admin.project.add")[0]["id"]
	path := fmt.Sprintf("/entries/%v/erase", id)
	got := b.Admin("ana", "POST", path, "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.JSONEq(t, `{"erased": true}`, got.Raw)
	e := b.entries(t, "action=admin.project.add")[0]
	require.Equal(t, true, e["payload_erased"])
	require.Nil(t, e["payload"])
	require.JSONEq(t, `{"erased": false}`, b.Admin("ana", "POST", path, "").Raw, "erased before")
	require.Equal(t, 2, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.payload.erase' AND outcome = 'ok'`), "each erasure is logged")

	got = b.Admin("ana", "GET", "/log/verify", "")
	require.Equal(t, 200, got.Status, got.Raw)
	for _, v := range got.Body["verdicts"].([]any) {
		require.Equal(t, true, v.(map[string]any)["ok"], "an erased payload still verifies")
	}

	other := b.Admin("ana", "POST", fmt.Sprintf("/entries/%d/erase", b.acmeEntry), "")
	missing := b.Admin("ana", "POST", "/entries/900000000/erase", "")
	require.Equal(t, http.StatusNotFound, other.Status, other.Raw)
	require.Equal(t, strings.ReplaceAll(missing.Raw, "900000000", "?"), strings.ReplaceAll(other.Raw, fmt.Sprint(b.acmeEntry), "?"))
	require.Equal(t, 0, b.Count(`SELECT count(*) FROM payloads p JOIN entries e ON e.payload_ref = p.id
		WHERE e.org_id = 'acme' AND p.erased_at IS NOT NULL`), "acme's payloads stay")

	for _, bad := range []string{"/entries/0/erase", "/entries/x/erase", "/entries/-3/erase"} {
		got := b.Admin("ana", "POST", bad, "")
		require.Equal(t, http.StatusUnprocessableEntity, got.Status, got.Raw)
		require.Equal(t, "invalid_request", got.Body["error"])
	}
}

func TestVerifyLog(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("vic", "GET", "/log/verify", "")
	require.Equal(t, 200, got.Status, got.Raw)
	var keys []string
	for _, v := range got.Body["verdicts"].([]any) {
		v := v.(map[string]any)
		keys = append(keys, v["chain_key"].(string))
		require.Equal(t, true, v["ok"])
		require.Positive(t, v["checked"])
	}
	require.Equal(t, []string{"_system", "web"}, keys, "the organization's chains, not acme's")

	b.Exec(`UPDATE entry_chain_heads SET last_hash = repeat('f', 64) WHERE chain_key = 'web'`)
	got = b.Admin("vic", "GET", "/log/verify", "")
	web := got.Body["verdicts"].([]any)[1].(map[string]any)
	require.Equal(t, false, web["ok"])
	require.Contains(t, web["reason"], "chain head does not match")
}

// A client verifies chain by chain to show its progress: GET /log/chains
// lists the organization's chains with their sizes, and ?chain= verifies
// one; another organization's chain answers as one that does not exist.
func TestVerifyChainByChain(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("vic", "GET", "/log/chains", "")
	require.Equal(t, 200, got.Status, got.Raw)
	chains := got.Body["chains"].([]any)
	require.Len(t, chains, 2, got.Raw)
	var total float64
	for i, key := range []string{"_system", "web"} {
		c := chains[i].(map[string]any)
		require.Equal(t, key, c["chain_key"])
		require.EqualValues(t, b.Count(`SELECT count(*) FROM entries WHERE chain_key = ?`, key), c["entries"])
		total += c["entries"].(float64)

		one := b.Admin("vic", "GET", "/log/verify?chain="+key, "")
		require.Equal(t, 200, one.Status, one.Raw)
		verdicts := one.Body["verdicts"].([]any)
		require.Len(t, verdicts, 1)
		v := verdicts[0].(map[string]any)
		require.Equal(t, key, v["chain_key"])
		require.Equal(t, true, v["ok"])
		require.Equal(t, c["entries"], v["checked"], "the size listed is what verifying checks")
	}
	require.EqualValues(t, b.Count(`SELECT count(*) FROM entries WHERE org_id = 'default'`), total)

	b.Exec(`UPDATE entry_chain_heads SET last_hash = repeat('f', 64) WHERE chain_key = 'web'`)
	one := b.Admin("vic", "GET", "/log/verify?chain=web", "")
	require.Equal(t, false, one.Body["verdicts"].([]any)[0].(map[string]any)["ok"])

	for _, foreign := range []string{"rocket", "nope"} {
		got := b.Admin("vic", "GET", "/log/verify?chain="+foreign, "")
		require.Equal(t, http.StatusNotFound, got.Status, got.Raw)
		require.Equal(t, "not_found", got.Body["error"])
		require.Equal(t, "chain "+foreign+" is not one of this organization's chains (GET /log/chains lists them)", got.Body["message"])
	}
}

// TestEveryOperationForEachRole calls every audit operation as each role.
func TestEveryOperationForEachRole(t *testing.T) {
	b := newBoard(t)
	ids := b.entries(t, "limit=3")
	ops := []struct {
		method, path string
		min          identity.Role
	}{
		{"GET", "/entries", identity.Viewer},
		{"GET", "/log/verify", identity.Viewer},
		{"GET", "/log/chains", identity.Viewer},
		{"POST", "/entries/%v/erase", identity.Owner},
	}
	for i, r := range []struct {
		id   string
		role identity.Role
	}{{"vic", identity.Viewer}, {"val", identity.Approver}, {"ana", identity.Owner}} {
		for _, o := range ops {
			path := o.path
			if strings.Contains(path, "%v") {
				path = fmt.Sprintf(path, ids[i]["id"])
			}
			t.Run(o.method+path+"/"+string(r.role), func(t *testing.T) {
				got := b.Admin(r.id, o.method, path, "")
				if r.role.AtLeast(o.min) {
					require.Equal(t, 200, got.Status, got.Raw)
					return
				}
				require.Equal(t, http.StatusForbidden, got.Status, got.Raw)
				require.Equal(t, map[string]any{"error": "forbidden",
					"message": fmt.Sprintf("%s is %s; this needs %s", r.id, r.role, o.min)}, got.Body)
			})
		}
	}
}
