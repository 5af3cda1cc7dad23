package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/kernel"
)

// A channel that a stop must reach (SEC-025) is registered only whole: a
// name, an audience with stops, a summary, once; and it may exempt only a
// stop of its audience, giving the reason. The registered ones are listed
// as registered.
func TestAChannelIsRegisteredOnlyWhole(t *testing.T) {
	good := kernel.Channel{Name: "feed", Audience: kernel.AgentAudience, Summary: "the agent's feed",
		Exempt: map[kernel.Stop]string{kernel.StopRevokeLink: "it acts under its root mandate only"}}
	k := kernel.New(kernel.Deps{})
	var refusals []string
	require.NoError(t, k.Register(moduleFunc{"feeds", func(h *kernel.Host) error {
		require.NoError(t, h.Channel(good))
		for _, bad := range []kernel.Channel{
			{Audience: kernel.AgentAudience, Summary: "no name"},
			{Name: "nobody", Audience: "robots", Summary: "an audience with no stops"},
			{Name: "quiet", Audience: kernel.PersonAudience},
			good,
			{Name: "stranger", Audience: kernel.PersonAudience, Summary: "exempts an agent's stop",
				Exempt: map[kernel.Stop]string{kernel.StopPause: "people are not paused"}},
			{Name: "reasonless", Audience: kernel.AgentAudience, Summary: "exempts without a reason",
				Exempt: map[kernel.Stop]string{kernel.StopPause: ""}},
		} {
			err := h.Channel(bad)
			require.Error(t, err, "%+v", bad)
			refusals = append(refusals, err.Error())
		}
		return nil
	}}))
	require.Equal(t, []string{
		`kernel: channel "" needs a name, an audience and a summary`,
		`kernel: channel "nobody" needs a name, an audience and a summary`,
		`kernel: channel "quiet" needs a name, an audience and a summary`,
		`kernel: channel "feed" is registered twice`,
		`kernel: channel "stranger" exempts "pause", which is no stop of its audience or has no reason`,
		`kernel: channel "reasonless" exempts "pause", which is no stop of its audience or has no reason`,
	}, refusals)
	require.Equal(t, []kernel.Channel{good}, k.Channels())
	require.False(t, good.Applies(kernel.StopRevokeLink), "an exempt stop does not apply")
	require.True(t, good.Applies(kernel.StopPause))
	require.False(t, good.Applies(kernel.StopSignOut), "a person's stop does not apply to an agent's channel")
}
