package credentials_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/modules/credentials"
)

// pubKey is a well-formed Ed25519 public key (32 bytes) named by seed.
func pubKey(seed string) (text string, raw []byte) {
	sum := sha256.Sum256([]byte(seed))
	return base64.RawURLEncoding.EncodeToString(sum[:]), sum[:]
}

// withKeys adds to withAgents' board, as bo, acme's key for rocket-bot and
// acme's trusted root for bo, and returns them.
func withKeys(t *testing.T, b *board) (acmeKey, acmeRoot string) {
	t.Helper()
	ctx := context.Background()
	acmeKey, acmeRoot = pubKeyText("acme-key"), pubKeyText("acme-root")
	_, err := b.mod.AddAgentKey(ctx, "bo", "rocket-bot", acmeKey)
	require.NoError(t, err)
	_, err = b.mod.AddTrustedRoot(ctx, "bo", acmeRoot, "bo", "")
	require.NoError(t, err)
	return acmeKey, acmeRoot
}

func TestKeyAndTrustedRootOperationsForEachRole(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	root, _ := pubKey("root-ana")
	_, err := b.mod.AddTrustedRoot(context.Background(), "ana", root, "ana", "")
	require.NoError(t, err)
	_, raw := pubKey("key-val")
	roles := kerneltest.Staff()
	ops := []struct {
		method, path string
		body         func(as string) string
		min          identity.Role
	}{
		{"GET", "/agents/reg-web/keys", nil, identity.Viewer},
		{"POST", "/agents/reg-web/keys", func(as string) string { k, _ := pubKey("key-" + as); return `{"public_key": "` + k + `"}` }, identity.Approver},
		{"DELETE", "/agents/reg-web/keys/" + credentials.KeyID(raw), nil, identity.Approver},
		{"GET", "/trusted-roots", nil, identity.Viewer},
		{"POST", "/trusted-roots", func(as string) string {
			k, _ := pubKey("root-" + as + "-2")
			return `{"public_key": "` + k + `", "human": "val", "label": "Acme CA"}`
		}, identity.Owner},
		{"DELETE", "/trusted-roots/" + root, nil, identity.Owner},
		{"GET", "/credentials/status", nil, identity.Viewer},
	}
	for _, o := range ops {
		for _, r := range roles {
			t.Run(o.method+o.path+"/"+string(r.Role), func(t *testing.T) {
				body := ""
				if o.body != nil {
					body = o.body(r.ID)
				}
				got := b.Admin(r.ID, o.method, o.path, body)
				require.Equal(t, "no-store", got.Header.Get("Cache-Control"))
				if r.Role.AtLeast(o.min) {
					require.Equal(t, 200, got.Status, got.Raw)
					return
				}
				kerneltest.RequireBelowRole(t, got, r, o.min)
			})
		}
	}
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_keys WHERE agent_id = 'reg-web' AND revoked_at IS NOT NULL`), "val's key, revoked by val")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_keys WHERE agent_id = 'reg-web' AND revoked_at IS NULL`), "ana's key")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM trusted_roots WHERE revoked_at IS NOT NULL`))
}

func TestAgentKeys(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	acmeKey, _ := withKeys(t, b)
	b.Agent("ana", kerneltest.AgentInput{ID: "chat-web", Client: "chat", Projects: []string{"web"}})
	key, raw := pubKey("reg-web")
	sum := sha256.Sum256(raw)
	kid := base64.RawURLEncoding.EncodeToString(sum[:])[:16]

	got := b.Admin("val", "POST", "/agents/reg-web/keys", `{"public_key": "`+key+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"agent_id": "reg-web", "kid": kid}, got.Body)
	list := b.Admin("vic", "GET", "/agents/reg-web/keys", "")
	require.Equal(t, 200, list.Status, list.Raw)
	keys := list.Body["keys"].([]any)
	require.Len(t, keys, 1)
	k := keys[0].(map[string]any)
	require.Equal(t, kid, k["kid"])
	require.Equal(t, base64.StdEncoding.EncodeToString(raw), k["public_key_b64"])
	require.Equal(t, "val", k["created_by"])
	require.Nil(t, k["revoked_at"])
	// The people module's agent list counts these same rows as keys
	// (cmd/pact-board's end-to-end tests serve both modules).
	liveKeys := func() float64 {
		return float64(b.Count(`SELECT count(*) FROM agent_keys WHERE agent_id = 'reg-web' AND revoked_at IS NULL`))
	}
	require.Equal(t, 1.0, liveKeys())

	for _, tc := range []struct {
		name, agent, key string
		status           int
		says             string
	}{
		{"OneKeyOneAgent", "hired-web", key, 400, "this public key is already registered for reg-web"},
		{"PaddedSameKey", "hired-web", key + "=", 400, "this public key is already registered for reg-web"},
		{"ChatHoldsNoKeys", "chat-web", pubKeyText("chat"), 400, "chat agents do not hold keys; only code, runner do"},
		{"NotBase64", "hired-web", "not a key!", 400, credentials.BadPublicKey},
		{"StdBase64", "hired-web", base64.StdEncoding.EncodeToString(append([]byte{0xfb, 0xff}, raw[2:]...)), 400, credentials.BadPublicKey},
		{"Short", "hired-web", base64.RawURLEncoding.EncodeToString(raw[:31]), 400, credentials.BadPublicKey},
		{"Long", "hired-web", base64.RawURLEncoding.EncodeToString(append(raw, 1)), 400, credentials.BadPublicKey},
		{"Empty", "hired-web", "", 400, credentials.BadPublicKey},
		{"MissingAgent", "no-bot", pubKeyText("x"), 404, "agent no-bot does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.Admin("val", "POST", "/agents/"+tc.agent+"/keys", `{"public_key": "`+tc.key+`"}`)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, tc.says, got.Body["message"], got.Raw)
		})
	}
	got = b.Admin("val", "POST", "/agents/hired-web/keys", `{"public_key": "`+strings.Repeat("A", 101)+`"}`)
	require.Equal(t, 422, got.Status, got.Raw)
	got = b.Admin("val", "POST", "/agents/hired-web/keys", `{"public_key": "`+key+`", "kid": "x"}`)
	require.Equal(t, 422, got.Status, "unknown fields are refused")
	require.Equal(t, 422, b.Admin("val", "DELETE", "/agents/reg-web/keys/short", "").Status, "kid shape")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_keys WHERE agent_id <> 'rocket-bot'`), "nothing half-written")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent_key.add' AND outcome = 'ok' AND actor = 'human:val'`))
	require.Equal(t, 9, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent_key.add' AND outcome <> 'ok'`))

	// Keys are unique per organization: acme's key is no concern of
	// default's, and is taken like a fresh one (docs/security.md, finding 9).
	got = b.Admin("val", "POST", "/agents/hired-web/keys", `{"public_key": "`+acmeKey+`"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_keys WHERE agent_id = 'rocket-bot' AND public_key = ?`, mustRaw(acmeKey)))

	got = b.Admin("val", "DELETE", "/agents/reg-web/keys/"+kid, "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"revoked": 1.0}, got.Body)
	require.Equal(t, 0.0, b.Admin("val", "DELETE", "/agents/reg-web/keys/"+kid, "").Body["revoked"], "already revoked")
	require.Equal(t, 0.0, b.Admin("val", "DELETE", "/agents/reg-web/keys/AAAAAAAAAAAAAAAA", "").Body["revoked"], "no such kid")
	require.Equal(t, 0.0, liveKeys())
	require.NotNil(t, b.Admin("vic", "GET", "/agents/reg-web/keys", "").Body["keys"].([]any)[0].(map[string]any)["revoked_at"])
	require.Equal(t, 3, b.Count(`SELECT count(*) FROM entries WHERE action = 'admin.agent_key.revoke' AND outcome = 'ok' AND agent_id = 'reg-web'`))
	got = b.Admin("val", "POST", "/agents/hired-web/keys", `{"public_key": "`+key+`"}`)
	require.Equal(t, 400, got.Status, "a revoked key stays its agent's: one key, one agent")

	// Another organization's agent answers like a missing one.
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/agents/%s/keys", ""},
		{"POST", "/agents/%s/keys", `{"public_key": "` + pubKeyText("y") + `"}`},
		{"DELETE", "/agents/%s/keys/" + credentials.KeyID(mustRaw(acmeKey)), ""},
	} {
		other := b.Admin("ana", tc.method, fmt.Sprintf(tc.path, "rocket-bot"), tc.body)
		missing := b.Admin("ana", tc.method, fmt.Sprintf(tc.path, "no-bot"), tc.body)
		require.Equal(t, http.StatusNotFound, other.Status, other.Raw)
		require.Equal(t, strings.ReplaceAll(missing.Raw, "no-bot", "?"), strings.ReplaceAll(other.Raw, "rocket-bot", "?"))
	}
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM agent_keys WHERE agent_id = 'rocket-bot' AND revoked_at IS NULL`))
}

func pubKeyText(seed string) string { k, _ := pubKey(seed); return k }

func mustRaw(key string) []byte {
	raw, err := credentials.ParsePublicKey(key)
	if err != nil {
		panic(err)
	}
	return raw
}

func TestTrustedRoots(t *testing.T) {
	b := newBoard(t)
	withAgents(t, b)
	_, acmeRoot := withKeys(t, b)
	key := pubKeyText("org-ca")

	got := b.Admin("ana", "POST", "/trusted-roots", `{"public_key": "`+key+`", "human": "val", "label": "Our CA"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"principal": key, "human": "val", "label": "Our CA", "reactivated": false}, got.Body)
	got = b.Admin("vic", "GET", "/trusted-roots", "")
	require.Equal(t, 200, got.Status, got.Raw)
	roots := got.Body["trusted_roots"].([]any)
	require.Len(t, roots, 1, "acme's root is not listed here")
	r := roots[0].(map[string]any)
	require.Equal(t, key, r["principal"])
	require.Equal(t, "ana", r["created_by"])
	require.Nil(t, r["revoked_at"])
	firstActive := r["active_since"]

	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"Live", `{"public_key": "` + key + `", "human": "ana"}`, 400, "this key is already a trusted root of this organization"},
		{"HumanOfAnotherOrg", `{"public_key": "` + pubKeyText("z") + `", "human": "bo"}`, 404, "human bo does not exist"},
		{"MissingHuman", `{"public_key": "` + pubKeyText("z") + `", "human": "nobody"}`, 404, "human nobody does not exist"},
		{"BadKey", `{"public_key": "abc", "human": "ana"}`, 400, credentials.BadPublicKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.Admin("ana", "POST", "/trusted-roots", tc.body)
			require.Equal(t, tc.status, got.Status, got.Raw)
			require.Equal(t, tc.says, got.Body["message"])
		})
	}
	require.Equal(t, 422, b.Admin("ana", "POST", "/trusted-roots", `{"public_key": "`+key+`"}`).Status, "human is required")
	require.Equal(t, 422, b.Admin("ana", "DELETE", "/trusted-roots/short", "").Status, "principal shape")
	require.Equal(t, 2, b.Count(`SELECT count(*) FROM trusted_roots`))

	// Revoke, then add again: reactivated from now on, for another person.
	got = b.Admin("ana", "DELETE", "/trusted-roots/"+key, "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"revoked": 1.0}, got.Body)
	require.Equal(t, 0.0, b.Admin("ana", "DELETE", "/trusted-roots/"+key, "").Body["revoked"], "already revoked")
	require.NotNil(t, b.Admin("vic", "GET", "/trusted-roots", "").Body["trusted_roots"].([]any)[0].(map[string]any)["revoked_at"])
	got = b.Admin("ana", "POST", "/trusted-roots", `{"public_key": "`+key+`", "human": "vic"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"principal": key, "human": "vic", "label": nil, "reactivated": true}, got.Body)
	r = b.Admin("vic", "GET", "/trusted-roots", "").Body["trusted_roots"].([]any)[0].(map[string]any)
	require.Nil(t, r["revoked_at"])
	require.Equal(t, "vic", r["human"])
	require.NotEqual(t, firstActive, r["active_since"])
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM trusted_roots WHERE active_since > created_at AND org_id = 'default'`))
	for action, n := range map[string]int{"admin.trusted_root.add": 1, "admin.trusted_root.reactivate": 1, "admin.trusted_root.revoke": 2} {
		require.Equal(t, n, b.Count(`SELECT count(*) FROM entries WHERE action = ? AND outcome = 'ok' AND actor = 'human:ana'`, action), action)
	}

	// acme's root answers like a missing one, and stays live.
	other := b.Admin("ana", "DELETE", "/trusted-roots/"+acmeRoot, "")
	missing := pubKeyText("missing")
	miss := b.Admin("ana", "DELETE", "/trusted-roots/"+missing, "")
	require.Equal(t, http.StatusNotFound, other.Status, other.Raw)
	require.Equal(t, strings.ReplaceAll(miss.Raw, missing, "?"), strings.ReplaceAll(other.Raw, acmeRoot, "?"))
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM trusted_roots WHERE org_id = 'acme' AND revoked_at IS NULL`))

	// Roots are unique per organization: default may trust acme's key too,
	// answered like a fresh one, and revoking it here leaves acme's live
	// (docs/security.md, finding 9).
	got = b.Admin("ana", "POST", "/trusted-roots", `{"public_key": "`+acmeRoot+`", "human": "ana"}`)
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, false, got.Body["reactivated"])
	got = b.Admin("ana", "DELETE", "/trusted-roots/"+acmeRoot, "")
	require.Equal(t, map[string]any{"revoked": 1.0}, got.Body, got.Raw)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM trusted_roots WHERE org_id = 'acme' AND revoked_at IS NULL`))
}

