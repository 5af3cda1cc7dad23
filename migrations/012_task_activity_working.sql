-- task_activity keeps a row for each working task only: the claim writes it
-- (the assignee's first heartbeat) and the task's leaving working removes
-- it. So finding the stale claims, which every claim, report and list does,
-- reads the stale rows through an index on the heartbeat's time instead of
-- every working task of the project (docs/benchmarks.md, "Round trips").

DELETE FROM task_activity a USING tasks t WHERE t.id = a.task_id AND t.status <> 'working';

INSERT INTO task_activity (task_id, agent_id, at)
SELECT id, assignee, coalesce(claimed_at, now()) FROM tasks
WHERE status = 'working' AND assignee IS NOT NULL
ON CONFLICT (task_id) DO NOTHING;

CREATE INDEX task_activity_at_idx ON task_activity (at);

CREATE FUNCTION task_activity_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM task_activity WHERE task_id = NEW.id;
    RETURN NULL;
END $$;

CREATE TRIGGER tasks_stop_working AFTER UPDATE OF status ON tasks FOR EACH ROW
    WHEN (OLD.status = 'working' AND NEW.status <> 'working')
    EXECUTE FUNCTION task_activity_stop();
