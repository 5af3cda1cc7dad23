-- Witness delivery takes a lease instead of holding a row lock.
--
-- Migration 023 had a board lock a witness's row (FOR UPDATE SKIP LOCKED)
-- for as long as it sent that witness its checkpoints: a transaction, and
-- one of the pool's few connections, held through up to a hundred HTTP
-- POSTs to a server the board does not control. A board now leases the row
-- (leased_until, under a token of its own), commits, sends outside any
-- transaction, and moves the cursor only while its lease is still its own.
-- A board that dies mid-send leaves the lease to expire; the next board
-- sends again from the cursor: at least once, as before.
ALTER TABLE log_witnesses
    ADD COLUMN leased_until timestamptz,
    ADD COLUMN lease_token  text;
