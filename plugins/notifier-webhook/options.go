package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"time"

	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// A destination's options (notifier.Destination.Options; docs/plugins.md,
// "notifier-webhook's options"). Without any, a delivery is the plugin's
// own envelope (payload.go), as it always was; other keys are ignored, so
// a destination stored by an older board keeps working. The board's A2A
// push notifications (docs/a2a.md) post the A2A payload itself and
// authenticate as the A2A client asked, with the Standard Webhooks
// signature beside it.
const (
	// optBody is "envelope" (or empty): the plugin's envelope; "data":
	// Notification.Data, verbatim, is the whole body.
	optBody = "body"
	// optContentType is the body's media type when optBody is "data": a
	// JSON type ("application/json", the default, or "application/…+json").
	optContentType = "content-type"
	// optAuthorization is the value of an Authorization header to send:
	// "<scheme> <credentials>".
	optAuthorization = "authorization"
	// optNotificationToken is the value of an X-A2A-Notification-Token
	// header to send: an A2A push notification config's token.
	optNotificationToken = "notification-token"
)

// tokenHeader is the header A2A clients read a push notification's token
// from (the official JavaScript SDK's default).
const tokenHeader = "X-A2A-Notification-Token"

// maxHeaderValue bounds a header value an option sets.
const maxHeaderValue = 4096

var (
	jsonMediaType = regexp.MustCompile(`^application/([a-z0-9!#$&^_.-]+\+)?json$`)
	// authValue is RFC 9110's credentials: an auth-scheme (a token), one
	// space, then visible characters and spaces.
	authValue = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [!-~]([ !-~]*[!-~])?$")
	// tokenValue is visible characters with inner spaces.
	tokenValue = regexp.MustCompile(`^[!-~]([ !-~]*[!-~])?$`)
)

// sendOptions are a destination's options, checked.
type sendOptions struct {
	data          bool
	contentType   string
	authorization string
	token         string
}

// parseOptions checks the options this plugin reads. A refusal is
// errs.InvalidRequest and never repeats a header's value, which is a
// credential.
func parseOptions(o map[string]string) (sendOptions, error) {
	s := sendOptions{contentType: "application/json"}
	switch o[optBody] {
	case "", "envelope":
	case "data":
		s.data = true
	default:
		return s, errs.E(errs.InvalidRequest, "option %s is %q: it is envelope (the default) or data", optBody, o[optBody])
	}
	if ct, ok := o[optContentType]; ok {
		if !s.data {
			return s, errs.E(errs.InvalidRequest, "option %s goes with %s=data only: the envelope is application/json", optContentType, optBody)
		}
		if !jsonMediaType.MatchString(ct) {
			return s, errs.E(errs.InvalidRequest, "option %s is %q: it must be application/json or application/<type>+json", optContentType, ct)
		}
		s.contentType = ct
	}
	if v, ok := o[optAuthorization]; ok {
		if len(v) > maxHeaderValue || !authValue.MatchString(v) {
			return s, errs.E(errs.InvalidRequest, "option %s must be \"<scheme> <credentials>\" in visible ASCII, at most %d "+
				"characters (the value is not repeated here)", optAuthorization, maxHeaderValue)
		}
		s.authorization = v
	}
	if v, ok := o[optNotificationToken]; ok {
		if len(v) > maxHeaderValue || !tokenValue.MatchString(v) {
			return s, errs.E(errs.InvalidRequest, "option %s must be visible ASCII (inner spaces allowed), at most %d "+
				"characters (the value is not repeated here)", optNotificationToken, maxHeaderValue)
		}
		s.token = v
	}
	return s, nil
}

// body is what a delivery of n posts: the envelope, or n.Data as it is.
func (s sendOptions) body(n notifier.Notification, id string, now time.Time) ([]byte, error) {
	if !s.data {
		b, err := json.Marshal(newPayload(n, id, now))
		if err != nil {
			return nil, errs.Wrap(err, "encode the webhook payload")
		}
		return b, nil
	}
	raw := bytes.TrimSpace(n.Data)
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil, errs.E(errs.InvalidRequest, "option %s=data posts the notification's data, and it carries no JSON object", optBody)
	}
	return raw, nil
}
