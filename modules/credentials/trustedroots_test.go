package credentials_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// pact-admin's trusted-roots lists the roots of the acting person's
// organization, for any role; it needs someone named as acting.
func TestTrustedRootsForListsThePersonsOrganizationsRoots(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	withAgents(t, b)
	_, acmeRoot := withKeys(t, b)
	ours := pubKeyText("org-ca")
	_, err := b.mod.AddTrustedRoot(ctx, "ana", ours, "val", "Our CA")
	require.NoError(t, err)

	roots, err := b.mod.CLI().TrustedRoots(ctx, "vic")
	require.NoError(t, err)
	require.Len(t, roots, 1, "acme's root is not default's")
	require.Equal(t, ours, roots[0].Principal)
	require.Equal(t, "val", roots[0].Human)
	roots, err = b.mod.CLI().TrustedRoots(ctx, "bo")
	require.NoError(t, err)
	require.Len(t, roots, 1)
	require.Equal(t, acmeRoot, roots[0].Principal)

	_, err = b.mod.CLI().TrustedRoots(ctx, "")
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	require.Contains(t, err.Error(), "--by <human-id>")
}

// A label is at most 200 characters, counted after trimming: 200 pass
// (whatever their bytes), 201 are refused.
func TestATrustedRootLabelIsAtMost200Characters(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	longest := strings.Repeat("é", 200) // 400 bytes
	added, err := b.mod.AddTrustedRoot(ctx, "ana", pubKeyText("at-most"), "val", "  "+longest+"  ")
	require.NoError(t, err)
	require.Equal(t, longest, *added.Label)

	_, err = b.mod.AddTrustedRoot(ctx, "ana", pubKeyText("too-long"), "val", longest+"x")
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Contains(t, err.Error(), "a label is at most 200 characters")
	require.Equal(t, 1, b.Count(`SELECT count(*) FROM trusted_roots`))
}
