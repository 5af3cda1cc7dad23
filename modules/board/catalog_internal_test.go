package board

import (
	"testing"

	"github.com/pactboard/pact/core/i18n/i18ntest"
)

// Every language holds every message this module names (its msgID
// constants), and nothing else.
func TestEveryMessageIsInEveryLanguage(t *testing.T) {
	i18ntest.RequireComplete(t, mustCatalog(), ".", "msgID")
}
