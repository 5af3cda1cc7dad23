package console_test

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/outbox"
)

func logTo(level hclog.Level) (*logtest.Buffer, hclog.Logger) {
	logs := &logtest.Buffer{}
	return logs, hclog.New(&hclog.LoggerOptions{Output: logs, Level: level})
}

// The live streams' listener comes back when its database connection
// drops: the kernel restarts it, and the open streams carry events again.
func TestTheLiveListenerComesBackAfterItsConnectionDrops(t *testing.T) {
	b, s := streamBoard(t, true)
	live := s.Live(t)
	warm(t, b, live)
	var listeners []int
	require.NoError(t, b.DB.NewRaw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = ?`,
		"LISTEN "+outbox.Channel).Scan(context.Background(), &listeners))
	require.Len(t, listeners, 1, "the live streams' listener")
	b.Exec(`SELECT pg_terminate_backend(?)`, listeners[0])
	warm(t, b, live)
}

// A notification the listener hands to the streams logs no warning: the
// warning is for one it could not read.
func TestADeliveredNotificationLogsNoWarning(t *testing.T) {
	logs, logger := logTo(hclog.Warn)
	b, s := streamBoardWith(t, boardOptions{logger: logger})
	warm(t, b, s.Live(t))
	require.Empty(t, logs.Line("live stream: read a notification"))
}

// When a live stream ends because its standing failed, the log says why:
// for a bearer stream whose person was disabled, that the account is
// disabled, not that a console session ended.
func TestAnEndedLiveStreamsLogSaysWhy(t *testing.T) {
	logs, logger := logTo(hclog.Debug)
	b, s := streamBoardWith(t, boardOptions{logger: logger})
	live := openAs["bearer"](t, b, s)
	warm(t, b, live)
	personStops["disabled"](t, b, s)
	ended, _ := live.Ended(2 * time.Second)
	require.True(t, ended, "the live stream outlived the stop by 2 s")
	line := logs.Line("live stream ended: its standing failed")
	require.NotEmpty(t, line, "the end was not logged")
	require.Contains(t, line, "account is disabled")
}
