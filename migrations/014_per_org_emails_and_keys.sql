-- Nothing about one organization shows through another's create calls
-- (docs/security.md, findings 2 and 9).
--
-- Emails are unique per organization, not across the board: an owner who
-- invites an address taken elsewhere learns nothing, and a person invited
-- by two organizations sees both invitations and accepts one. The partial
-- index finds the pending invitations of a verified email.
DROP INDEX humans_email_key;
CREATE UNIQUE INDEX humans_org_email_key ON humans (org_id, lower(email));
CREATE INDEX humans_invited_email_idx ON humans (lower(email)) WHERE auth_sub IS NULL;

-- Public keys are public: a key another organization registered must not
-- be refused here (that would tell, and let anyone who saw a key lock its
-- owner out). Trusted roots and agents' keys are unique per organization.
ALTER TABLE trusted_roots DROP CONSTRAINT trusted_roots_pkey, ADD PRIMARY KEY (org_id, principal);

ALTER TABLE agent_keys ADD COLUMN org_id text;
UPDATE agent_keys k SET org_id = a.org_id FROM agents a WHERE a.id = k.agent_id;
ALTER TABLE agent_keys ALTER COLUMN org_id SET NOT NULL,
    ADD FOREIGN KEY (agent_id, org_id) REFERENCES agents (id, org_id);
DROP INDEX agent_keys_public_key_idx;
CREATE UNIQUE INDEX agent_keys_org_public_key_idx ON agent_keys (org_id, public_key);
