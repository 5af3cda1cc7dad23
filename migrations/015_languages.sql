-- The language people read notifications in (docs/specs/behavior.md §8.7,
-- §8.8): each organization chooses one, English unless it says otherwise,
-- and a person may choose their own (NULL follows the organization). The
-- board knows English and Thai; core/identity checks the same list.
ALTER TABLE orgs ADD COLUMN language text NOT NULL DEFAULT 'en'
    CONSTRAINT orgs_language_check CHECK (language IN ('en', 'th'));
ALTER TABLE humans ADD COLUMN language text
    CONSTRAINT humans_language_check CHECK (language IN ('en', 'th'));
