// Drive a page through a DevTools endpoint with one of the Node clients, then print
// one JSON line: what the page saw for a denied and an allowed write.
//   node clients.js <playwright|puppeteer|cri|mcp> <cdp-http-url> <page-url>
//   node clients.js <session|puppeteer-session> <cdp-http-url> <portal-url>
//   node clients.js <puppeteer-form|devtools-mcp-form> <cdp-http-url> <form-url>
//   node clients.js puppeteer-connect <cdp-http-url> -
// "mcp" drives the page as an agent would, through Playwright MCP's tools (navigate,
// snapshot, click); "session" logs in with the browser, then sends writes from the
// driver with Playwright's context.request / page.request.
const [kind, cdpUrl, pageUrl] = process.argv.slice(2);
const POST = (path) => `fetch(${JSON.stringify(path)}, {method: 'POST', body: 'x'})
  .then(r => r.status, e => 'error')`;

async function withPlaywright() {
  const { chromium } = require('playwright-core');
  const browser = await chromium.connectOverCDP(cdpUrl);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(pageUrl);
  const out = { denied: await page.evaluate(POST('/hit/denied-node')),
                allowed: await page.evaluate(POST('/hit/allowed-node')) };
  await context.close();
  await browser.close();
  return out;
}

async function withPuppeteer() {
  const puppeteer = require('puppeteer-core');
  const browser = await puppeteer.connect({ browserURL: cdpUrl });
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.goto(pageUrl);
  const out = { denied: await page.evaluate(POST('/hit/denied-node')),
                allowed: await page.evaluate(POST('/hit/allowed-node')) };
  await context.close();
  await browser.disconnect();
  return out;
}

