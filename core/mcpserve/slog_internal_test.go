package mcpserve

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
)

// The SDK's slog levels map onto the board's: errors and warnings keep
// theirs, from each bound up; info and below are debug (per-request
// bookkeeping in stateless mode).
func TestTheSDKsLevelsMapOntoTheBoards(t *testing.T) {
	for level, want := range map[slog.Level]hclog.Level{
		slog.LevelError + 4: hclog.Error, slog.LevelError: hclog.Error, slog.LevelError - 1: hclog.Warn,
		slog.LevelWarn: hclog.Warn, slog.LevelWarn - 1: hclog.Debug, slog.LevelInfo: hclog.Debug, slog.LevelDebug: hclog.Debug,
	} {
		require.Equal(t, want, hclogLevel(level), "slog level %d", level)
	}
}

// The SDK's lines reach the board's logger under "sdk", at the board's
// level or above only, with their attributes, a group's named after it.
func TestTheSDKLogsThroughTheBoardsLogger(t *testing.T) {
	var out bytes.Buffer
	l := slogger(hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Warn}))
	ctx := context.Background()
	require.True(t, l.Enabled(ctx, slog.LevelWarn), "a warning passes a board logging warnings")
	require.True(t, l.Enabled(ctx, slog.LevelError))
	require.False(t, l.Enabled(ctx, slog.LevelInfo), "info is debug here, below the board's level")
	l.Info("session opened")
	require.Empty(t, out.String())
	l.With("agent", "code-web").WithGroup("req").Warn("slow client", "ms", 1200)
	line := out.String()
	require.Contains(t, line, "[WARN]  sdk: slow client")
	require.Contains(t, line, "agent=code-web")
	require.Contains(t, line, "req.ms=1200")

	out.Reset()
	debug := slogger(hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Debug}))
	require.True(t, debug.Enabled(ctx, slog.LevelInfo), "a board logging debug takes the SDK's info")
	debug.Info("session opened", "id", "s-1")
	require.Contains(t, out.String(), "[DEBUG] sdk: session opened: id=s-1")
}
