package identity

// StandsSQL is a SQL condition, true while the agent named by the SQL
// expression agent would pass Admit (it exists, is active and not
// replaced, and neither its organization's nor the platform's kill switch
// is on) and is a member of the project named by the SQL expression
// project. It is for a statement that must decide inside its own round
// trip, such as the pact feed's append queueing webhook sends
// (modules/pacts); a caller outside a statement uses Admit. Both
// arguments are SQL the caller writes, never input.
func StandsSQL(agent, project string) string {
	return `EXISTS (SELECT 1 FROM agents sa JOIN orgs so ON so.id = sa.org_id CROSS JOIN system_state ss
		JOIN agent_projects sp ON sp.agent_id = sa.id AND sp.project_id = ` + project + `
		WHERE sa.id = ` + agent + ` AND sa.status = 'active' AND sa.replaced_by IS NULL
		  AND NOT so.halted AND NOT ss.halted)`
}
