package credentials_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/sdk/credential"
)

// Credential makes importer its own plugin host, for the Admin operation,
// which looks the plugin up by format.
func (i *importer) Credential(string) (credential.Credential, error) { return i, nil }

// importBoard is a board whose credential plugin imports link, with the
// code agent code-web of web and a trusted root standing for val that
// issued link.
func importBoard(t *testing.T) (*board, *importer) {
	t.Helper()
	root := bytes.Repeat([]byte{7}, 32)
	p := &importer{link: &credential.ImportedLink{Scope: []string{"task.work@project:web"},
		ExpiresAt: time.Now().Add(48 * time.Hour).UTC().Truncate(time.Microsecond), ExternalID: "tnu_wrt_9",
		IssuerPrincipal: root, MaxDelegations: 1}}
	b := build(t, nil, p)
	b.Agent("ana", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	_, err := b.mod.AddTrustedRoot(context.Background(), "ana", base64.RawURLEncoding.EncodeToString(root), "val", "")
	require.NoError(t, err)
	return b, p
}

// POST /agents/{agent_id}/credentials imports the credential as a root
// mandate and answers 201 with that mandate's id.
func TestAnImportOverTheAdminAPIAnswersTheRootItMade(t *testing.T) {
	b, _ := importBoard(t)
	got := b.Admin("val", http.MethodPost, "/agents/code-web/credentials", `{"format": "tenuo", "credential": "stack"}`)
	require.Equal(t, http.StatusCreated, got.Status, got.Raw)
	id, _ := got.Body["mandate_id"].(string)
	require.NotEmpty(t, id, got.Raw)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM mandates WHERE id = ? AND format = 'tenuo' AND holder = 'code-web'`, id))
}

// An import's log entry names the root it made: its mandate chain is that
// root, and its payload says which credential became which mandate.
func TestAnImportIsLoggedWithTheRootItMade(t *testing.T) {
	b, p := importBoard(t)
	m, err := b.mod.ImportCredential(context.Background(), "val", "code-web", "tenuo", "stack",
		func() (credential.Credential, error) { return p, nil })
	require.NoError(t, err)
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM entries e JOIN payloads p ON p.id = e.payload_ref
		WHERE e.action = 'admin.credential.import' AND e.outcome = 'ok' AND e.agent_id = 'code-web'
		AND e.mandate_chain = ARRAY[?::uuid] AND p.content->>'mandate_id' = ? AND p.content->>'external_id' = 'tnu_wrt_9'`,
		m.ID.String(), m.ID.String()))
}
