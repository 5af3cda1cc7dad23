-- task_offer (migration 024) takes the holder offered longest ago. Without
-- an index in that order it read and sorted every holder of the project
-- for each offer: with 10,000 holders, milliseconds inside the post's
-- transaction. With one, it walks the holders in offer order and stops at
-- the first that holds pact_events on the project and is not locked.
CREATE INDEX event_holders_offer_order_idx ON event_holders (last_offer_at NULLS FIRST, agent_id);
