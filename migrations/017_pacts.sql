-- Agent Pacts (docs/pacts.md): one shared page per job, with a frozen rules
-- section, one zone per seat, an append-only thread and decisions only a
-- person answers. The rules that matter live here, in triggers on the
-- tables themselves, so they hold on every code path:
--   * a thread message is never deleted, and an UPDATE may change only its
--     status, and only when the session acts as the message's author
--     (SET LOCAL pact.actor);
--   * a decision's answer is written only on the person-side path
--     (SET LOCAL pact.answering = 'person'), by an owner or approver of the
--     pact's organization, and only until the agent that raised it has
--     read it;
--   * the rules section is frozen once the pact exists;
--   * nothing in a pact is ever deleted: a removed seat is revoked, a
--     closed pact stays readable.

CREATE TABLE pacts (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    org_id      text NOT NULL REFERENCES orgs (id),
    project_id  text NOT NULL REFERENCES projects (id),
    name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
    purpose     text NOT NULL CHECK (char_length(purpose) BETWEEN 1 AND 4000),
    rules       text NOT NULL DEFAULT '' CHECK (char_length(rules) <= 8000),
    -- The person the pact answers to: its creator, or the creating agent's
    -- owner. Unread nudges go to them.
    owner_human text NOT NULL REFERENCES humans (id),
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    closed_at   timestamptz,
    closed_by   text,
    nudged_at   timestamptz
);
CREATE INDEX pacts_project_open_idx ON pacts (project_id) WHERE closed_at IS NULL;
CREATE INDEX pacts_org_idx ON pacts (org_id, created_at);
COMMENT ON TABLE pacts IS 'owner: modules/pacts';

CREATE TABLE pact_seats (
    pact_id      uuid NOT NULL REFERENCES pacts (id),
    key          text NOT NULL CHECK (key ~ '^@[a-z0-9][a-z0-9_-]{0,39}$'),
    display_name text NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 80),
    prefix       text NOT NULL CHECK (prefix ~ '^[A-Z]{1,4}$'),
    agent_id     text REFERENCES agents (id),
    human_id     text REFERENCES humans (id),
    invited_by   text NOT NULL,
    invited_at   timestamptz NOT NULL DEFAULT now(),
    joined_at    timestamptz,
    removed_at   timestamptz,
    removed_by   text,
    paused_at    timestamptz,
    paused_by    text,
    handshake    text NOT NULL DEFAULT '' CHECK (char_length(handshake) <= 2000),
    -- The seat's next message number: taken under the seat's row lock, in
    -- the writing transaction, so numbers are gap-free and never reused.
    next_number  integer NOT NULL DEFAULT 1 CHECK (next_number >= 1),
    -- Cursors into pact_feed: what the seat has read (get_pact) and where
    -- it last wrote (each write answers with what others wrote since).
    read_upto    bigint NOT NULL DEFAULT 0,
    write_upto   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (pact_id, key),
    CONSTRAINT pact_seats_prefix_unique UNIQUE (pact_id, prefix),
    CHECK ((agent_id IS NULL) <> (human_id IS NULL))
);
CREATE UNIQUE INDEX pact_seats_agent_idx ON pact_seats (pact_id, agent_id) WHERE agent_id IS NOT NULL;
CREATE UNIQUE INDEX pact_seats_human_idx ON pact_seats (pact_id, human_id) WHERE human_id IS NOT NULL;
CREATE INDEX pact_seats_agent_lookup_idx ON pact_seats (agent_id) WHERE agent_id IS NOT NULL;
COMMENT ON TABLE pact_seats IS 'owner: modules/pacts';

-- Every change to a pact, in one global order: the cursor of get_pact's
-- since, the SSE stream's event id, and what deliveries send. Writers take
-- pact_feed_order (an advisory transaction lock) before inserting, so ids
-- commit in their order and a reader past id N never misses a smaller one.
CREATE TABLE pact_feed (
    id       bigserial PRIMARY KEY,
    pact_id  uuid NOT NULL REFERENCES pacts (id),
    kind     text NOT NULL CHECK (kind IN ('message', 'section', 'decision', 'answer', 'handshake', 'seat', 'pact')),
    ref      text NOT NULL DEFAULT '',
    seat_key text,
    actor    text NOT NULL,
    excerpt  text NOT NULL DEFAULT '' CHECK (char_length(excerpt) <= 400),
    at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pact_feed_pact_idx ON pact_feed (pact_id, id);
CREATE INDEX pact_feed_seat_at_idx ON pact_feed (pact_id, seat_key, at);
COMMENT ON TABLE pact_feed IS 'owner: modules/pacts';

CREATE TABLE pact_sections (
    pact_id    uuid NOT NULL,
    seat_key   text NOT NULL,
    body       text NOT NULL DEFAULT '' CHECK (char_length(body) <= 20000),
    version    integer NOT NULL DEFAULT 0,
    updated_at timestamptz,
    updated_by text,
    feed_id    bigint REFERENCES pact_feed (id),
    PRIMARY KEY (pact_id, seat_key),
    FOREIGN KEY (pact_id, seat_key) REFERENCES pact_seats (pact_id, key)
);
COMMENT ON TABLE pact_sections IS 'owner: modules/pacts';

CREATE TABLE pact_messages (
    pact_id    uuid NOT NULL REFERENCES pacts (id),
    number     text NOT NULL,
    seat_key   text NOT NULL,
    prefix     text NOT NULL,
    seq        integer NOT NULL CHECK (seq >= 1),
    author     text NOT NULL,
    body       text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 20000),
    reply_to   text,
    status     text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'superseded')),
    feed_id    bigint NOT NULL REFERENCES pact_feed (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pact_id, number),
    UNIQUE (pact_id, prefix, seq),
    CHECK (number = prefix || '-' || CASE WHEN seq < 1000 THEN lpad(seq::text, 3, '0') ELSE seq::text END),
    FOREIGN KEY (pact_id, seat_key) REFERENCES pact_seats (pact_id, key)
);
CREATE INDEX pact_messages_feed_idx ON pact_messages (pact_id, feed_id);
COMMENT ON TABLE pact_messages IS 'owner: modules/pacts';

