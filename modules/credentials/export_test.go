package credentials_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/modules/credentials"
	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// exportRefuser is a credential plugin whose every export fails with err.
type exportRefuser struct {
	keyRecorder
	err error
}

func (r *exportRefuser) Credential(string) (credential.Credential, error) { return r, nil }
func (r *exportRefuser) Export(context.Context, credential.ExportRequest) (*credential.Exported, error) {
	return nil, r.err
}

// ttlRecorder is a credential plugin that records the TTL each export is
// asked for.
type ttlRecorder struct {
	keyRecorder
	ttls []time.Duration
}

func (r *ttlRecorder) Credential(string) (credential.Credential, error) { return r, nil }
func (r *ttlRecorder) Export(ctx context.Context, req credential.ExportRequest) (*credential.Exported, error) {
	r.ttls = append(r.ttls, req.TTL)
	return r.keyRecorder.Export(ctx, req)
}

// claimAnswer gives code-web a key and publishes a claim of its root on f,
// returning the claim's answer.
func claimAnswer(t *testing.T, f *board) map[string]any {
	t.Helper()
	ctx := context.Background()
	_, err := f.mod.AddAgentKey(ctx, "ana", "code-web", pubKeyText("code-web"))
	require.NoError(t, err)
	out := map[string]any{}
	require.NoError(t, f.DB.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		publishClaim(t, f.Kernel, ctx, tx, seams.Claimed{AgentID: "code-web", MandateID: f.Root("code-web")}, out)
		return nil
	}))
	return out
}

// A plugin's invalid_request is its reason no credential can be issued
// (sdk/credential: its message is the credential_note), so the note is that
// message alone; any other failure is the board's trouble and the note says
// the credential could not be issued, and why.
func TestAnExportThePluginRefusesIsNotedInThePluginsWords(t *testing.T) {
	refused := claimAnswer(t, setup(t, map[string]string{"PACT_EXPORT_FORMAT": "biscuit"},
		&exportRefuser{err: errs.E(errs.InvalidRequest, "the chain is too deep for a biscuit")}))
	require.Equal(t, map[string]any{"credential_note": "the chain is too deep for a biscuit"}, refused)

	failed := claimAnswer(t, setup(t, map[string]string{"PACT_EXPORT_FORMAT": "biscuit"},
		&exportRefuser{err: errs.E(errs.Unavailable, "the biscuit plugin is restarting")}))
	require.Equal(t, map[string]any{"credential_note": "the biscuit credential could not be issued: the biscuit plugin is restarting"}, failed)
}

// PACT_EXPORT_TTL_HOURS caps what a claim exports: the plugin is asked for
// that lifetime, not the 24 hours the board takes without one.
func TestClaimsExportForTheConfiguredTTL(t *testing.T) {
	rec := &ttlRecorder{}
	f := setup(t, map[string]string{"PACT_EXPORT_FORMAT": "biscuit", "PACT_EXPORT_TTL_HOURS": "2"}, rec)
	require.NotNil(t, claimAnswer(t, f)["credential"])
	require.Equal(t, []time.Duration{2 * time.Hour}, rec.ttls)
}

// A configuration with no export TTL exports for a day. boot.Load always
// sets one (at least a minute), but kernel.Deps takes any *boot.Config, and
// one built by hand leaves ExportTTL zero: zeroing the World's before the
// module registers stands for that.
func TestAConfigWithoutAnExportTTLExportsForADay(t *testing.T) {
	rec := &ttlRecorder{}
	f := &board{}
	f.World = kerneltest.New(t, kerneltest.Options{Env: map[string]string{"PACT_EXPORT_FORMAT": "biscuit"}, NoMCP: true,
		Modules: func(w *kerneltest.World) []kernel.Module {
			w.Config.ExportTTL = 0
			f.mod = credentials.New(credentials.Options{Plugins: rec, Keys: w.Mandates.Keys()})
			return []kernel.Module{f.mod}
		}})
	f.Person("", "ana", identity.Owner)
	f.Project("ana", "web", false)
	f.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NotNil(t, claimAnswer(t, f)["credential"])
	require.Equal(t, []time.Duration{24 * time.Hour}, rec.ttls)
}
