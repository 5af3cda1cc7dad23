package people

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

type updateMeIn struct {
	Body struct {
		Language clearable `json:"language,omitempty" doc:"en or th; null follows the organization's language"`
	}
}

// SetMyLanguage sets the acting person's own language (a tag of
// i18n.Languages), or clears it when lang is nil so they follow their
// organization's. Anyone signed in may choose their own. Refusals:
// forbidden; invalid_request (a language the board does not speak).
func (m *Module) SetMyLanguage(ctx context.Context, by string, lang *string) (*Me, error) {
	var out *Me
	err := m.identity.Act(ctx, by, identity.Viewer, "admin.me.update", map[string]any{"language": lang},
		func(ctx context.Context, tx bun.Tx, p *identity.Person, e *ledger.Entry) error {
			np, err := m.identity.SetHumanLanguage(ctx, tx, p.ID, lang)
			if err != nil {
				return err
			}
			o, err := m.identity.GetOrg(ctx, tx, p.OrgID)
			if err != nil {
				return err
			}
			me := meOf(np, o)
			out = &me
			return nil
		})
	return out, err
}

func (m *Module) updateMe(ctx context.Context, in *updateMeIn) (*meOut, error) {
	p, err := kernel.SignedIn(ctx)
	if err != nil {
		return nil, err
	}
	if !in.Body.Language.set {
		return nil, errs.E(errs.InvalidRequest, "name something to change: language")
	}
	var lang *string
	if in.Body.Language.value != "" {
		lang = &in.Body.Language.value
	}
	me, err := m.SetMyLanguage(ctx, p.ID, lang)
	if err != nil {
		return nil, err
	}
	return &meOut{Body: *me}, nil
}
