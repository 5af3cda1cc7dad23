package people

import (
	"context"
	"crypto/rand"
	"io"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/sdk/errs"
)

// Service is where every rule about the organization is decided: who may
// change a person, a project, the settings and kill switches; hiring,
// changing and stopping agents; roles and their secrets; setup codes;
// sign-up and invitations. The Admin operations, POST /connect and
// pact-admin's commands are adapters over its methods, and its store holds
// the SQL of the tables it owns. A write names the person acting (by) and
// goes through identity's Act, which checks their role again and logs it;
// a read takes the person already known to be signed in.
type Service struct {
	db       *db.DB
	log      *ledger.Log
	ident    *identity.Service
	mandates *mandate.Service
	boardURL string // how hired agents reach the board
	// What other modules own, asked through their seams
	// (docs/architecture.md, "Table ownership"), and the hook sign-up
	// publishes.
	facts      func() (seams.BoardFacts, error)
	keys       func() seams.AgentKeys
	slack      func() (seams.SlackWebhooks, error)
	orgCreated func(context.Context, bun.IDB, seams.OrgCreated) error
	rand       io.Reader // setup codes and sign-up's id suffixes
	// seal seals the secret settings of roles (rolesecrets.go).
	seal *seal.Box
}

// NewService returns a Service on the board's core services, for a
// program that registers agents without a kernel (the first run's demo
// agent, the fault harness). Its seams answer as on a board without the
// modules that provide them: no board facts, no keys, no Slack; a sign-up
// publishes to nobody. The module builds its own with the kernel's seams.
func NewService(d *db.DB, log *ledger.Log, ident *identity.Service, mandates *mandate.Service) *Service {
	none := errs.E(errs.Unavailable, "not on this board")
	return &Service{db: d, log: log, ident: ident, mandates: mandates, rand: rand.Reader,
		facts:      func() (seams.BoardFacts, error) { return nil, none },
		keys:       func() seams.AgentKeys { return seams.NoAgentKeys{} },
		slack:      func() (seams.SlackWebhooks, error) { return nil, none },
		orgCreated: func(context.Context, bun.IDB, seams.OrgCreated) error { return nil },
		seal:       seal.New(mandates.Keys())}
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func orEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}
