// Usage: node agent.mjs <calls.json>
//
// calls.json: {"url": "<mcp-url>", "token": "<bearer>", "calls": [{"tool": "…", "args": {…}}, …]}
//
// Connects to a PACT Board agent URL with the official MCP TypeScript SDK
// over Streamable HTTP, sending the token as a bearer header; lists the
// tools, makes each call in order on the one session, and prints one JSON
// line: {protocolVersion, server, instructions, tools, results}.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const file = process.argv[2];
if (!file) {
  console.error("usage: node agent.mjs <calls.json>");
  process.exit(2);
}
const { url, token, calls } = JSON.parse(readFileSync(file, "utf8"));

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "pact-ts-agent", version: "1.0.0" });
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const results = [];
  for (const { tool, args } of calls) {
    results.push(await client.callTool({ name: tool, arguments: args ?? {} }));
  }
  console.log(JSON.stringify({
    protocolVersion: transport.protocolVersion,
    server: client.getServerVersion(),
    instructions: client.getInstructions(),
    tools: tools.map((t) => t.name).sort(),
    results,
  }));
} finally {
  await client.close();
}
