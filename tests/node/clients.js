// Drive a page through a DevTools endpoint with one of three Node clients, then print
// one JSON line: what the page saw for a denied and an allowed write.
//   node clients.js <playwright|puppeteer|cri> <cdp-http-url> <page-url>
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

const runners = { playwright: withPlaywright, puppeteer: withPuppeteer, cri: withCri };
runners[kind]().then(
  (out) => { console.log(JSON.stringify(out)); process.exit(0); },
  (err) => { console.error(String(err && err.stack || err)); process.exit(1); },
);
