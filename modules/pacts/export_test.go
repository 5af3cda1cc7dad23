package pacts

// StuckSentences is stuckSentences, for the tests of package pacts_test.
var StuckSentences = stuckSentences

// StreamReads is how often agent's pact streams have read the feed in this
// process.
func (m *Module) StreamReads(agent string) int { return m.dlv.streams.readsOf(agent) }
