package main

import (
	"context"
	"crypto/ed25519"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/tenuo"
)

// Names of the format and of the claim result's field (docs/specs/behavior.md §12.1).
const (
	formatName = "tenuo"
	fieldName  = "warrant_stack"
)

// Arguments with a fixed meaning in every exported warrant: project is
// pinned by the scope and task_id is the one free argument.
const (
	argProject = "project"
	argTaskID  = "task_id"
)

// Tenuo plugin: stateless apart from its id source, so every method is
// safe to call concurrently.
type Tenuo struct {
	// newID mints warrant ids; tests replace it for deterministic output.
	newID func() ([16]byte, error)
}

// New returns the plugin with UUIDv7 warrant ids, Tenuo's default.
func New() *Tenuo {
	return &Tenuo{newID: func() ([16]byte, error) {
		u, err := uuid.NewV7()
		return u, err
	}}
}

// Format names the format.
func (*Tenuo) Format(context.Context) (string, error) { return formatName, nil }

// RevocationList signs a Tenuo SRL of the given warrant ids
// ("tnu_wrt_<hex>", the form Tenuo matches) with the board's key.
func (*Tenuo) RevocationList(_ context.Context, r credential.RevocationRequest) (*credential.RevocationList, error) {
	if r.Version < 0 {
		return nil, errs.E(errs.InvalidRequest, "revocation list version %d is negative", r.Version)
	}
	if len(r.Key.Seed) != ed25519.SeedSize {
		return nil, errs.E(errs.InvalidRequest, "the board's signing seed is not 32 bytes")
	}
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	body, err := tenuo.SignSRL(&tenuo.SRL{RevokedIDs: r.Revoked, Version: uint64(r.Version), IssuedAt: now}, r.Key.Seed)
	if err != nil {
		return nil, err
	}
	return &credential.RevocationList{ContentType: "application/octet-stream", Body: body}, nil
}

// scopePair is a board scope "<action>@project:<project>".
type scopePair struct{ action, project string }

// parseScope splits a board scope. Wildcard actions ("*" anywhere) and
// scopes that are not action@project are not exportable, because a Tenuo
// tool name is literal (the same rule as the Biscuit plugin).
func parseScope(s string) (scopePair, bool) {
	action, project, ok := strings.Cut(s, "@project:")
	if !ok || action == "" || strings.ContainsAny(action, "@*") || strings.IndexFunc(action, isSpace) >= 0 || !validSlug(project) {
		return scopePair{}, false
	}
	return scopePair{action, project}, true
}

func validSlug(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return p != ""
}

// isSpace matches the board's scope rules: Unicode white space plus the
// ASCII separators U+001C..U+001F.
func isSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }
