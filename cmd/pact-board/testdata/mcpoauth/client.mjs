// Usage: node client.mjs <config.json>
//
// config.json: {"url": "<board>/mcp/a/<agent>", "redirectUrl": "<where the sign-in comes back>"}
//
// An MCP client on the official TypeScript SDK that signs in the way a
// hosted app does, with nothing but the agent's URL: the SDK's own OAuth
// client flow (its auth(), through an OAuthClientProvider kept in memory).
//
//  1. It connects without a token. The board answers 401 with a challenge
//     naming its RFC 9728 document; the SDK reads it, then the authorization
//     server's metadata, registers itself (RFC 7591) and asks to send the
//     person to the authorization URL (code flow, PKCE S256, `resource`):
//     this prints {"authorize": "<url>"} and waits.
//  2. It reads the authorization code as one line on stdin, has the SDK
//     exchange it (transport.finishAuth), connects again with the tokens,
//     calls pact_whoami and prints {"whoami", "accessToken", "requests"}:
//     the tool's answer, the token the SDK got, and every HTTP request the
//     SDK made (method, URL without its query, status), in order.
//
// Anything that goes wrong ends it with status 1 and the error on stderr.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";

const file = process.argv[2];
if (!file) {
  console.error("usage: node client.mjs <config.json>");
  process.exit(2);
}
const { url, redirectUrl } = JSON.parse(readFileSync(file, "utf8"));
const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// What a hosted app keeps between the redirect and its return, in memory.
class MemoryProvider {
  constructor() {
    this.stored = {};
    this.sentState = randomBytes(16).toString("hex");
  }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: "pact-mcp-oauth-e2e",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none", // a public client: PKCE alone
    };
  }
  state() { return this.sentState; }
  clientInformation() { return this.stored.client; }
  saveClientInformation(info) { this.stored.client = info; }
  tokens() { return this.stored.tokens; }
  saveTokens(tokens) { this.stored.tokens = tokens; }
  saveCodeVerifier(v) { this.stored.verifier = v; }
  codeVerifier() { return this.stored.verifier; }
  redirectToAuthorization(authorizationUrl) { say({ authorize: authorizationUrl.href }); }
}

const requests = [];
const logged = async (input, init) => {
  const res = await fetch(input, init);
  const u = new URL(input instanceof Request ? input.url : String(input));
  u.search = "";
  requests.push({ method: init?.method ?? (input instanceof Request ? input.method : "GET"), url: u.href, status: res.status });
  return res;
};

const provider = new MemoryProvider();
const connect = async () => {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: logged });
  const client = new Client({ name: "pact-mcp-oauth-e2e", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
};

try {
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: logged });
  try {
    await new Client({ name: "pact-mcp-oauth-e2e", version: "1.0.0" }).connect(first);
    throw new Error("connected without signing in: the board asked for no token");
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const { value: code, done } = await lines.next();
  if (done || !code) throw new Error("no authorization code on stdin");
  await first.finishAuth(code.trim());

  const { client } = await connect();
  const res = await client.callTool({ name: "pact_whoami", arguments: {} });
  if (res.isError) throw new Error(`pact_whoami refused: ${JSON.stringify(res.content)}`);
  await client.close();
  say({
    whoami: res.structuredContent ?? JSON.parse(res.content[0].text),
    accessToken: provider.tokens().access_token,
    requests,
  });
  process.exit(0);
} catch (err) {
  console.error(err?.stack ?? String(err));
  console.error(JSON.stringify({ requests }));
  process.exit(1);
}
