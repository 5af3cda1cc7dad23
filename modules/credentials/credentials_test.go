package credentials_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/pactboard/pact/core/kernel/kerneltest"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// noPlugins is a plugin host with no credential plugin configured.
type noPlugins struct{}

func (noPlugins) Credential(name string) (credential.Credential, error) {
	return nil, errs.E(errs.NotFound, "no plugin named %q", name)
}

// setup is build's board with the code agent code-web of web.
func setup(t *testing.T, env map[string]string, plugins credentials.Plugins) *board {
	b := build(t, env, plugins)
	b.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	return b
}

// Revoking a link puts every credential id minted for it and its subtree on
// its format's list and bumps that list's version, in the same transaction.
func TestRevokingALinkPublishesEveryIDMintedThroughIt(t *testing.T) {
	ctx := context.Background()
	f := setup(t, nil, noPlugins{})
	root, err := f.Mandates.Get(ctx, f.DB, f.Root("code-web"))
	require.NoError(t, err)
	var child *mandate.Mandate
	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		child, err = f.Mandates.IssueChild(ctx, tx, mandate.Chain{root}, mandate.ChildInput{Holder: "code-web", Scope: []string{"task.read@project:web"}})
		return err
	}))
	// Links as an export records them, in two formats at once: a board
	// exports in one format, so no service makes this state.
	f.Exec(`INSERT INTO credential_links (format, external_id, mandate_id) VALUES
		('tenuo', 'w-root', ?), ('tenuo', 'w-child', ?), ('biscuit', 'b-child', ?)`, root.ID, child.ID, child.ID)

	// A revocation that rolls back publishes nothing.
	err = f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := f.Mandates.RevokeSubtree(ctx, tx, child.ID); err != nil {
			return err
		}
		return errs.E(errs.InvalidRequest, "changed my mind")
	})
	require.Error(t, err)
	require.Zero(t, f.Count(`SELECT count(*) FROM credential_revocations`))

	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := f.Mandates.RevokeSubtree(ctx, tx, child.ID)
		return err
	}))
	require.Equal(t, 2, f.Count(`SELECT count(*) FROM credential_revocations WHERE external_id IN ('w-child', 'b-child')`))
	require.Equal(t, 1, f.Count(`SELECT version FROM credential_revocation_version WHERE format = 'tenuo'`))
	require.Equal(t, 1, f.Count(`SELECT version FROM credential_revocation_version WHERE format = 'biscuit'`))

	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := f.Mandates.RevokeSubtree(ctx, tx, root.ID)
		return err
	}))
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM credential_revocations`), "the root's id joins; the child's stay once")
	require.Equal(t, 2, f.Count(`SELECT version FROM credential_revocation_version WHERE format = 'tenuo'`))
	require.Equal(t, 1, f.Count(`SELECT version FROM credential_revocation_version WHERE format = 'biscuit'`), "nothing new for biscuit")
}

// CRED-002: revoking a parent of the links credentials were minted through,
// and nothing below it, publishes the ids of its whole subtree: a child's
// and a grandchild's, not only its own.
func TestRevokingAParentPublishesItsSubtree(t *testing.T) {
	ctx := context.Background()
	f := setup(t, nil, noPlugins{})
	root, err := f.Mandates.Get(ctx, f.DB, f.Root("code-web"))
	require.NoError(t, err)
	var child, grandchild *mandate.Mandate
	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
		child, err = f.Mandates.IssueChild(ctx, tx, mandate.Chain{root}, mandate.ChildInput{Holder: "code-web",
			Scope: []string{"task.read@project:web", "task.post@project:web"}})
		if err != nil {
			return err
		}
		grandchild, err = f.Mandates.IssueChild(ctx, tx, mandate.Chain{root, child}, mandate.ChildInput{Holder: "code-web",
			Scope: []string{"task.read@project:web"}})
		return err
	}))
	f.Exec(`INSERT INTO credential_links (format, external_id, mandate_id) VALUES
		('tenuo', 'w-child', ?), ('tenuo', 'w-grandchild', ?), ('biscuit', 'b-grandchild', ?)`, child.ID, grandchild.ID, grandchild.ID)

	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := f.Mandates.RevokeSubtree(ctx, tx, root.ID)
		return err
	}))
	require.Equal(t, 3, f.Count(`SELECT count(*) FROM credential_revocations
		WHERE external_id IN ('w-child', 'w-grandchild', 'b-grandchild')`), "every id minted below the revoked root")
	require.Equal(t, 1, f.Count(`SELECT version FROM credential_revocation_version WHERE format = 'tenuo'`))
	require.Equal(t, 1, f.Count(`SELECT version FROM credential_revocation_version WHERE format = 'biscuit'`))
}

func TestRevocationListRoutes(t *testing.T) {
	f := setup(t, nil, noPlugins{})
	get := func(path string) (int, map[string]any) {
		resp, err := http.Get(f.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		var body map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		return resp.StatusCode, body
	}
	status, body := get("/.well-known/pact-revocations/x509")
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, "no revocation list for format 'x509'", body["message"])
	status, body = get("/.well-known/pact-revocations/tenuo")
	require.Equal(t, http.StatusServiceUnavailable, status, "no tenuo plugin is configured")
	require.Equal(t, "unavailable", body["error"])
}

// With an export format set, a claim says why it carries no credential
// when none can be issued — and the claim itself stands.
func TestClaimsSayWhyNoCredentialWasIssued(t *testing.T) {
	ctx := context.Background()
	f := setup(t, map[string]string{"PACT_EXPORT_FORMAT": "biscuit"}, noPlugins{})
	claimed := seams.Claimed{AgentID: "code-web", MandateID: f.Root("code-web")}
	run := func() map[string]any {
		out := map[string]any{}
		require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			publishClaim(t, f.Kernel, ctx, tx, claimed, out)
			_, err := tx.ExecContext(ctx, `SELECT 1`) // the claim's transaction is still usable
			return err
		}))
		return out
	}
	require.Contains(t, run()["credential_note"], "has no registered key")
	_, err := f.mod.AddAgentKey(ctx, "ana", "code-web", pubKeyText("code-web"))
	require.NoError(t, err)
	require.Contains(t, run()["credential_note"], "no credential plugin named biscuit")
}

// linkBreaker is a credential plugin whose export names a link that is no
// mandate, so recording its outside ids fails inside the claim's transaction.
type linkBreaker struct{ keyRecorder }

func (b *linkBreaker) Credential(string) (credential.Credential, error) { return b, nil }
func (b *linkBreaker) Export(ctx context.Context, r credential.ExportRequest) (*credential.Exported, error) {
	e, err := b.keyRecorder.Export(ctx, r)
	if err != nil {
		return nil, err
	}
	e.LinkIDs = map[string][]string{"not-a-mandate": {"x"}}
	return e, nil
}

// CRED-003: an export whose statement fails inside the claim's transaction
// is rolled back alone: the transaction stays usable and commits what the
// claim wrote before it, and the answer says no credential was issued.
func TestAFailedExportLeavesTheClaimToCommit(t *testing.T) {
	ctx := context.Background()
	f := setup(t, map[string]string{"PACT_EXPORT_FORMAT": "biscuit"}, &linkBreaker{})
	_, err := f.mod.AddAgentKey(ctx, "ana", "code-web", pubKeyText("code-web"))
	require.NoError(t, err)
	out := map[string]any{}
	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		// What the claim wrote before its hooks ran (a row this module owns).
		if _, err := tx.ExecContext(ctx, `INSERT INTO credential_links (format, external_id, mandate_id)
			VALUES ('tenuo', 'the-claim', ?)`, f.Root("code-web")); err != nil {
			return err
		}
		publishClaim(t, f.Kernel, ctx, tx, seams.Claimed{AgentID: "code-web", MandateID: f.Root("code-web")}, out)
		_, err := tx.ExecContext(ctx, `SELECT 1`) // the claim's transaction is still usable
		return err
	}))
	require.Equal(t, map[string]any{"credential_note": "the board could not issue a credential; the claim stands"}, out)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM credential_links WHERE external_id = 'the-claim'`), "the claim committed")
	require.Zero(t, f.Count(`SELECT count(*) FROM credential_links WHERE external_id = 'x'`), "the export rolled back")
}

