// Claude Code's side of a channel, on the official MCP TypeScript SDK: it
// starts pact-channel over stdio (the path in argv[2]), with this process's
// environment, and prints one JSON line with the server's capabilities and
// instructions, then one per notification the SDK has no handler for
// (notifications/claude/channel among them). pact-channel's stderr is this
// process's. It ends when its stdin closes. Run by cmd/pact-channel's tests.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const transport = new StdioClientTransport({ command: process.argv[2], args: [], env: process.env, stderr: "inherit" });
const client = new Client({ name: "claude-code-stand-in", version: "1" });
client.fallbackNotificationHandler = async (notification) => {
  console.log(JSON.stringify({ notification }));
};
await client.connect(transport);
console.log(JSON.stringify({ capabilities: client.getServerCapabilities(), instructions: client.getInstructions() }));
process.stdin.on("end", async () => {
  await client.close();
  process.exit(0);
});
process.stdin.resume();
