-- Mandates: signed links of authority. A root is issued by a person, every
-- other link by the agent holding its parent.

CREATE TABLE mandates (
    id               uuid PRIMARY KEY,
    parent_id        uuid REFERENCES mandates (id),
    issuer_kind      text NOT NULL CHECK (issuer_kind IN ('human', 'agent')),
    issuer           text NOT NULL,
    holder           text NOT NULL REFERENCES agents (id),
    scope            text[] NOT NULL CHECK (cardinality(scope) >= 1),
    limits           jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(limits) = 'object'),
    delegations_left integer NOT NULL CHECK (delegations_left >= 0),
    depth            integer NOT NULL CHECK (depth BETWEEN 0 AND 5),
    expires_at       timestamptz NOT NULL,
    revoked_at       timestamptz,
    signature        text NOT NULL,
    -- Where the link came from, and what it was exported as.
    format           text NOT NULL DEFAULT 'pact' CHECK (format IN ('pact', 'tenuo', 'biscuit')),
    exported_as      text CHECK (exported_as IN ('tenuo', 'biscuit')),
    external_id      text,
    credential       bytea,
    issuer_principal text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((parent_id IS NULL) = (issuer_kind = 'human')),
    CHECK (exported_as IS NULL OR format = 'pact')
);
CREATE INDEX mandates_parent_idx ON mandates (parent_id);
CREATE INDEX mandates_holder_idx ON mandates (holder);
CREATE UNIQUE INDEX mandates_external_key ON mandates (coalesce(exported_as, format), external_id)
    WHERE external_id IS NOT NULL;

ALTER TABLE agents ADD FOREIGN KEY (root_mandate_id) REFERENCES mandates (id);

-- A mandate is signed and never edited: the signed columns cannot change,
-- a revocation cannot be undone, and no row is deleted.
CREATE FUNCTION mandates_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (NEW.id, NEW.parent_id, NEW.issuer_kind, NEW.issuer, NEW.holder, NEW.scope, NEW.limits,
        NEW.delegations_left, NEW.depth, NEW.expires_at, NEW.signature, NEW.format,
        NEW.issuer_principal, NEW.created_at)
       IS DISTINCT FROM
       (OLD.id, OLD.parent_id, OLD.issuer_kind, OLD.issuer, OLD.holder, OLD.scope, OLD.limits,
        OLD.delegations_left, OLD.depth, OLD.expires_at, OLD.signature, OLD.format,
        OLD.issuer_principal, OLD.created_at) THEN
        RAISE EXCEPTION 'mandates are signed and never edited' USING ERRCODE = 'restrict_violation';
    END IF;
    IF OLD.revoked_at IS NOT NULL AND NEW.revoked_at IS DISTINCT FROM OLD.revoked_at THEN
        RAISE EXCEPTION 'a revoked mandate stays revoked' USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER mandates_signed BEFORE UPDATE ON mandates
    FOR EACH ROW EXECUTE FUNCTION mandates_guard();
CREATE TRIGGER mandates_never_deleted BEFORE DELETE ON mandates
    FOR EACH ROW EXECUTE FUNCTION refuse_delete();

-- Aggregate usage: every amount spent is added to each link above that
-- limits the key.
CREATE TABLE limit_usage (
    mandate_id uuid NOT NULL REFERENCES mandates (id),
    limit_key  text NOT NULL,
    used       numeric NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (mandate_id, limit_key)
);
