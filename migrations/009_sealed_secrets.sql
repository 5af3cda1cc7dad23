-- Secrets the board must read back to deliver notifications are sealed
-- (core/seal): AES-256-GCM under a key derived from the board's keyring,
-- "sealed:v1:<kid>:<base64url>". A database dump then holds none of them in
-- clear. Values written before this migration are sealed by the board at
-- its next start (modules/notify's reseal worker), since SQL has no key.
--
-- A sealed URL is about a third longer than the URL.
ALTER TABLE notify_destinations DROP CONSTRAINT notify_destinations_url_check;
ALTER TABLE notify_destinations ADD CONSTRAINT notify_destinations_url_check
    CHECK (char_length(url) BETWEEN 1 AND 4000);

-- The columns holding sealed values say so; a test finds them here, and
-- refuses a column that looks like a secret and is not marked.
COMMENT ON COLUMN orgs.slack_webhook_url IS 'sealed (core/seal): the Slack incoming webhook URL';
COMMENT ON COLUMN notify_destinations.url IS 'sealed (core/seal): where the notifier plugin delivers';
COMMENT ON COLUMN notify_destinations.secret IS 'sealed (core/seal): e.g. a webhook signing secret';
