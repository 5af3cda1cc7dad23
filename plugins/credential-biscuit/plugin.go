package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// Format is the name this plugin exports under.
const Format = "biscuit"

// Plugin implements credential.Credential for Biscuit tokens. It holds no
// state: every key arrives with the request.
type Plugin struct{}

var _ credential.Credential = Plugin{}

// New returns the Biscuit credential plugin.
func New() Plugin { return Plugin{} }

// Format names the format.
func (Plugin) Format(context.Context) (string, error) { return Format, nil }

// Export mints one token for the chain: one block per ledger link, the
// authority block signed with the board's key. A chain that cannot be
// exported is errs.InvalidRequest whose message is the credential_note.
func (Plugin) Export(_ context.Context, r credential.ExportRequest) (*credential.Exported, error) {
	blocks, err := plan(r)
	if err != nil {
		return nil, err
	}
	if len(r.Key.Seed) != ed25519.SeedSize {
		return nil, errs.E(errs.InvalidRequest, "no biscuit credential: the board's signing key is not a 32-byte Ed25519 seed")
	}
	token, ids, err := mint(blocks, ed25519.NewKeyFromSeed(r.Key.Seed))
	if err != nil {
		return nil, errs.Wrap(err, "mint biscuit")
	}
	links := make(map[string][]string, len(blocks))
	for i, b := range blocks {
		links[b.linkID] = []string{hex.EncodeToString(ids[i])}
	}
	return &credential.Exported{
		Format:     Format,
		Field:      "biscuit",
		Credential: base64.URLEncoding.EncodeToString(token),
		ExternalID: hex.EncodeToString(ids[len(ids)-1]),
		LinkIDs:    links,
		ExpiresAt:  blocks[len(blocks)-1].expires,
	}, nil
}

// RevocationList signs the JSON revocation document.
func (Plugin) RevocationList(_ context.Context, r credential.RevocationRequest) (*credential.RevocationList, error) {
	body, err := signRevocations(r)
	if err != nil {
		return nil, err
	}
	return &credential.RevocationList{ContentType: "application/json", Body: body}, nil
}

// Import is not supported for Biscuit.
func (Plugin) Import(context.Context, credential.ImportRequest) (*credential.ImportedLink, error) {
	return nil, errs.E(errs.InvalidRequest, "importing Biscuit tokens is not supported yet")
}
