package outbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/outbox"
)

// A title, a detail or a brief exactly at its limit is kept whole; one
// character more is cut to the limit, ending with "…".
func TestTextAtItsLimitIsKeptWholeAndOneMoreIsCut(t *testing.T) {
	ctx := context.Background()
	d, _ := pending(t)
	stored := func(n outbox.Notification) (title, detail string) {
		t.Helper()
		id := enqueue(t, d, n)
		require.NoError(t, d.NewRaw(`SELECT title, detail FROM notifications WHERE id = ?`, id).Scan(ctx, &title, &detail))
		return title, detail
	}
	for _, c := range []struct {
		kind        outbox.Kind
		detailLimit int
		titleRune   string
		detailRune  string
	}{{outbox.Question, outbox.MaxDetail, "é", "ß"}, {outbox.Brief, outbox.MaxBrief, "a", "ü"}} {
		title, detail := strings.Repeat(c.titleRune, outbox.MaxTitle), strings.Repeat(c.detailRune, c.detailLimit)
		gotTitle, gotDetail := stored(outbox.Notification{Kind: c.kind, ProjectID: "web", Title: title, Detail: detail})
		require.Equal(t, title, gotTitle, "%s: a title of %d characters", c.kind, outbox.MaxTitle)
		require.Equal(t, detail, gotDetail, "%s: a detail of %d characters", c.kind, c.detailLimit)

		gotTitle, gotDetail = stored(outbox.Notification{Kind: c.kind, ProjectID: "web", Title: title + "x",
			Detail: detail + "x"})
		require.Equal(t, strings.Repeat(c.titleRune, outbox.MaxTitle-1)+"…", gotTitle, c.kind)
		require.Equal(t, strings.Repeat(c.detailRune, c.detailLimit-1)+"…", gotDetail, c.kind)
	}
}
