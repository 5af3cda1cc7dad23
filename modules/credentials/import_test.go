package credentials_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// importer is a credential plugin at the adapter boundary: it answers what
// the test says and records what the board asked. The real Tenuo import is
// tested in plugins/credential-tenuo.
type importer struct {
	link *credential.ImportedLink
	err  error
	got  credential.ImportRequest
}

func (i *importer) get() (credential.Credential, error) { return i, nil }

func (i *importer) Format(context.Context) (string, error) { return "tenuo", nil }
func (i *importer) Export(context.Context, credential.ExportRequest) (*credential.Exported, error) {
	return nil, errs.E(errs.InvalidRequest, "not used")
}
func (i *importer) RevocationList(context.Context, credential.RevocationRequest) (*credential.RevocationList, error) {
	return nil, errs.E(errs.InvalidRequest, "not used")
}
func (i *importer) Import(_ context.Context, r credential.ImportRequest) (*credential.ImportedLink, error) {
	i.got = r
	return i.link, i.err
}

func TestImportCredentialMakesARootThatAnswersToItsTrustedRoot(t *testing.T) {
	ctx := context.Background()
	f := newBoard(t)
	f.Project("ana", "prod", true)
	f.Agent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	root := bytes.Repeat([]byte{5}, 32)
	_, err := f.mod.AddTrustedRoot(ctx, "ana", base64.RawURLEncoding.EncodeToString(root), "val", "")
	require.NoError(t, err)
	link := &credential.ImportedLink{Scope: []string{"task.work@project:web"}, Limits: map[string]float64{"cost": 5},
		ExpiresAt: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Microsecond), ExternalID: "tnu_wrt_1", IssuerPrincipal: root, MaxDelegations: 5}
	p := &importer{link: link}

	_, err = f.mod.ImportCredential(ctx, "vic", "code-web", "tenuo", "stack", p.get)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err), "viewers do not import")
	m, err := f.mod.ImportCredential(ctx, "val", "code-web", "tenuo", "stack", p.get)
	require.NoError(t, err)
	require.Equal(t, "val", m.Issuer, "the issuer is the person the trusted root stands for")
	require.Equal(t, "tenuo", m.Format)
	require.Equal(t, 2, m.DelegationsLeft, "at most two delegations on the board")
	require.Len(t, p.got.TrustedRoots, 1)
	_, err = f.mod.ImportCredential(ctx, "val", "code-web", "tenuo", "stack", p.get)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "imported once")

	link2 := *link
	link2.ExternalID, link2.Scope = "tnu_wrt_2", []string{"task.work@project:prod"}
	_, err = f.mod.ImportCredential(ctx, "val", "code-web", "tenuo", "stack", (&importer{link: &link2}).get)
	require.Equal(t, errs.ProjectMismatch, errs.CodeOf(err))
	_, err = f.mod.ImportCredential(ctx, "val", "code-web", "tenuo", "stack", (&importer{err: errs.E(errs.ChainBroken, "untrusted")}).get)
	require.Equal(t, errs.ChainBroken, errs.CodeOf(err))
	_, err = f.mod.ImportCredential(ctx, "bo", "code-web", "tenuo", "stack", p.get)
	require.Equal(t, errs.NotFound, errs.CodeOf(err), "another organization's agent")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM mandates WHERE format = 'tenuo'`), "refusals import nothing")
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE action = 'admin.credential.import' AND outcome = 'ok'`))
}
