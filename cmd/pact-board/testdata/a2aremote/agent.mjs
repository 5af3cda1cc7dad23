// A remote A2A agent built on the official JavaScript SDK's server
// (@a2a-js/sdk, DefaultRequestHandler with express), which a PACT Board
// drives as a worker of client a2a-remote (docs/a2a.md). Run by
// cmd/pact-board's a2a_remote_e2e_test.go:
//
//   node agent.mjs <config.json>   with {"token": "…"}
//
// It listens on 127.0.0.1 on a free port and prints one JSON line per
// thing the test follows: {"step":"listening","card":…} with its cards'
// URLs (its own; one without an A2A 1.0 interface; one that does not
// stream), then {"step":"rpc",…} for every call it takes,
// {"step":"message",…} for every message it gets and {"step":"canceled",…}
// for every task it cancels. Its JSON-RPC interface takes only
// "Authorization: Bearer <token>"; its cards are public.
//
// What it does with a message:
//   - "ask": working, then input-required asking "Blue or green?"; the next
//     message on that task is the answer: an artifact echoing it, completed;
//   - "slow": working until it is canceled (CancelTask);
//   - anything else: working, an artifact "result", an artifact named
//     "handoff" with a "## Handoff" section, completed.
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import express from "express";
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const conf = JSON.parse(readFileSync(process.argv[2], "utf8"));
const say = (step, fields = {}) => process.stdout.write(JSON.stringify({ step, ...fields }) + "\n");

const textPart = (value) => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" });
const textOf = (message) =>
  (message?.parts ?? []).filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("\n");
const now = () => new Date().toISOString();

class BoardWorker {
  // waiting: the slow tasks' cancel, by task id.
  waiting = new Map();

  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const text = textOf(ctx.userMessage);
    const existing = ctx.task;
    say("message", { taskId, contextId, text, followUp: existing !== undefined, state: stateName(existing),
      messageId: ctx.userMessage.messageId, metadata: ctx.userMessage.metadata ?? {} });
    // Every turn begins with the task, as the SDK's samples do.
    bus.publish(AgentEvent.task(existing ?? { id: taskId, contextId, artifacts: [], history: [ctx.userMessage],
      metadata: {}, status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined } }));
    const status = (state, message) => bus.publish(AgentEvent.statusUpdate({ taskId, contextId, metadata: {},
      status: { state, timestamp: now(), message: message && { role: Role.ROLE_AGENT, messageId: randomUUID(), taskId,
        contextId, parts: [textPart(message)], extensions: [], metadata: {}, referenceTaskIds: [] } } }));
    const artifact = (artifactId, name, value) => bus.publish(AgentEvent.artifactUpdate({ taskId, contextId,
      append: false, lastChunk: true, metadata: undefined,
      artifact: { artifactId, name, description: "", parts: [textPart(value)], metadata: undefined, extensions: [] } }));

    if (existing?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      status(TaskState.TASK_STATE_WORKING);
      artifact("result", "result", `You chose ${text}. Painted it ${text.toLowerCase()}.`);
      status(TaskState.TASK_STATE_COMPLETED);
      return;
    }
    status(TaskState.TASK_STATE_WORKING);
    if (/\bask\b/i.test(text)) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, "Blue or green?");
      return;
    }
    if (/\bslow\b/i.test(text)) {
      await new Promise((resolve) => this.waiting.set(taskId, resolve));
      this.waiting.delete(taskId);
      status(TaskState.TASK_STATE_CANCELED, "Stopped as asked.");
      say("canceled", { taskId });
      return;
    }
    const title = text.split("\n")[0];
    artifact("result", "result", `Did it: ${title}`);
    artifact(randomUUID(), "handoff", `## Handoff\n- Done: ${title}, by the remote agent\n- Left / next: nothing`);
    status(TaskState.TASK_STATE_COMPLETED);
  }

  cancelTask = async (taskId, bus) => {
    const resume = this.waiting.get(taskId);
    if (resume) {
      resume();
      return;
    }
    // A task no execute waits on (it asked, say): canceled here.
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: "", metadata: {},
      status: { state: TaskState.TASK_STATE_CANCELED, timestamp: now(), message: undefined } }));
    say("canceled", { taskId });
  };
}

function stateName(task) {
  if (!task) return "";
  return Object.keys(TaskState).find((k) => TaskState[k] === task.status?.state) ?? String(task.status?.state);
}

const card = {
  name: "Remote painter",
  description: "Paints things, asks which colour, and takes its time when told to be slow.",
  supportedInterfaces: [{ url: "", protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION }],
  provider: { organization: "PACT Board tests", url: "https://example.com" },
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
  securitySchemes: { Bearer: { scheme: { $case: "httpAuthSecurityScheme",
    value: { description: "A bearer token", scheme: "bearer", bearerFormat: "" } } } },
  securityRequirements: [{ schemes: { Bearer: { list: [] } } }],
  defaultInputModes: ["text"],
  defaultOutputModes: ["text"],
  skills: [{ id: "paint", name: "Paint", description: "Paints what it is told to.", tags: ["paint"], examples: ["paint the fence"],
    inputModes: ["text"], outputModes: ["text"], securityRequirements: [] }],
  documentationUrl: "",
  signatures: [],
};
// A card whose only JSON-RPC interface is A2A 0.3's: the board must refuse it.
const legacyCard = { ...card, name: "Legacy painter",
  supportedInterfaces: [{ url: "", protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" }] };
// The same agent, saying it does not stream: the board must read its tasks.
const polledCard = { ...card, name: "Polled painter", capabilities: { ...card.capabilities, streaming: false },
  supportedInterfaces: [{ ...card.supportedInterfaces[0] }] };

const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new BoardWorker());
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
app.use(`/legacy/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: async () => legacyCard }));
app.use(`/polled/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: async () => polledCard }));
// The bearer token, as the SDK's authentication sample checks it in a
// middleware before the JSON-RPC handler.
app.use((req, res, next) => {
  if (req.header("authorization") !== `Bearer ${conf.token}`) {
    say("unauthorized", { method: req.method, path: req.path });
    res.status(401).json({ error: "unauthorized" });
    return;
  }
  next();
});
// Each call the board makes, by method and task, so the test sees how it
// follows a task: streams when the card says so, else reads.
app.use(express.json({ limit: "4mb" }), (req, res, next) => {
  const p = req.body?.params ?? {};
  say("rpc", { method: req.body?.method, taskId: p.id ?? p.message?.taskId ?? "" });
  next();
});
app.use(jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));

const server = app.listen(0, "127.0.0.1", (err) => {
  if (err) throw err;
  const base = `http://127.0.0.1:${server.address().port}`;
  card.supportedInterfaces[0].url = `${base}/`;
  legacyCard.supportedInterfaces[0].url = `${base}/legacy/`;
  polledCard.supportedInterfaces[0].url = `${base}/`;
  say("listening", { card: `${base}/${AGENT_CARD_PATH}`, legacyCard: `${base}/legacy/${AGENT_CARD_PATH}`,
    polledCard: `${base}/polled/${AGENT_CARD_PATH}` });
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
