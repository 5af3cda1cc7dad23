-- The inbox: every notification the outbox gets is addressed, in the
-- statement that enqueues it (core/outbox.Enqueue), to the people it
-- concerns (docs/notifications.md, "Who is told"), one row per person, each
-- with its own read mark. A refused call leaves no notification and so no
-- inbox row; a committed one always has its rows.
--
-- A pact decision's notice names its decision, so "Waiting on you" can
-- tell whether it is still open.
ALTER TABLE notifications ADD COLUMN decision_id uuid REFERENCES pact_decisions (id);

CREATE TABLE inbox (
    notification_id bigint NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
    human_id        text NOT NULL,
    org_id          text NOT NULL,
    read_at         timestamptz,
    PRIMARY KEY (human_id, notification_id),
    -- Only people of the notification's organization: the person's
    -- organization is the row's, and the row's is the notification's
    -- (checked by the enqueueing statement, which joins on it).
    FOREIGN KEY (human_id, org_id) REFERENCES humans (id, org_id)
);
CREATE INDEX inbox_unread_idx ON inbox (human_id, notification_id) WHERE read_at IS NULL;
CREATE INDEX inbox_notification_idx ON inbox (notification_id);
COMMENT ON TABLE inbox IS 'owner: core/outbox';