func TestCredentialsStatus(t *testing.T) {
	b := newBoard(t)
	got := b.Admin("vic", "GET", "/credentials/status", "")
	require.Equal(t, 200, got.Status, got.Raw)
	require.Equal(t, map[string]any{"export_format": nil, "formats": []any{
		map[string]any{"format": "tenuo", "version": 0.0, "revoked_count": 0.0, "published_path": "/.well-known/pact-revocations/tenuo"},
		map[string]any{"format": "biscuit", "version": 0.0, "revoked_count": 0.0, "published_path": "/.well-known/pact-revocations/biscuit"},
	}}, got.Body)
	// Published ids, one already expired, and a version bumped past them:
	// no service publishes an id that has already expired.
	b.Exec(`
		INSERT INTO credential_revocations (external_id, format, expires_at) VALUES
			('t1', 'tenuo', now() + interval '1 day'), ('t2', 'tenuo', now() - interval '1 second'), ('b1', 'biscuit', now() + interval '1 day');
		UPDATE credential_revocation_version SET version = version + 2 WHERE format = 'tenuo';`)
	f := b.Admin("ana", "GET", "/credentials/status", "").Body["formats"].([]any)
	require.Equal(t, []any{2.0, 1.0}, []any{f[0].(map[string]any)["version"], f[0].(map[string]any)["revoked_count"]}, "expired ids drop off")
	require.Equal(t, 1.0, f[1].(map[string]any)["revoked_count"])
}
