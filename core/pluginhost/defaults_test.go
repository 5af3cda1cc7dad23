package pluginhost

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// New fills in what Options leave out: the plugin directory made absolute
// (a plugin is found wherever the board's working directory moves), the
// call, start and health-check intervals, and the restart backoff.
func TestNewFillsInTheDefaults(t *testing.T) {
	h, err := New(nil, nil)
	require.NoError(t, err)
	want, err := filepath.Abs("bin/plugins")
	require.NoError(t, err)
	require.Equal(t, want, h.opts.Dir)
	require.Equal(t, 10*time.Second, h.opts.CallTimeout)
	require.Equal(t, 10*time.Second, h.opts.StartTimeout)
	require.Equal(t, 15*time.Second, h.opts.HealthInterval)
	require.Equal(t, time.Second, h.opts.BackoffMin)
	require.Equal(t, time.Minute, h.opts.BackoffMax)

	h, err = New(nil, &Options{Dir: "elsewhere", BackoffMin: 2 * time.Minute})
	require.NoError(t, err)
	require.True(t, filepath.IsAbs(h.opts.Dir), h.opts.Dir)
	require.Equal(t, 2*time.Minute, h.opts.BackoffMax, "never below the minimum")
}
