package kernel_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/sdk/authissuer"
	"github.com/pactboard/pact/sdk/errs"
)

// verifying is an authenticator that can also check a token alone.
type verifying struct{ authFunc }

func (verifying) Verify(_ context.Context, a string) (*authissuer.Identity, error) {
	if a == "Bearer new" {
		return &authissuer.Identity{Issuer: "https://id", Subject: "new"}, nil
	}
	return nil, errs.E(errs.Unauthorized, "bad token")
}

func verifierOf(t *testing.T, auth kernel.AdminAuthenticator) kernel.AdminVerifier {
	t.Helper()
	var v kernel.AdminVerifier
	require.NoError(t, kernel.New(kernel.Deps{AdminAuth: auth}).Register(moduleFunc{"v", func(h *kernel.Host) error {
		v = h.AdminVerifier()
		return nil
	}}))
	return v
}

func TestAdminVerifier(t *testing.T) {
	ctx := context.Background()
	id, err := verifierOf(t, verifying{people}).Verify(ctx, "Bearer new")
	require.NoError(t, err)
	require.Equal(t, "new", id.Subject, "the board's authenticator checks the token")
	_, err = verifierOf(t, verifying{people}).Verify(ctx, "Bearer x")
	require.Equal(t, errs.Unauthorized, errs.CodeOf(err))

	for name, auth := range map[string]kernel.AdminAuthenticator{"none": nil, "authenticate only": people} {
		t.Run(name, func(t *testing.T) {
			_, err := verifierOf(t, auth).Verify(ctx, "Bearer new")
			require.Equal(t, errs.Unauthorized, errs.CodeOf(err))
			require.ErrorContains(t, err, "OAuth is not configured")
		})
	}
	var _ kernel.AdminAuthenticator = verifying{}
}
