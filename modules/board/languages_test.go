package board_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

// The details the board writes itself (not an agent's words) are in the
// organization's language: English by default, Thai once it chooses Thai,
// and the message cap still tells the people once when the language
// changes in between. An agent's own words are never translated.
func TestBoardWrittenDetailsFollowTheOrganizationsLanguage(t *testing.T) {
	w := newWorld(t)
	detail := func(kind, task string) []string {
		var out []string
		require.NoError(t, w.DB.NewRaw(`SELECT detail FROM notifications WHERE kind = ? AND task_id = ?::uuid ORDER BY id`,
			kind, task).Scan(t.Context(), &out))
		return out
	}
	post := func() string {
		out := w.OK("code-web", "pact_post", map[string]any{"project_id": "web", "title": "Summarise",
			"mandate_id": w.Root("code-web"), "delegate_to": "chat-web"})
		return out["task_id"].(string)
	}
	en := post()
	require.Equal(t, []string{"chat-web (chat) starts it only when someone opens it"}, detail("awaiting_session", en))

	// Ten agent messages, the language changes, then the cap: told once,
	// in Thai.
	chatty := w.post("code-web", "web", "Chatty", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": chatty, "mandate_id": w.Root("gemini-web")})
	for i := range 10 {
		from := []string{"gemini-web", "code-web"}[i%2]
		w.OK(from, "pact_message", map[string]any{"task_id": chatty, "mandate_id": w.Root(from), "body": "ping"})
	}
	w.Exec(`UPDATE orgs SET language = 'th' WHERE id = 'default'`)
	th := post()
	require.Equal(t, []string{"chat-web (chat) จะเริ่มงานนี้เมื่อมีคนเปิด session เท่านั้น"}, detail("awaiting_session", th))
	for range 2 {
		w.Refused(errs.LimitExceeded, "code-web", "pact_message", map[string]any{"task_id": chatty, "mandate_id": w.Root("code-web"), "body": "more"})
	}
	require.Equal(t, []string{"agent ส่งข้อความกันครบ 10 ข้อความในงานนี้แล้ว ให้คนตัดสิน"}, detail("question", chatty))
	w.Exec(`UPDATE orgs SET language = 'en' WHERE id = 'default'`)
	w.Refused(errs.LimitExceeded, "code-web", "pact_message", map[string]any{"task_id": chatty, "mandate_id": w.Root("code-web"), "body": "more"})
	require.Len(t, detail("question", chatty), 1, "a notice in another language still counts: the people are told once")

	// input_required without a question: the task records "input required",
	// the people read it in Thai; a question of the agent's stays its own.
	w.Exec(`UPDATE orgs SET language = 'th' WHERE id = 'default'`)
	ask := w.post("code-web", "web", "Ask", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": ask, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": ask, "status": "input_required", "mandate_id": w.Root("gemini-web")})
	require.Equal(t, []string{"ต้องการข้อมูลเพิ่ม"}, detail("question", ask))
	asked := w.post("code-web", "web", "Asked", nil)
	w.OK("gemini-web", "pact_claim", map[string]any{"task_id": asked, "mandate_id": w.Root("gemini-web")})
	w.OK("gemini-web", "pact_report", map[string]any{"task_id": asked, "status": "input_required", "mandate_id": w.Root("gemini-web"),
		"result": "Postgres or SQLite?"})
	require.Equal(t, []string{"Postgres or SQLite?"}, detail("question", asked))
}
