package mcpserve

import (
	"context"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// slogger lets the SDK, which logs through log/slog, write to the board's
// hclog logger.
func slogger(l hclog.Logger) *slog.Logger {
	return slog.New(hclogHandler{l: l.Named("sdk")})
}

type hclogHandler struct {
	l     hclog.Logger
	attrs []any
	group string
}

func (h hclogHandler) Enabled(_ context.Context, level slog.Level) bool {
	return h.l.GetLevel() <= hclogLevel(level)
}

func (h hclogHandler) Handle(_ context.Context, r slog.Record) error {
	args := append([]any(nil), h.attrs...)
	r.Attrs(func(a slog.Attr) bool {
		args = append(args, h.key(a.Key), a.Value.Resolve().Any())
		return true
	})
	h.l.Log(hclogLevel(r.Level), r.Message, args...)
	return nil
}

func (h hclogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := h
	out.attrs = append([]any(nil), h.attrs...)
	for _, a := range attrs {
		out.attrs = append(out.attrs, h.key(a.Key), a.Value.Resolve().Any())
	}
	return out
}

func (h hclogHandler) WithGroup(name string) slog.Handler {
	out := h
	out.group = h.key(name)
	return out
}

func (h hclogHandler) key(k string) string {
	if h.group == "" {
		return k
	}
	return h.group + "." + k
}

// hclogLevel maps the SDK's levels. Its info lines are per-request
// bookkeeping in stateless mode (a session opened and closed for every
// call), so they are debug here; warnings and errors keep their level.
func hclogLevel(l slog.Level) hclog.Level {
	switch {
	case l >= slog.LevelError:
		return hclog.Error
	case l >= slog.LevelWarn:
		return hclog.Warn
	default:
		return hclog.Debug
	}
}
