-- A pact names only its own organization's people and agents
-- (docs/security.md, issue 29 finding 3; SEC-017). Ids of people and agents
-- are board-wide, so a foreign key to humans (id) alone let a seat name
-- another organization's person. The service refuses such an id in the
-- words it uses for an id nobody holds; these guards make the database
-- refuse it too, whatever path writes the row.

-- A pact's owner: pacts already carries org_id, so a composite foreign key
-- to humans (id, org_id) says it.
ALTER TABLE pacts ADD CONSTRAINT pacts_owner_same_org
    FOREIGN KEY (owner_human, org_id) REFERENCES humans (id, org_id);

-- A seat has no org_id of its own; a trigger compares its person's or
-- agent's organization with its pact's. The error is a foreign-key
-- violation, as for an id nobody holds, so the two answer alike
-- (db.Refusal).
CREATE FUNCTION pact_seats_same_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.human_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM humans h JOIN pacts p ON p.org_id = h.org_id
        WHERE p.id = NEW.pact_id AND h.id = NEW.human_id) THEN
        RAISE EXCEPTION 'pact seat %: no person % in the pact''s organization', NEW.key, NEW.human_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF NEW.agent_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM agents a JOIN pacts p ON p.org_id = a.org_id
        WHERE p.id = NEW.pact_id AND a.id = NEW.agent_id) THEN
        RAISE EXCEPTION 'pact seat %: no agent % in the pact''s organization', NEW.key, NEW.agent_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER pact_seats_same_org BEFORE INSERT OR UPDATE OF pact_id, agent_id, human_id ON pact_seats
    FOR EACH ROW EXECUTE FUNCTION pact_seats_same_org();

-- Seats the earlier code let through are revoked, not deleted (nothing in
-- a pact is): they write and receive nothing more, and what they wrote stays.
UPDATE pact_seats s SET removed_at = now(), removed_by = 'migration:031_pact_people_org'
    FROM pacts p
    WHERE p.id = s.pact_id AND s.removed_at IS NULL
      AND (EXISTS (SELECT 1 FROM humans h WHERE h.id = s.human_id AND h.org_id <> p.org_id)
        OR EXISTS (SELECT 1 FROM agents a WHERE a.id = s.agent_id AND a.org_id <> p.org_id));
