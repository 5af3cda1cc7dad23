package pacts

// StuckSentences is stuckSentences, for the tests of package pacts_test.
var StuckSentences = stuckSentences

// StreamReads is how often agent's pact streams have read the feed in this
// process.
func (m *Module) StreamReads(agent string) int { return m.dlv.streams.readsOf(agent) }

// ToolWrites is whether toolWrites classifies a call of tool name with a
// body as a write.
func ToolWrites(name string) bool {
	w, _ := toolWrites(name, []byte(`{"body":""}`))
	return w
}

// ToolWritesWithoutABody is whether toolWrites classifies a call of tool
// name without a body as a write.
func ToolWritesWithoutABody(name string) bool {
	w, _ := toolWrites(name, []byte(`{"task_id":"t"}`))
	return w
}