CREATE TABLE pact_decisions (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    pact_id      uuid NOT NULL REFERENCES pacts (id),
    seat_key     text NOT NULL,
    raised_by    text NOT NULL,
    question     text NOT NULL CHECK (char_length(question) BETWEEN 1 AND 2000),
    options      text[] NOT NULL CHECK (cardinality(options) BETWEEN 1 AND 8),
    feed_id      bigint NOT NULL REFERENCES pact_feed (id),
    raised_at    timestamptz NOT NULL DEFAULT now(),
    answer       text CHECK (char_length(answer) BETWEEN 1 AND 4000),
    answer_kind  text CHECK (answer_kind IN ('choice', 'own_words', 'not_needed')),
    answered_by  text REFERENCES humans (id),
    answered_at  timestamptz,
    answer_feed  bigint REFERENCES pact_feed (id),
    read_at      timestamptz,
    CHECK ((answer IS NULL) = (answer_kind IS NULL) AND (answer IS NULL) = (answered_by IS NULL)),
    FOREIGN KEY (pact_id, seat_key) REFERENCES pact_seats (pact_id, key)
);
CREATE INDEX pact_decisions_open_idx ON pact_decisions (raised_at) WHERE answer IS NULL;
CREATE INDEX pact_decisions_pact_idx ON pact_decisions (pact_id);
COMMENT ON TABLE pact_decisions IS 'owner: modules/pacts';

-- The bell: pact notifications go to a person (human_id) through the
-- outbox, over the organization's notifiers.
ALTER TABLE notifications ADD COLUMN human_id text REFERENCES humans (id);
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check CHECK (kind IN ('approval_needed', 'deferred',
    'question', 'task_closed', 'awaiting_session', 'brief', 'expiring', 'expired', 'message',
    'pact_decision', 'pact_unread', 'pact_stuck'));

-- An organization's pact settings; no row means the defaults.
CREATE TABLE pact_org_settings (
    org_id     text PRIMARY KEY REFERENCES orgs (id),
    open_limit integer NOT NULL DEFAULT 10 CHECK (open_limit BETWEEN 1 AND 1000),
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text
);
COMMENT ON TABLE pact_org_settings IS 'owner: modules/pacts';

