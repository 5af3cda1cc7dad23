package main

import (
	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/pluginhost"
	"github.com/pactboard/pact/sdk/notifier"
)

// lazyNotifiers are the notifier plugins of PACT_PLUGINS, started the first
// time a command asks for one (destination-add asks its plugin to prepare
// the destination, as the board does) and stopped when the command ends.
type lazyNotifiers struct {
	cfg  *boot.Config
	host *pluginhost.Host
}

func (l *lazyNotifiers) Notifier(name string) (notifier.Notifier, error) {
	if l.host == nil {
		h, err := pluginhost.FromConfig(l.cfg, nil, hclog.NewNullLogger(), nil)
		if err != nil {
			return nil, err
		}
		h.Start()
		l.host = h
	}
	return l.host.Notifier(name)
}

func (l *lazyNotifiers) close() {
	if l.host != nil {
		_ = l.host.Close()
	}
}
