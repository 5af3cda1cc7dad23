// Verifies deliveries the Go notifier-webhook produced, with the official
// Standard Webhooks library. Usage: node verify.mjs <cases.json>
//
// cases.json: {"secret": "whsec_…", "cases": [{"name", "headers": {…}, "body": "…", "valid": true|false}]}
// Each case must verify exactly when "valid" is true; the script prints one
// line per case and exits non-zero on the first mismatch. A case may also
// carry "sign": {"id", "timestamp", "body"}: the script then prints the
// signature the library computes, so Go can compare its own.
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const wh = new Webhook(input.secret);
let failed = 0;
for (const c of input.cases) {
  let ok = false;
  let why = "";
  try {
    wh.verify(c.body, c.headers);
    ok = true;
  } catch (e) {
    why = e.message;
  }
  const pass = ok === c.valid;
  if (!pass) failed++;
  console.log(`${pass ? "ok" : "FAIL"} ${c.name}: verified=${ok}${why ? ` (${why})` : ""}`);
}
for (const s of input.sign ?? []) {
  console.log(`sign ${s.id} ${wh.sign(s.id, new Date(s.timestamp * 1000), s.body)}`);
}
process.exit(failed ? 1 : 0);