-- A person's pact settings: how long a message waits unread before the
-- pact's owner hears of it. No row means 30 minutes.
CREATE TABLE pact_person_settings (
    human_id     text PRIMARY KEY REFERENCES humans (id),
    nudge_after  interval NOT NULL DEFAULT '30 minutes'
        CHECK (nudge_after IN ('30 minutes', '1 hour', '3 hours', '12 hours', '24 hours')),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE pact_person_settings IS 'owner: modules/pacts';

-- Nothing in a pact is deleted.
CREATE FUNCTION pact_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: nothing in a pact is deleted (close the pact or remove the seat instead)', TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END $$;

CREATE FUNCTION pact_messages_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF to_jsonb(NEW) - 'status' IS DISTINCT FROM to_jsonb(OLD) - 'status' THEN
        RAISE EXCEPTION 'pact message %: only its status may change; reply to correct it', OLD.number
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status
       AND OLD.author IS DISTINCT FROM current_setting('pact.actor', true) THEN
        RAISE EXCEPTION 'pact message %: only its author (%) may change its status', OLD.number, OLD.author
            USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER pact_messages_status_only BEFORE UPDATE ON pact_messages
    FOR EACH ROW EXECUTE FUNCTION pact_messages_guard();
CREATE TRIGGER pact_messages_never_deleted BEFORE DELETE ON pact_messages
    FOR EACH ROW EXECUTE FUNCTION pact_never_deleted();
CREATE TRIGGER pact_messages_no_truncate BEFORE TRUNCATE ON pact_messages
    FOR EACH STATEMENT EXECUTE FUNCTION pact_never_deleted();

CREATE FUNCTION pact_feed_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'pact_feed is append-only' USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER pact_feed_append_only BEFORE UPDATE OR DELETE ON pact_feed
    FOR EACH ROW EXECUTE FUNCTION pact_feed_guard();
CREATE TRIGGER pact_feed_no_truncate BEFORE TRUNCATE ON pact_feed
    FOR EACH STATEMENT EXECUTE FUNCTION pact_feed_guard();

CREATE FUNCTION pact_decisions_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    answer_changed boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.answer IS NOT NULL OR NEW.read_at IS NOT NULL THEN
            RAISE EXCEPTION 'a decision is raised unanswered' USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.id, NEW.pact_id, NEW.seat_key, NEW.raised_by, NEW.question, NEW.options, NEW.feed_id, NEW.raised_at)
       IS DISTINCT FROM
       (OLD.id, OLD.pact_id, OLD.seat_key, OLD.raised_by, OLD.question, OLD.options, OLD.feed_id, OLD.raised_at) THEN
        RAISE EXCEPTION 'decision %: what was asked cannot change', OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    answer_changed := (NEW.answer, NEW.answer_kind, NEW.answered_by, NEW.answered_at, NEW.answer_feed)
        IS DISTINCT FROM (OLD.answer, OLD.answer_kind, OLD.answered_by, OLD.answered_at, OLD.answer_feed);
    IF answer_changed THEN
        IF current_setting('pact.answering', true) IS DISTINCT FROM 'person' THEN
            RAISE EXCEPTION 'decision %: only a person answers, through the Admin API', OLD.id
                USING ERRCODE = 'restrict_violation';
        END IF;
        IF OLD.read_at IS NOT NULL THEN
            RAISE EXCEPTION 'decision %: the agent has read the answer; post in the pact instead', OLD.id
                USING ERRCODE = 'restrict_violation';
        END IF;
        IF NEW.answer IS NULL OR NOT EXISTS (
            SELECT 1 FROM humans h JOIN pacts p ON p.org_id = h.org_id
            WHERE p.id = NEW.pact_id AND h.id = NEW.answered_by AND h.role IN ('owner', 'approver')
              AND h.disabled_at IS NULL) THEN
            RAISE EXCEPTION 'decision %: only an owner or approver of the organization answers', OLD.id
                USING ERRCODE = 'restrict_violation';
        END IF;
    END IF;
    IF NEW.read_at IS DISTINCT FROM OLD.read_at THEN
        IF OLD.read_at IS NOT NULL OR NEW.answer IS NULL
           OR OLD.raised_by IS DISTINCT FROM current_setting('pact.actor', true) THEN
            RAISE EXCEPTION 'decision %: only the agent that raised it marks its answer read', OLD.id
                USING ERRCODE = 'restrict_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER pact_decisions_answer_path BEFORE INSERT OR UPDATE ON pact_decisions
    FOR EACH ROW EXECUTE FUNCTION pact_decisions_guard();
CREATE TRIGGER pact_decisions_never_deleted BEFORE DELETE ON pact_decisions
    FOR EACH ROW EXECUTE FUNCTION pact_never_deleted();

-- The rules section is frozen, and who created a pact never changes.
CREATE FUNCTION pacts_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.id, NEW.org_id, NEW.project_id, NEW.rules, NEW.created_by, NEW.created_at)
       IS DISTINCT FROM (OLD.id, OLD.org_id, OLD.project_id, OLD.rules, OLD.created_by, OLD.created_at) THEN
        RAISE EXCEPTION 'pact %: its rules and origin are frozen', OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    IF OLD.closed_at IS NOT NULL AND NEW.closed_at IS DISTINCT FROM OLD.closed_at THEN
        RAISE EXCEPTION 'pact %: a closed pact stays closed', OLD.id USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER pacts_frozen BEFORE UPDATE ON pacts FOR EACH ROW EXECUTE FUNCTION pacts_guard();
CREATE TRIGGER pacts_never_deleted BEFORE DELETE ON pacts FOR EACH ROW EXECUTE FUNCTION pact_never_deleted();
CREATE TRIGGER pact_seats_never_deleted BEFORE DELETE ON pact_seats FOR EACH ROW EXECUTE FUNCTION pact_never_deleted();
CREATE TRIGGER pact_sections_never_deleted BEFORE DELETE ON pact_sections FOR EACH ROW EXECUTE FUNCTION pact_never_deleted();

-- Agents reach pacts through pact.read and pact.write on a project: the
-- role templates gain both, and so does every organization's role that
-- still grants exactly what its template granted.
UPDATE agent_roles r SET actions = r.actions || '{pact.read,pact.write}'
    FROM role_templates t WHERE t.id = r.id AND r.actions = t.actions;
UPDATE role_templates SET actions = actions || '{pact.read,pact.write}';
