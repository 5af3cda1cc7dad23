-- Email: each person chooses which kinds of notice are emailed to them
-- (docs/notifications.md, "Email"). A row is one kind turned on; a person
-- with no row gets no email, so email is off until they turn a kind on.
CREATE TABLE email_choices (
    human_id text NOT NULL,
    org_id   text NOT NULL,
    kind     text NOT NULL,
    PRIMARY KEY (human_id, kind),
    FOREIGN KEY (human_id, org_id) REFERENCES humans (id, org_id)
);
COMMENT ON TABLE email_choices IS 'owner: modules/notify';
