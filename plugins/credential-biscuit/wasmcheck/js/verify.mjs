// verify.mjs checks Biscuit tokens minted by plugins/credential-biscuit (in
// its tests, or exported by a running board) with the official
// @biscuit-auth/biscuit-wasm library (an independent Rust implementation):
// node verify.mjs cases.json (see package wasmcheck). It prints "ok <name>" per case
// whose outcome matches the expected one and exits 1 on any mismatch.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// The package is a wasm-pack bundler build; load it by hand so Node 20 needs
// no --experimental-wasm-modules flag.
async function loadBiscuit() {
  const here = dirname(fileURLToPath(import.meta.url));
  const dir = join(here, "node_modules", "@biscuit-auth", "biscuit-wasm", "module");
  const bg = await import(pathToFileURL(join(dir, "biscuit_bg.js")).href);
  const module = await WebAssembly.compile(await readFile(join(dir, "biscuit_bg.wasm")));
  const imports = {};
  for (const { module: name } of WebAssembly.Module.imports(module)) {
    if (imports[name]) continue;
    imports[name] = name === "./biscuit_bg.js" ? bg : await import(pathToFileURL(join(dir, name)).href);
  }
  const instance = await WebAssembly.instantiate(module, imports);
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  return bg;
}

const bw = await loadBiscuit();
const input = JSON.parse(await readFile(process.argv[2], "utf8"));
// A fresh key object per parse: the library takes ownership of what the
// provider returns.
const rootKey = () => bw.PublicKey.fromString(input.public_key_hex, bw.SignatureAlgorithm.Ed25519);

// The verifier's facts, computed here independently of the Go helper.
function authorizerCode(c) {
  const params = { tool: c.tool, project: c.project, now: { date: new Date(c.now).toISOString() } };
  const names = ["project"];
  let code = "tool({tool});\nproject({project});\ntime({now});\n";
  Object.keys(c.args ?? {}).sort().forEach((k, i) => {
    if (k === "project") return;
    const v = c.args[k];
    params[`k${i}`] = k;
    params[`v${i}`] = typeof v === "number" ? Math.round(v * 1e6) : String(v);
    code += `arg({k${i}}, {v${i}});\n`;
    names.push(k);
  });
  params.names = { set: names };
  code += "arg_names({names});\nallow if tool($t), project($p), right($p, $t);\ndeny if true;\n";
  return { code, params };
}

let failed = 0;
for (const c of input.cases) {
  let allowed = false;
  let why = "";
  try {
    const token = bw.Biscuit.fromBase64WithProvider(c.token, (id) => {
      if (id !== input.root_key_id) throw new Error(`unexpected root key id ${id}`);
      return rootKey();
    });
    const ids = token.getRevocationIdentifiers().map(String);
    if (c.ids && JSON.stringify(ids) !== JSON.stringify(c.ids)) {
      throw new Error(`revocation ids ${ids} differ from Go's ${c.ids}`);
    }
    const hit = ids.find((id) => (c.revoked ?? []).includes(id));
    if (hit) throw new Error(`revoked id ${hit}`);
    const { code, params } = authorizerCode(c);
    const builder = new bw.AuthorizerBuilder();
    builder.addCodeWithParameters(code, params, {});
    const authorizer = builder.buildAuthenticated(token);
    authorizer.authorizeWithLimits({ max_facts: 1000, max_iterations: 100, max_time_micro: 5_000_000 });
    allowed = true;
  } catch (e) {
    why = e instanceof Error ? e.message : JSON.stringify(e);
  }
  if (allowed === c.allow) {
    console.log(`ok ${c.name}${why ? ` (refused: ${why.slice(0, 200)})` : ""}`);
  } else {
    failed++;
    console.log(`FAIL ${c.name}: want allow=${c.allow}, got allow=${allowed} ${why}`);
  }
}
process.exit(failed ? 1 : 0);
