package people_test

import (
	"context"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/core/seams"
)

// standIn provides, over the real database, what the board and notify
// modules provide a running board through the kernel (tests of a module
// never import another): open task counts, Slack webhooks sealed in orgs,
// and a record of the organizations sign-up created.
type standIn struct {
	mu      sync.Mutex
	created []string
	box     *seal.Box
	ident   *identity.Service
}

func (s *standIn) Name() string { return "standin" }

func (s *standIn) Register(h *kernel.Host) error {
	s.box, s.ident = seal.New(h.Mandates().Keys()), h.Identity()
	if err := kernel.Provide(h, seams.SlackWebhooksSeam, seams.SlackWebhooks(s)); err != nil {
		return err
	}
	if err := kernel.Subscribe(h, seams.OrgCreatedHook, func(_ context.Context, _ bun.IDB, e seams.OrgCreated) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.created = append(s.created, e.OrgID)
		return nil
	}); err != nil {
		return err
	}
	return kernel.Provide(h, seams.BoardFactsSeam, seams.BoardFacts(s))
}

func (s *standIn) orgsCreated() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.created...)
}

func (s *standIn) OpenTaskCounts(ctx context.Context, tx bun.IDB, ps []string) (map[string]int, error) {
	var rows []struct {
		ProjectID string `bun:"project_id"`
		N         int    `bun:"n"`
	}
	err := tx.NewRaw(`SELECT project_id, count(*) AS n FROM tasks WHERE project_id = ANY(?::text[])
		AND task_status_is_open(status) GROUP BY project_id`, pgdialect.Array(ps)).Scan(ctx, &rows)
	out := map[string]int{}
	for _, r := range rows {
		out[r.ProjectID] = r.N
	}
	return out, err
}

func (s *standIn) SetSlackWebhook(ctx context.Context, tx bun.IDB, org, url string) error {
	var sealed *string
	if url != "" {
		v, err := s.box.Seal(url, "orgs.slack_webhook_url/"+org)
		if err != nil {
			return err
		}
		sealed = &v
	}
	_, err := s.ident.SetOrgSecret(ctx, tx, org, "slack_webhook_url", sealed, nil)
	return err
}

func (s *standIn) SlackHint(ctx context.Context, tx bun.IDB, org string) (*string, error) {
	var sealed []string
	err := tx.NewRaw(`SELECT coalesce(slack_webhook_url, '') FROM orgs WHERE id = ?`, org).Scan(ctx, &sealed)
	if err != nil || len(sealed) == 0 || sealed[0] == "" {
		return nil, err
	}
	u, err := s.box.Open(sealed[0], "orgs.slack_webhook_url/"+org)
	if err != nil {
		return nil, err
	}
	hint := "…" + u[len(u)-4:]
	return &hint, nil
}
