-- Delivery of the notification outbox (modules/notify): where an
-- organization's notifications go besides its Slack webhook, what each
-- notification's delivery to each destination came to, and the leases that
-- let one board process among several run a periodic job.

-- A destination an owner configured: a notifier plugin (by its name in
-- PACT_PLUGINS) and what the plugin needs to reach it. The secret (e.g. a
-- webhook's whsec_ signing secret) is shown once when the destination is
-- added and never again; the board keeps it to sign deliveries. Rows are
-- disabled, never deleted, so past deliveries keep naming them.
CREATE TABLE notify_destinations (
    id          bigserial PRIMARY KEY,
    org_id      text NOT NULL REFERENCES orgs (id),
    notifier    text NOT NULL CHECK (notifier ~ '^[a-z][a-z0-9-]{0,62}$'),
    url         text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2000),
    secret      text,
    options     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(options) = 'object'),
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    disabled_by text,
    disabled_at timestamptz,
    FOREIGN KEY (created_by, org_id) REFERENCES humans (id, org_id),
    CHECK ((disabled_at IS NULL) = (disabled_by IS NULL))
);
CREATE INDEX notify_destinations_org_idx ON notify_destinations (org_id) WHERE disabled_at IS NULL;
CREATE TRIGGER notify_destinations_never_deleted BEFORE DELETE ON notify_destinations
    FOR EACH ROW EXECUTE FUNCTION refuse_delete();

-- One row per notification and destination once that delivery is settled:
-- sent, or refused for good. A retry of a notification skips the
-- destinations settled here, so a destination that already has it is not
-- sent it again because another one failed. destination is 'slack' (the
-- organization's Slack webhook) or 'd<id>' (a notify_destinations row).
CREATE TABLE notification_deliveries (
    notification_id bigint NOT NULL REFERENCES notifications (id),
    destination     text NOT NULL,
    sent_at         timestamptz,
    failed_at       timestamptz,
    status          integer,
    detail          text,
    PRIMARY KEY (notification_id, destination),
    CHECK ((sent_at IS NULL) <> (failed_at IS NULL))
);

-- Named leases of periodic jobs shared by every board process: whoever holds
-- an unexpired lease runs the job; the expiry sweep's lease lasts as long as
-- its period, so it runs once per period across all processes.
CREATE TABLE notify_leases (
    name       text PRIMARY KEY,
    owner      text NOT NULL,
    expires_at timestamptz NOT NULL
);
