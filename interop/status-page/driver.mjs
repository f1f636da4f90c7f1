// Drives Debian's headless Chromium with playwright-core for the Java tests (Browser.java).
//
// Reads one command per line on stdin and answers one line per command on stdout, `ok ...` or
// `fail <reason>`; the first line, once the browser runs, is `ok ready <browser version>`. A
// command is words split on spaces (`wait #count 7 3000`), or a JSON array of strings when an
// argument holds spaces (`["wait", "table td", "cart 3", "3000"]`). Commands:
//   goto URL                           load URL; resets reloads, errors and external
//   text SELECTOR                      ok <innerText, with \\ \n \r escaped>
//   wait SELECTOR SUBSTRING TIMEOUT_MS until the element's text contains SUBSTRING (no reload)
//   absent SUBSTRING                   ok when the page's whole text does not contain it
//   screenshot PATH                    a full-page PNG
//   reloads                            ok <main-frame navigations since the last goto>
//   errors                             ok <JSON array: console errors, page errors, failed requests>
//   external                           ok <JSON array: requests to another host than the page's>
// Requests to another host are recorded and aborted: the page must work offline, and a test never
// reaches the network. Every command has a timeout. It exits when stdin closes.
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const args = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run',
];
const LAUNCH_MS = 30_000;
const COMMAND_MS = 15_000;
const MAX_SEEN = 100; // per list: a page that fails in a loop must not grow this process

const browser = await chromium.launch({ executablePath, args, headless: true, timeout: LAUNCH_MS });
const page = await browser.newPage();
let origin = null; // host:port of the page's own server, from the last goto
let reloads = 0;
let errors = [];
let external = [];

const remember = (list, item) => list.length < MAX_SEEN && list.push(item);
const isExternal = (url) =>
  origin !== null && /^(https?|wss?):$/.test(url.protocol) && url.host !== origin;

page.on('framenavigated', (frame) => frame === page.mainFrame() && reloads++);
page.on('console', (m) => m.type() === 'error' && remember(errors, `console: ${m.text()}`));
page.on('pageerror', (e) => remember(errors, `page: ${e.message}`));
page.on('requestfailed', (r) => {
  if (!isExternal(new URL(r.url()))) remember(errors, `request ${r.url()}: ${r.failure()?.errorText}`);
});
page.on('response', (r) => r.status() >= 400 && remember(errors, `http ${r.status()} ${r.url()}`));
page.on('websocket', (ws) => isExternal(new URL(ws.url())) && remember(external, ws.url()));
await page.route(isExternal, (route) => {
  remember(external, route.request().url());
  return route.abort('blockedbyclient');
});

const escape = (s) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
const bodyText = () => page.evaluate(() => document.body?.innerText ?? '');

const commands = {
  async goto(url) {
    origin = new URL(url).host;
    errors = [];
    external = [];
    await page.goto(url, { timeout: COMMAND_MS, waitUntil: 'load' });
    reloads = 0; // the goto's own navigation is not a reload
    return 'ok';
  },
  async text(selector) {
    return `ok ${escape(await page.locator(selector).first().innerText({ timeout: COMMAND_MS }))}`;
  },
  async wait(selector, substring, timeoutMs) {
    const timeout = Number(timeoutMs);
    try {
      await page.waitForFunction(
        ([sel, sub]) => document.querySelector(sel)?.innerText.includes(sub),
        [selector, substring],
        { timeout, polling: 50 });
      return 'ok';
    } catch (e) {
      const now = await page.evaluate((sel) => document.querySelector(sel)?.innerText, selector);
      const seen = now === undefined ? 'no such element' : `its text is "${escape(now)}"`;
      return `fail ${selector} does not contain "${substring}" after ${timeout} ms: ${seen}`;
    }
  },
  async absent(substring) {
    const text = await bodyText();
    const at = text.indexOf(substring);
    if (at < 0) return 'ok';
    return `fail the page shows "${substring}": ...${escape(text.slice(Math.max(0, at - 40), at + 40))}...`;
  },
  async screenshot(path) {
    await page.screenshot({ path, fullPage: true, timeout: COMMAND_MS });
    return 'ok';
  },
  reloads: async () => `ok ${reloads}`,
  errors: async () => `ok ${JSON.stringify(errors)}`,
  external: async () => `ok ${JSON.stringify(external)}`,
};

function parse(line) {
  const words = line.trim().startsWith('[') ? JSON.parse(line) : line.trim().split(/ +/);
  return [words[0], words.slice(1)];
}

async function run(line) {
  const [name, rest] = parse(line);
  const command = commands[name];
  if (!command) return `fail unknown command "${name}"`;
  if (rest.length !== command.length) return `fail ${name} takes ${command.length} arguments`;
  // Each command's own bound: a wait gets its timeout plus a margin, every other COMMAND_MS.
  const bound = (name === 'wait' ? Number(rest[2]) : COMMAND_MS) + 5_000;
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(`fail ${name} did not finish within ${bound} ms`), bound);
  });
  try {
    return await Promise.race([command(...rest), late]);
  } finally {
    clearTimeout(timer);
  }
}

process.stdout.write(`ok ready ${browser.version()}\n`);
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === '') continue;
  let answer;
  try {
    answer = await run(line);
  } catch (e) {
    answer = `fail ${escape(String(e.message ?? e).split('\n')[0])}`;
  }
  process.stdout.write(`${answer}\n`);
}
// stdin closed: close the browser (bounded), then leave.
await Promise.race([browser.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
process.exit(0);
