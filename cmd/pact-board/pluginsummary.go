package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/pluginhost"
)

// pluginSummary tells the person who ran make run which plugins the board
// runs and which variable turns on each first-party plugin it does not
// (docs/plugins.md, "Bundled plugins").
func pluginSummary(out io.Writer, cfg *boot.Config, host *pluginhost.Host) {
	running := host.Status()
	names := make([]string, 0, len(running))
	fmt.Fprint(out, "Plugins on:")
	if len(running) == 0 {
		fmt.Fprint(out, " none")
	}
	for _, s := range running {
		names = append(names, s.Name)
		fmt.Fprintf(out, "\n  %s (%s plugin %s)", s.Name, s.Kind, s.Binary)
	}
	fmt.Fprint(out, "\n")
	issuer := len(host.Names(pluginhost.KindAuthIssuer)) > 0
	var off []pluginhost.Offer
	for _, o := range pluginhost.Offers(cfg) {
		switch {
		case slices.Contains(names, o.Spec.Name) || (o.Spec.Kind == pluginhost.KindAuthIssuer && issuer):
		case o.On:
			fmt.Fprintf(out, "%s is set but %s does not run: this pact-board pins no bundled %s; "+
				"build with make build, or name it in PACT_PLUGINS\n", o.Var, o.Spec.Name, o.Spec.Binary)
		default:
			off = append(off, o)
		}
	}
	if len(off) > 0 {
		fmt.Fprint(out, "To turn on a bundled plugin, set its variable and restart:\n")
		for _, o := range off {
			fmt.Fprintf(out, "  %s=%s  %s (%s)\n", o.Var, cmp.Or(o.Value, o.Example), o.What, o.Spec.Binary)
		}
	}
	fmt.Fprint(out, "Any other plugin: name it in PACT_PLUGINS (docs/plugins.md).\n\n")
}