// With no export format, a claim carries nothing of credentials: no
// credential and no note (docs/specs/behavior.md §13, test_credential_conformance).
func TestClaimsCarryNothingWithoutAnExportFormat(t *testing.T) {
	f := setup(t, nil, noPlugins{})
	out := claimAnswer(t, f)
	require.Empty(t, out)
}

// keyRecorder is a credential plugin that records the holder key of each
// export it is asked for.
type keyRecorder struct{ got [][]byte }

func (k *keyRecorder) Credential(string) (credential.Credential, error) { return k, nil }
func (k *keyRecorder) Format(context.Context) (string, error)           { return "biscuit", nil }
func (k *keyRecorder) Export(_ context.Context, r credential.ExportRequest) (*credential.Exported, error) {
	k.got = append(k.got, r.HolderKey)
	return &credential.Exported{Format: "biscuit", Field: "biscuit", Credential: "c", ExternalID: "x"}, nil
}
func (k *keyRecorder) RevocationList(context.Context, credential.RevocationRequest) (*credential.RevocationList, error) {
	return nil, errs.E(errs.InvalidRequest, "not used")
}
func (k *keyRecorder) Import(context.Context, credential.ImportRequest) (*credential.ImportedLink, error) {
	return nil, errs.E(errs.InvalidRequest, "not used")
}

// A claim's credential is held by the agent's newest live key; revoking it
// falls back to the one before (docs/specs/behavior.md §13, test_credentials).
func TestTheNewestLiveKeyHoldsTheCredential(t *testing.T) {
	ctx := context.Background()
	rec := &keyRecorder{}
	f := setup(t, map[string]string{"PACT_EXPORT_FORMAT": "biscuit"}, rec)
	claim := func() []byte {
		out := map[string]any{}
		require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			publishClaim(t, f.Kernel, ctx, tx, seams.Claimed{AgentID: "code-web", MandateID: f.Root("code-web")}, out)
			return nil
		}))
		require.NotNil(t, out["credential"], "%v", out)
		return rec.got[len(rec.got)-1]
	}
	first, firstRaw := pubKey("first")
	second, secondRaw := pubKey("second")
	_, err := f.mod.AddAgentKey(ctx, "ana", "code-web", first)
	require.NoError(t, err)
	require.Equal(t, firstRaw, claim())
	added, err := f.mod.AddAgentKey(ctx, "ana", "code-web", second)
	require.NoError(t, err)
	require.Equal(t, secondRaw, claim(), "the newest key")
	n, err := f.mod.RevokeAgentKey(ctx, "ana", "code-web", added.KID)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	require.Equal(t, firstRaw, claim(), "revoking it falls back")
}

// publishClaim publishes seams.ClaimedHook as the board does on a claim,
// with out as the claim's answer.
func publishClaim(t *testing.T, k *kernel.Kernel, ctx context.Context, tx bun.IDB, c seams.Claimed, out map[string]any) {
	t.Helper()
	c.Answer = out
	require.NoError(t, kernel.Publisher(k, seams.ClaimedHook)(ctx, tx, c))
}
