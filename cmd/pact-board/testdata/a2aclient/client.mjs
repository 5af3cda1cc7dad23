// Usage: node client.mjs <config.json>
//
// config.json: {"url": "<board>/a2a/a/<agent>", "token": "pact_…", "project": "<project id>"}
//
// An A2A client on the official JavaScript SDK (@a2a-js/sdk, its
// ClientFactory and JSON-RPC transport) working a PACT Board agent's A2A
// endpoint (docs/a2a.md). It prints one JSON line per step; what the SDK
// got back is printed as the SDK re-serializes it (its own toJSON), so an
// enum it could not read shows as UNRECOGNIZED. The Go test acts (the
// worker claims, asks, completes) on the lines it reads: the SDK's streams
// wait for the board, and the script needs no word back.
//
//  1. card: the card the SDK read at the agent's URL, and the extended
//     card (client.getAgentCard, GetExtendedAgentCard); beside: what the
//     SDK says given the URL without its trailing slash.
//  2. posted: sendMessage with returnImmediately, a new task; then push:
//     createTaskPushNotificationConfig on it, pointing at a receiver this
//     script runs, get and list it, the first post the board made to the
//     receiver (its headers, its body, and the body as the SDK's
//     StreamResponse reads it), then delete it and list again.
//  3. streaming, then event per event: sendMessageStream of a new task;
//     the worker claims it and asks; stream-ended when the SDK's stream
//     ends.
//  4. answered: sendMessage with the task's id, the answer; then
//     subscribed and event per event: resubscribeTask while the worker
//     claims it again and completes it; then got: getTask.
//  5. canceled: sendMessage of another task, cancelTask; then
//     cancel-again: the SDK's error for cancelling it again.
//  6. requests: every HTTP request the SDK made (method, URL, status,
//     its A2A-Version header, whether it had the bearer token).
//
// Anything that goes wrong ends it with status 1 and the error on stderr.
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  Role,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";

const file = process.argv[2];
if (!file) {
  console.error("usage: node client.mjs <config.json>");
  process.exit(2);
}
const { url, token, project } = JSON.parse(readFileSync(file, "utf8"));
const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// Every request the SDK makes goes through here: it adds the agent's token
// and records what was sent and answered.
const requests = [];
const authFetch = async (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set("Authorization", `Bearer ${token}`);
  const res = await fetch(input, { ...init, headers });
  requests.push({
    method: init.method ?? "GET",
    url: String(input),
    status: res.status,
    a2aVersion: headers.get("A2A-Version"),
    bearer: headers.get("Authorization") === `Bearer ${token}`,
  });
  return res;
};

const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch }),
  }),
);
// The SDK resolves the card's path (.well-known/agent-card.json) against
// the URL it is given, as a relative URL: the agent's URL needs its
// trailing slash for the card to be found below it.
const client = await factory.createFromUrl(url + "/");
const beside = await new ClientFactory().createFromUrl(url).then(() => "found", (err) => err.message);
const card = AgentCard.toJSON(client.agentCard);
const extended = AgentCard.toJSON(await client.getAgentCard());
say({ step: "card", card, extended, protocolVersion: client.protocolVersion, beside });

const text = (s) => ({ content: { $case: "text", value: s } });
const message = (body, extra = {}) => ({
  messageId: randomUUID(),
  role: Role.ROLE_USER,
  parts: [text(body)],
  ...extra,
});
const taskOf = (result) => {
  if ("messageId" in result) throw new Error(`a message where a task was expected: ${JSON.stringify(result)}`);
  return result;
};
const follow = async (stream) => {
  for await (const ev of stream) say({ step: "event", event: StreamResponse.toJSON(ev) });
};

// 2. Post a task and return at once.
const posted = taskOf(
  await client.sendMessage({
    message: message("Check the SDK posts\n\nA task posted by @a2a-js/sdk.", { contextId: project }),
    configuration: { returnImmediately: true },
  }),
);
say({ step: "posted", task: Task.toJSON(posted) });

// 2b. Have the board push the posted task to a receiver of this script's.
const pushes = [];
let pushed;
const firstPush = new Promise((resolve) => (pushed = resolve));
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    pushes.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
    res.writeHead(200).end();
    pushed();
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const hook = `http://127.0.0.1:${receiver.address().port}/push`;
const made = await client.createTaskPushNotificationConfig({ taskId: posted.id, url: hook, token: "tok-js" });
const read = await client.getTaskPushNotificationConfig({ taskId: posted.id, id: made.id });
const listed = await client.listTaskPushNotificationConfig({ taskId: posted.id });
await firstPush;
const push = pushes[0];
const event = StreamResponse.toJSON(StreamResponse.fromJSON(JSON.parse(push.body)));
await client.deleteTaskPushNotificationConfig({ taskId: posted.id, id: made.id });
const after = await client.listTaskPushNotificationConfig({ taskId: posted.id });
receiver.close();
say({
  step: "push",
  hook,
  made: TaskPushNotificationConfig.toJSON(made),
  read: TaskPushNotificationConfig.toJSON(read),
  listed: ListTaskPushNotificationConfigsResponse.toJSON(listed),
  after: ListTaskPushNotificationConfigsResponse.toJSON(after),
  push,
  event,
});

// 3. Post another by stream and follow it until it asks.
const stream = client.sendMessageStream({
  message: message("Stream this one\n\nThe worker will ask a question.", { contextId: project }),
});
const first = await stream.next();
if (first.done || first.value.payload?.$case !== "task") throw new Error(`the stream did not start with the task`);
const asked = first.value.payload.value;
say({ step: "streaming", taskId: asked.id, event: StreamResponse.toJSON(first.value) });
await follow(stream);
say({ step: "stream-ended" });

// 4. Answer it; follow it again while the worker finishes it; read it.
const answered = taskOf(
  await client.sendMessage({
    message: message("Blue, please.", { taskId: asked.id, contextId: project }),
    configuration: { returnImmediately: true },
  }),
);
say({ step: "answered", task: Task.toJSON(answered) });
const sub = client.resubscribeTask({ id: asked.id });
const again = await sub.next();
if (again.done) throw new Error("the subscription ended at once");
say({ step: "subscribed", event: StreamResponse.toJSON(again.value) });
await follow(sub);
say({ step: "stream-ended" });
say({ step: "got", task: Task.toJSON(await client.getTask({ id: asked.id })) });

// 5. Cancel a task, then cancel it again.
const other = taskOf(
  await client.sendMessage({ message: message("Cancel me", { contextId: project }), configuration: { returnImmediately: true } }),
);
say({ step: "canceled", task: Task.toJSON(await client.cancelTask({ id: other.id })) });
try {
  await client.cancelTask({ id: other.id });
  throw new Error("cancelling a canceled task succeeded");
} catch (err) {
  if (err.message === "cancelling a canceled task succeeded") throw err;
  say({ step: "cancel-again", error: { name: err.name, code: err.envelopeCode, message: err.message } });
}

say({ step: "requests", requests });
process.exit(0);
