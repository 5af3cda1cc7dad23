// Usage: node client.mjs <mcp-url> <token> [tool] [json-arguments]
//
// Connects to a PACT Board agent URL with the official MCP TypeScript SDK
// over Streamable HTTP, sending the token as a bearer header; lists the
// tools, calls one (pact_whoami unless named) and prints one JSON line:
// {protocolVersion, server, instructions, tools, result}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, tool = "pact_whoami", args = "{}"] = process.argv.slice(2);
if (!url || !token) {
  console.error("usage: node client.mjs <mcp-url> <token> [tool] [json-arguments]");
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "pact-interop", version: "1.0.0" });
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
  console.log(JSON.stringify({
    protocolVersion: transport.protocolVersion,
    server: client.getServerVersion(),
    instructions: client.getInstructions(),
    tools: tools.map((t) => t.name).sort(),
    result,
  }));
} finally {
  await client.close();
}