async function withCri() {
  const CDP = require('chrome-remote-interface');
  const { hostname: host, port } = new URL(cdpUrl);
  const target = await CDP.New({ host, port, url: pageUrl });
  const client = await CDP({ host, port, target });
  const { Page, Runtime } = client;
  await Page.enable();
  for (let i = 0; i < 100; i++) {
    const { result } = await Runtime.evaluate({ expression: 'document.readyState' });
    if (result.value === 'complete') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const run = async (expr) => (await Runtime.evaluate({ expression: expr,
                                                        awaitPromise: true })).result.value;
  const out = { denied: await run(POST('/hit/denied-node')),
                allowed: await run(POST('/hit/allowed-node')) };
  await client.close();
  await CDP.Close({ host, port, id: target.id });
  return out;
}

async function withSession() {
  // Playwright's APIRequestContext sends HTTP from this process with the cookies it
  // reads from Chrome (Storage.getCookies): the guard never sees these requests.
  const { chromium } = require('playwright-core');
  const browser = await chromium.connectOverCDP(cdpUrl);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(pageUrl + '/');
  await page.click('#login');
  await page.waitForURL('**/home');
  const cookies = (await context.cookies()).map((c) => c.name).sort();
  const post = (await context.request.post(pageUrl + '/submission', { data: 'x' })).status();
  const put = (await page.request.put(pageUrl + '/section/1', { data: 'x' })).status();
  await page.goto(pageUrl + '/home');
  const stillLoggedIn = page.url() === pageUrl + '/home';
  await browser.close();
  return { cookies, post, put, stillLoggedIn };
}

async function withPuppeteerSession() {
  // A skill that copies the session into its own HTTP client: Puppeteer's page.cookies()
  // (Network.getCookies) and browser.cookies() (Storage.getCookies), then Node's fetch.
  const puppeteer = require('puppeteer-core');
  const browser = await puppeteer.connect({ browserURL: cdpUrl });
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.goto(pageUrl + '/');
  await Promise.all([page.waitForNavigation(), page.click('#login')]);
  const jar = [...await page.cookies(), ...await context.cookies()];
  const cookie = jar.map((c) => `${c.name}=${c.value}`).join('; ');
  const resp = await fetch(pageUrl + '/submission', { method: 'POST', body: 'x',
                                                      headers: cookie ? { cookie } : {} });
  const loggedIn = page.url() === pageUrl + '/home';
  await context.close();
  await browser.disconnect();
  return { cookies: [...new Set(jar.map((c) => c.name))].sort(), post: resp.status,
           loggedIn };
}

async function withMcp() {
  // Playwright MCP as an agent host starts it: a stdio MCP server attached to the
  // browser at --cdp-endpoint. It uses the browser's existing context; no download.
  const { spawn } = require('child_process');
  const cli = require('path').join(__dirname, 'node_modules', '@playwright', 'mcp', 'cli.js');
  const fs = require('fs');
  const path = require('path');
  // Its workspace (snapshot files) in a scratch folder, never in the checkout.
  const workspace = fs.mkdtempSync(path.join(require('os').tmpdir(), 'ajantik-mcp-'));
  // Its 5 s default action timeout ran out once for a click on Chrome directly, in a
  // full run on two busy cores: the tests wait for the site, not for MCP's patience.
  const proc = spawn(process.execPath, [cli, '--cdp-endpoint', cdpUrl,
                                        '--output-dir', workspace,
                                        '--timeout-action', '20000'],
                     { cwd: workspace, stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  let nextId = 1;
  const waiting = new Map();
  proc.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      if (msg.id !== undefined && waiting.has(msg.id)) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      }
    }
  });
  const rpc = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    const timer = setTimeout(() => reject(new Error(`MCP ${method} timed out`)), 60000);
    waiting.set(id, (msg) => {
      clearTimeout(timer);
      if (msg.error) reject(new Error(`MCP ${method}: ${JSON.stringify(msg.error)}`));
      else resolve(msg.result);
    });
    proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const tool = async (name, args) => {
    const result = await rpc('tools/call', { name, arguments: args });
    const text = (result.content || []).map((c) => c.text || '').join('\n');
    // Snapshots may come as a link to a file in the workspace instead of inline.
    return text.replace(/\[Snapshot\]\(([^)]+)\)/g, (_, file) =>
      fs.readFileSync(path.resolve(workspace, file), 'utf8'));
  };
  try {
    await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {},
                              clientInfo: { name: 'ajantik-tests', version: '0' } });
    proc.stdin.write(JSON.stringify({ jsonrpc: '2.0',
                                      method: 'notifications/initialized' }) + '\n');
    // A tab of its own, as an agent opens one: MCP otherwise drives the browser's first
    // tab, which in a Chrome shared with earlier tests may be a background tab, where no
    // animation frame fires and every click waits for "stable" until it times out.
    const snapshot = await tool('browser_tabs', { action: 'new', url: pageUrl });
    const ref = (label) => {
      const m = snapshot.match(new RegExp(`button "${label}" \\[ref=(\\w+)\\]`));
      if (!m) throw new Error(`no ${label} button in the snapshot:\n${snapshot}`);
      return m[1];
    };
    const out = {};
    for (const [key, label] of [['allowed', 'Save draft'], ['denied', 'Submit']]) {
      // 0.0.8x names the snapshot reference "target"; earlier releases named it "ref".
      const clicked = await tool('browser_click', { element: `${label} button`,
                                                    target: ref(label), ref: ref(label) });
      const waited = await tool('browser_wait_for', { text: `${key}:` });
      const text = await tool('browser_snapshot', {});
      const m = text.match(new RegExp(`${key}:(\\w+)`));
      out[key] = m ? (m[1] === 'error' ? 'error' : Number(m[1]))
        : { clicked, waited, text };
    }
    await tool('browser_tabs', { action: 'close' });
    return out;
  } finally {
    proc.kill();
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

// The film's timeline (tests/film/test_timeline.py): a person's actions on the form page
// (click the name field, type, Tab, choose a file, a script of the skill's, Save), then
// one JSON line with what the page showed.
async function fillFormWithPuppeteer() {
  const puppeteer = require('puppeteer-core');
  const browser = await puppeteer.connect({ browserURL: cdpUrl });
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.goto(pageUrl);
  await page.click('#name');
  await page.type('#name', 'Ada');
  await page.keyboard.press('Tab');
  const input = await page.$('#file');
  await input.uploadFile(__filename);
  await page.evaluate(() => { document.title = 'skill was here'; });
  await page.click('#save');
  // Read back without a script of the skill's (which the timeline would show): the wait's
  // own handle.
  const shown = await page.waitForFunction(() => document.getElementById('out').textContent);
  const out = { shown: await shown.jsonValue() };
  await context.close();
  await browser.disconnect();
  return out;
}

async function fillFormWithDevtoolsMcp() {
  // chrome-devtools-mcp as an agent host starts it, attached to the browser at
  // --browserUrl; offline: no usage statistics, no CrUX lookups.
  const { spawn } = require('child_process');
  const cli = require('path').join(__dirname, 'node_modules', 'chrome-devtools-mcp', 'build',
                                   'src', 'bin', 'chrome-devtools-mcp.js');
  const proc = spawn(process.execPath, [cli, '--browserUrl', cdpUrl, '--no-usage-statistics',
                                        '--no-performance-crux'],
                     { stdio: ['pipe', 'pipe', 'inherit'] });
  const fs = require('fs');
  const folder = fs.mkdtempSync(require('path').join(require('os').tmpdir(), 'ajantik-up-'));
  const upload = require('path').join(folder, 'statement.txt');
  let buffer = '';
  let nextId = 1;
  const waiting = new Map();
  proc.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line);
      if (msg.id !== undefined && waiting.has(msg.id)) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      }
    }
  });
  const rpc = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    const timer = setTimeout(() => reject(new Error(`MCP ${method} timed out`)), 60000);
    waiting.set(id, (msg) => {
      clearTimeout(timer);
      if (msg.error) reject(new Error(`MCP ${method}: ${JSON.stringify(msg.error)}`));
      else resolve(msg.result);
    });
    proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const tool = async (name, args) => {
    const result = await rpc('tools/call', { name, arguments: args });
    const text = (result.content || []).map((c) => c.text || '').join('\n');
    if (result.isError) throw new Error(`${name}: ${text}`);
    return text;
  };
  try {
    await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {},
                              clientInfo: { name: 'ajantik-tests', version: '0' } });
    proc.stdin.write(JSON.stringify({ jsonrpc: '2.0',
                                      method: 'notifications/initialized' }) + '\n');
    const opened = await tool('new_page', { url: pageUrl });
    const selected = opened.match(/(\d+): \S+ \[selected\]/);
    if (!selected) throw new Error(`no selected page:\n${opened}`);
    const pageId = Number(selected[1]);
    const snapshot = await tool('take_snapshot', { pageId });
    const uid = (role, label) => {
      const m = snapshot.match(new RegExp(`uid=(\\S+) ${role} "${label}"`));
      if (!m) throw new Error(`no ${role} "${label}" in the snapshot:\n${snapshot}`);
      return m[1];
    };
    await tool('click', { pageId, uid: uid('textbox', 'Name') });
    await tool('fill', { pageId, uid: uid('textbox', 'Name'), value: 'Ada' });
    await tool('press_key', { pageId, key: 'Tab' });
    // Uploads come only from the MCP roots it was given, the temporary folder at least
    // (the page reads the file when the form is sent: it stays until the end).
    fs.writeFileSync(upload, 'a statement');
    await tool('upload_file', { pageId, uid: uid('button', 'File'), filePaths: [upload] });
    await tool('evaluate_script', { pageId, function:
      "() => { document.title = 'skill was here'; return 1; }" });
    await tool('click', { pageId, uid: uid('button', 'Save') });
    const waited = await tool('wait_for', { pageId, text: ['saved:200'] });
    return { shown: waited.includes('saved:200') ? 'saved:200' : waited };
  } finally {
    proc.kill();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

// Connect, count the pages, disconnect: how long a connect takes (printed in ms).
async function connectWithPuppeteer() {
  const puppeteer = require('puppeteer-core');
  const began = Date.now();
  const browser = await puppeteer.connect({ browserURL: cdpUrl, protocolTimeout: 60000 });
  const pages = (await browser.pages()).length;
  const ms = Date.now() - began;
  await browser.disconnect();
  return { pages, ms };
}

const runners = { playwright: withPlaywright, 'puppeteer-connect': connectWithPuppeteer, puppeteer: withPuppeteer, cri: withCri,
                  session: withSession, 'puppeteer-session': withPuppeteerSession,
                  mcp: withMcp, 'puppeteer-form': fillFormWithPuppeteer,
                  'devtools-mcp-form': fillFormWithDevtoolsMcp };
runners[kind]().then(
  (out) => { console.log(JSON.stringify(out)); process.exit(0); },
  (err) => { console.error(String(err && err.stack || err)); process.exit(1); },
);
