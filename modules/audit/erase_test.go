package audit_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

func TestErasePayloadStaysInTheOrganization(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t)
	id := int64(b.Count(`SELECT max(id) FROM entries WHERE org_id = 'default'`))
	_, err := b.mod.ErasePayload(ctx, "bo", id)
	require.Equal(t, errs.NotFound, errs.CodeOf(err))
	_, err = b.mod.ErasePayload(ctx, "val", id)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	erased, err := b.mod.ErasePayload(ctx, "ana", id)
	require.NoError(t, err)
	require.True(t, erased)
	vs, err := b.Log.VerifyOrg(ctx, b.DB, "default", nil)
	require.NoError(t, err)
	for _, v := range vs {
		require.True(t, v.OK, v.Reason)
	}
}
