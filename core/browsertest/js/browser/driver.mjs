// A browser driver for Go tests (core/browsertest): launches the Chromium
// binary given in argv[2] headless through playwright-core, then reads one
// JSON command a line on stdin and answers each with one JSON line on
// stdout, in order: {"id", "result"} or {"id", "error"}. Long-lived, so a
// test can interleave Go-side actions (an agent's MCP call, a database
// check) between browser steps.
//
// Commands (every one but "close" names a page opened by "open"):
//   open        {page, width, height}        a fresh context (own cookies and storage)
//   viewport    {page, width, height}
//   goto        {page, url}                  waits for the load event
//   click       {page, role, name}           getByRole(role, {name, exact})
//   clickIn     {page, within, text, role, name}
//                                            the one `within` element (a CSS
//                                            selector) that shows text, then
//                                            getByRole(role, {name, exact}) in it
//   expand      {page, summary}              opens the <details> whose <summary> reads summary
//                                            exactly (a summary has no ARIA role to click it by)
//   fill        {page, label, value}         getByLabel(label, {exact})
//   select      {page, label, value}         the first getByLabel(label, {exact}) (else not exact): selectOption(value), by value or text
//   value       {page, label}                the value of the field getByLabel(label, {exact})
//   values      {page}                       the value of every input, textarea and select, shown or not
//   expectText  {page, text}                 waits until text is visible
//   text        {page, selector}             innerText of the first match
//   html        {page}                       the document serialized: page.content()
//   url         {page}
//   waitURL     {page, prefix}               waits until the URL starts with prefix
//   screenshot  {page, path}                 the viewport, PNG
//   axe         {page}                       axe-core's violations
//   cookies     {page}
//   storage     {page}                       localStorage as an object
//   texts       {page, role}                 innerText of every visible element of the role
//   attrs       {page, selector, attr}       attr of every visible element matching selector
//   requests    {page}                       every request the page made: {method, url, navigation}
//   press       {page, key}                  keyboard.press(key), e.g. "Tab", "Enter", "Escape"
//   focused     {page}                       the focused element: {tag, text, inDialog}
//   closePage   {page}
//   close       {}                           closes the browser; exits
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const [executablePath, timeoutArg] = process.argv.slice(2);
const timeout = Number(timeoutArg) || 15000;

// Root in a container has no user namespaces for Chromium's sandbox; the
// pages are the test's own, so running them unsandboxed is acceptable here.
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage'],
});

const pages = new Map();
const requests = new Map(); // page name → the requests it made, in order

function page(name) {
  const p = pages.get(name);
  if (!p) throw new Error(`no page ${JSON.stringify(name)}: open it first`);
  return p;
}

const ops = {
  async open({ page: name, width, height }) {
    const context = await browser.newContext({ viewport: { width, height } });
    context.setDefaultTimeout(timeout);
    const p = await context.newPage();
    const log = [];
    p.on('request', (r) => log.push({ method: r.method(), url: r.url(), navigation: r.isNavigationRequest() }));
    pages.set(name, p);
    requests.set(name, log);
    return null;
  },
  async viewport({ page: name, width, height }) {
    await page(name).setViewportSize({ width, height });
    return null;
  },
  async goto({ page: name, url }) {
    const res = await page(name).goto(url);
    return { status: res ? res.status() : 0, url: page(name).url() };
  },
  async click({ page: name, role, name: label }) {
    await page(name).getByRole(role, { name: label, exact: true }).click();
    return null;
  },
  async clickIn({ page: name, within, text, role, name: label }) {
    await page(name).locator(within).filter({ hasText: text }).getByRole(role, { name: label, exact: true }).click();
  },
  async expand({ page: name, summary }) {
    const escaped = summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const s = page(name).locator('summary').filter({ hasText: new RegExp('^\\s*' + escaped + '\\s*$') });
    if (!(await s.evaluate((el) => el.parentElement.open))) await s.click();
    return null;
  },

  async fill({ page: name, label, value }) {
    await page(name).getByLabel(label, { exact: true }).fill(value);
    return null;
  },
  async select({ page: name, label, value }) {
    // The label exactly; else, for a select inside its label (whose name
    // then takes in the chosen option's text), the label as a prefix.
    const exact = page(name).getByLabel(label, { exact: true });
    const target = (await exact.count()) > 0 ? exact.first() : page(name).getByLabel(label).first();
    await target.selectOption(value);
    return null;
  },
  async value({ page: name, label }) {
    return await page(name).getByLabel(label, { exact: true }).inputValue();
  },
  async values({ page: name }) {
    return await page(name).locator('input, textarea, select').evaluateAll((els) => els.map((e) => e.value));
  },
  async expectText({ page: name, text }) {
    await page(name).getByText(text).first().waitFor({ state: 'visible' });
    return null;
  },
  async waitURL({ page: name, prefix }) {
    await page(name).waitForURL((u) => u.href.startsWith(prefix));
    return page(name).url();
  },
  async text({ page: name, selector }) {
    return await page(name).locator(selector).first().innerText();
  },
  async html({ page: name }) {
    return await page(name).content();
  },
  async url({ page: name }) {
    return page(name).url();
  },
  async screenshot({ page: name, path }) {
    await page(name).screenshot({ path, type: 'png' });
    return null;
  },
  async axe({ page: name }) {
    const p = page(name);
    if (!(await p.evaluate(() => typeof window.axe !== 'undefined'))) {
      // Evaluated through the DevTools protocol rather than added as a
      // <script>: a page whose CSP forbids inline script (the console's)
      // is checked as it is served.
      await p.evaluate(axeSource);
    }
    const results = await p.evaluate(() => window.axe.run(document));
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  },
  async cookies({ page: name }) {
    return await page(name).context().cookies();
  },
  async storage({ page: name }) {
    return await page(name).evaluate(() => Object.fromEntries(Object.entries(window.localStorage)));
  },
  async texts({ page: name, role }) {
    return await page(name).getByRole(role).allInnerTexts();
  },
  async attrs({ page: name, selector, attr }) {
    return await page(name).locator(selector).evaluateAll(
      (els, a) => els.filter((e) => e.checkVisibility()).map((e) => e.getAttribute(a) ?? ''),
      attr,
    );
  },
  async press({ page: name, key }) {
    await page(name).keyboard.press(key);
    return null;
  },
  async focused({ page: name }) {
    return await page(name).evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return { tag: '', text: '', inDialog: false };
      const text = (el.getAttribute('aria-label') || el.labels?.[0]?.innerText || el.innerText || el.value || '').trim();
      return { tag: el.tagName.toLowerCase(), text, inDialog: !!el.closest('dialog[open]') };
    });
  },
  async requests({ page: name }) {
    page(name);
    return requests.get(name);
  },
  async closePage({ page: name }) {
    await page(name).context().close();
    pages.delete(name);
    requests.delete(name);
    return null;
  },
};

function reply(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}

// Ready: the Go side waits for this line before its first command.
reply({ id: 0, result: { version: browser.version() } });

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let cmd;
  try {
    cmd = JSON.parse(line);
  } catch (err) {
    reply({ id: -1, error: `bad command: ${err.message}` });
    continue;
  }
  if (cmd.op === 'close') break;
  const op = ops[cmd.op];
  if (!op) {
    reply({ id: cmd.id, error: `unknown op ${JSON.stringify(cmd.op)}` });
    continue;
  }
  try {
    reply({ id: cmd.id, result: (await op(cmd)) ?? null });
  } catch (err) {
    reply({ id: cmd.id, error: String(err && err.message ? err.message : err) });
  }
}
await browser.close();
reply({ id: -2, result: 'closed' });
