-- Who asked: the agent that last handed a task to people (pact_defer, or
-- pact_report status=input_required). A person's answer on resume is also
-- written to that agent as a message on the task, so an agent holding
-- pact_wait on the task gets it word for word (docs/board.md, "Deferred
-- tasks and answers").
ALTER TABLE tasks ADD COLUMN deferred_by text REFERENCES agents (id);
