package pacts

// StuckSentences is stuckSentences, for the tests of package pacts_test.
var StuckSentences = stuckSentences
