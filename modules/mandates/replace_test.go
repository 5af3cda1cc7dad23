package mandates_test

import (
	"context"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/modules/mandates"
	"github.com/pactboard/pact/sdk/errs"
)

func TestReplaceMandateNeedsALiveRootOfTheOrganization(t *testing.T) {
	ctx := context.Background()
	f := withPeople(t)
	reg, err := f.RegisterAgent("val", kerneltest.AgentInput{ID: "code-web", Client: "code", Projects: []string{"web"}})
	require.NoError(t, err)
	old := reg.RootMandateID.String()
	in := mandates.ReplaceInput{Scope: []string{"task.read@project:web"}}

	_, err = f.svc.ReplaceMandate(ctx, "vic", old, in)
	require.Equal(t, errs.Forbidden, errs.CodeOf(err))
	_, foreign := f.svc.ReplaceMandate(ctx, "bo", old, in)
	missingID := uuid.NewString()
	_, missing := f.svc.ReplaceMandate(ctx, "bo", missingID, in)
	requireAnswersLikeMissing(t, foreign, old, missing, missingID)
	_, err = f.svc.ReplaceMandate(ctx, "val", old, mandates.ReplaceInput{Scope: []string{"task.read@project:prod"}})
	require.Equal(t, errs.ProjectMismatch, errs.CodeOf(err))
	_, err = f.svc.ReplaceMandate(ctx, "val", old, mandates.ReplaceInput{Scope: in.Scope, Days: 400})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	_, err = f.svc.ReplaceMandate(ctx, "val", old, mandates.ReplaceInput{Scope: in.Scope, Delegations: ptr(6)})
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM mandates WHERE holder = 'code-web'`), "refusals issue nothing")

	r, err := f.svc.ReplaceMandate(ctx, "val", old, in)
	require.NoError(t, err)
	require.Equal(t, old, r.Replaced.String())
	require.False(t, r.Revoked)
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM agents WHERE id = 'code-web' AND root_mandate_id = ?`, r.MandateID))
	require.Equal(t, 1, f.Count(`SELECT count(*) FROM entries WHERE action = 'admin.mandate.replace' AND outcome = 'ok'
		AND agent_id = 'code-web'`))

	f.now = f.now.Add(31 * 24 * time.Hour)
	_, err = f.svc.ReplaceMandate(ctx, "val", old, in)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "an expired root is not live")
	require.Contains(t, err.Error(), "is not a live root mandate")
}
