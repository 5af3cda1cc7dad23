package notify

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/i18n"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/notifier"
)

// Defaults of [Options].
const (
	DefaultSlackNotifier  = "slack"
	DefaultEmailNotifier  = "email"
	DefaultWorkers        = 2
	DefaultLease          = 2 * time.Minute
	DefaultDeliverTimeout = 30 * time.Second
	DefaultRetryBase      = 30 * time.Second
	DefaultMaxAttempts    = 8
	DefaultTick           = time.Minute
	DefaultSweepEvery     = 10 * time.Minute
	DefaultSweepCheck     = time.Minute
	DefaultExpiryWarn     = 48 * time.Hour
	DefaultListenIdle     = 30 * time.Second
)

// Service delivers the outbox, manages destinations and sweeps expiries.
// Its methods are safe for concurrent use, in one process or many.
type Service struct {
	db     *db.DB
	log    *ledger.Log
	opts   Options
	logger hclog.Logger
	// owner names this process in lease_owner; each worker appends its
	// number, so every lease names exactly one worker.
	owner string
	// wakers hold one coalescing wake per delivery worker, signalled by the
	// listener.
	wakers []chan struct{}
	// calls numbers DeliverDue's calls, each its own lease owner.
	calls atomic.Int64
	// cat holds the words this module writes for people (messages.go).
	cat *i18n.Catalog
}

// NewService returns a service over d. log records the destination changes
// people make; opts may be nil.
func NewService(d *db.DB, log *ledger.Log, opts *Options) *Service {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.SlackNotifier = cmpOr(o.SlackNotifier, DefaultSlackNotifier)
	o.EmailNotifier = cmpOr(o.EmailNotifier, DefaultEmailNotifier)
	o.ConsoleURL = strings.TrimRight(o.ConsoleURL, "/")
	o.Workers = max(cmpOr(o.Workers, DefaultWorkers), 1)
	o.Lease = cmpOr(o.Lease, DefaultLease)
	o.DeliverTimeout = cmpOr(o.DeliverTimeout, DefaultDeliverTimeout)
	o.RetryBase = cmpOr(o.RetryBase, DefaultRetryBase)
	o.MaxAttempts = max(cmpOr(o.MaxAttempts, DefaultMaxAttempts), 1)
	o.Tick = cmpOr(o.Tick, DefaultTick)
	o.SweepEvery = cmpOr(o.SweepEvery, DefaultSweepEvery)
	o.SweepCheck = cmpOr(o.SweepCheck, DefaultSweepCheck)
	o.ExpiryWarn = cmpOr(o.ExpiryWarn, DefaultExpiryWarn)
	o.ListenIdle = cmpOr(o.ListenIdle, DefaultListenIdle)
	o.AdminUIURL = strings.TrimRight(o.AdminUIURL, "/")
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Logger == nil {
		o.Logger = hclog.NewNullLogger()
	}
	if o.Seal == nil {
		o.Seal = ephemeralBox()
	}
	if log == nil {
		log = ledger.New(nil)
	}
	s := &Service{db: d, log: log, opts: o, logger: o.Logger, owner: processName(), cat: mustCatalog()}
	s.wakers = make([]chan struct{}, o.Workers)
	for i := range s.wakers {
		s.wakers[i] = make(chan struct{}, 1)
	}
	return s
}

// ephemeralBox seals under a random key that lives as long as the process.
func ephemeralBox() *seal.Box {
	entry, err := mandate.NewKeyEntry(time.Now(), rand.Reader)
	if err == nil {
		var k *mandate.Keyring
		if k, err = mandate.ParseKeyring(entry, ""); err == nil {
			return seal.New(k)
		}
	}
	panic(fmt.Sprintf("notify: make a sealing key: %v", err)) // only if crypto/rand fails
}

// processName is host/pid/random: unique per Service, so two services in
// one process (tests) never share a lease.
func processName() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", cmpOr(host, "host"), os.Getpid(), hex.EncodeToString(b))
}

// notifier looks name up among the plugins. A missing provider or plugin
// is errs.Unavailable for delivery purposes: retried, with a message that
// says what to configure.
func (s *Service) notifier(name string) (notifier.Notifier, error) {
	if s.opts.Notifiers == nil {
		return nil, errs.E(errs.Unavailable, "no notifier plugins run on this board (PACT_PLUGINS); %q is needed", name)
	}
	n, err := s.opts.Notifiers.Notifier(name)
	if err != nil {
		return nil, err
	}
	if n == nil {
		return nil, errs.E(errs.Unavailable, "notifier plugin %q is not available", name)
	}
	return n, nil
}

// wakeAll tells every delivery worker to look for work.
func (s *Service) wakeAll() {
	for _, c := range s.wakers {
		select {
		case c <- struct{}{}:
		default: // a wake is already pending
		}
	}
}
