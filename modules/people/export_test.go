package people

import (
	"context"
	"io"

	"github.com/uptrace/bun"
)

// ResealRoleSettings runs what the reseal-role-settings worker runs at start.
func (m *Module) ResealRoleSettings(ctx context.Context) (int, error) {
	return m.svc.resealRoleSettings(ctx)
}

// NewWithRand is New drawing setup codes and sign-up's id suffixes from r.
func NewWithRand(r io.Reader) *Module {
	m := New()
	m.rand = r
	return m
}

// ReplaceRoleSettings is the resealing's write: settings over role id of
// org, if its settings still read as read (their text).
func ReplaceRoleSettings(ctx context.Context, d bun.IDB, org, id, read, settings string) (bool, error) {
	return replaceSettings(ctx, d, storedSettings{OrgID: org, ID: id, Read: read}, settings)
}
