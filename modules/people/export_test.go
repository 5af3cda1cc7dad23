package people

import "context"

// ResealRoleSettings runs what the reseal-role-settings worker runs at start.
func (m *Module) ResealRoleSettings(ctx context.Context) (int, error) {
	return m.svc.resealRoleSettings(ctx)
}
