// The portal-pilot filings as a Node program driving the browser with puppeteer-core:
// a second skill for `ajantik test run`, in another language, to show the command is
// any program.
//
//   CDP_URL=http://127.0.0.1:9333 PORTAL_URL=http://127.0.0.1:8765 node file_all.js [--verify]
//
// It connects to CDP_URL (the guard), takes the portal's tab in the signed-in browser
// (or opens one), and saves each filing's sections and uploads its documents with the
// page's own fetch (the page's cookies, so the browser's session). Without --verify it
// trusts each answer (one retry on an error); with --verify it reads each filing back
// and redoes only what the registry does not hold, never re-uploading a document it
// holds. When the portal asks to sign in (HTTP 401 or the login page) it asks the
// operator over stdout/stdin, the protocol of docs/adapter.md, and tries once more.
// It prints SKILL.md's FILING REPORT and exits 0; 1 when it cannot work at all.

"use strict";

const { readFileSync } = require("node:fs");
const { basename, dirname, join, resolve } = require("node:path");
const { createInterface } = require("node:readline");
const puppeteer = require("puppeteer-core");

const here = __dirname;
const taskFile = process.env.PORTAL_PILOT_TASK
  || resolve(here, "../ajantik_portal_pilot/skill/filings.json");
const portal = (process.env.PORTAL_URL || "http://127.0.0.1:8765").replace(/\/$/, "");
const verify = process.argv.includes("--verify");
const ORDER = ["company", "officers", "capital", "documents", "declaration"];

const stdin = createInterface({ input: process.stdin });
const answers = stdin[Symbol.asyncIterator]();
let askId = 0;

async function askOperator(kind, message) {
  askId += 1;
  process.stdout.write(JSON.stringify({ ask: kind, id: askId, message, portal }) + "\n");
  const next = await answers.next();
  if (next.done) return false;
  try {
    const answer = JSON.parse(next.value);
    return answer.id === askId && answer.ok === true;
  } catch {
    return false;
  }
}

class SessionExpired extends Error {}

async function call(page, method, path, body) {
  // In the page: the browser's own cookies, through the guard like any page request.
  return page.evaluate(async (method, url, body) => {
    const init = { method, credentials: "same-origin" };
    if (body && body.file) {
      const bytes = Uint8Array.from(atob(body.file.b64), (c) => c.charCodeAt(0));
      const form = new FormData();
      form.append("file", new Blob([bytes], { type: "application/pdf" }), body.file.name);
      init.body = form;
    } else if (body) {
      init.headers = { "Content-Type": "application/json" };
      init.body = JSON.stringify(body);
    }
    try {
      const r = await fetch(url, init);
      let data = null;
      try { data = await r.json(); } catch { data = null; }
      return { status: r.status, data };
    } catch (e) {
      return { status: 0, data: { error: String(e) } };
    }
  }, method, portal + path, body);
}

async function signedIn(page, fn) {
  let r = await fn();
  if (r.status === 401) {
    if (!(await askOperator("sign_in", `the portal session expired (HTTP 401); sign in again, please`))) {
      throw new SessionExpired("the portal session expired (HTTP 401) and no one signed in");
    }
    r = await fn();
    if (r.status === 401) throw new SessionExpired("the portal session expired (HTTP 401)");
  }
  return r;
}

function writesOf(spec) {
  const out = [];
  for (const part of ORDER) {
    if (part === "documents") {
      for (const doc of spec.documents) out.push(["documents", doc]);
    } else if (spec.sections[part]) {
      out.push([part, spec.sections[part]]);
    }
  }
  return out;
}

async function write(page, record, part, value) {
  if (part === "documents") {
    const file = join(dirname(taskFile), value);
    const body = { file: { name: basename(file), b64: readFileSync(file).toString("base64") } };
    return signedIn(page, () => call(page, "POST", `/api/filings/${record}/documents`, body));
  }
  return signedIn(page, () => call(page, "PUT", `/api/filings/${record}/sections/${part}`, value));
}

function gaps(spec, filing) {
  const todo = [];
  for (const [part, value] of writesOf(spec)) {
    if (part === "documents") {
      if (!filing.documents.some((d) => d.name === basename(value))) todo.push([part, value]);
    } else if (JSON.stringify(filing.sections[part]) !== JSON.stringify(value)) {
      todo.push([part, value]);
    }
  }
  return todo;
}

async function fileOne(page, record, spec) {
  const problems = [];
  for (const [part, value] of writesOf(spec)) {
    let r = await write(page, record, part, value);
    if (!verify && (r.status < 200 || r.status >= 300)) r = await write(page, record, part, value);
    if (!verify && (r.status < 200 || r.status >= 300)) {
      problems.push(`${part} failed (HTTP ${r.status})`);
    }
  }
  if (!verify) return problems.length ? `not done — ${problems.join("; ")}` : "done — every answer was ok";
  for (let round = 0; round < 3; round += 1) {
    const got = await signedIn(page, () => call(page, "GET", `/api/filings/${record}`));
    if (got.status !== 200) return `unsure — could not read the filing back (HTTP ${got.status})`;
    const todo = gaps(spec, got.data.filing);
    if (!todo.length) return "done — read back: every section and document as asked";
    if (round === 2) return `not done — still missing: ${todo.map(([p]) => p).join(", ")}`;
    for (const [part, value] of todo) await write(page, record, part, value);
  }
  return "unsure — the read-back never settled";
}

async function main() {
  const cdp = process.env.CDP_URL;
  if (!cdp) throw new Error("set CDP_URL to the guard's address");
  const task = JSON.parse(readFileSync(taskFile, "utf8")).filings;
  const browser = await puppeteer.connect({ browserURL: cdp, defaultViewport: null });
  const lines = [];
  try {
    const pages = await browser.pages();
    const page = pages.find((p) => p.url().startsWith(portal + "/")) || await browser.newPage();
    await page.goto(portal + "/dashboard");
    if (page.url().startsWith(portal + "/login")) {
      if (!(await askOperator("sign_in", "the portal asks to sign in; sign in, please"))) {
        throw new Error("not signed in, and no one signed in");
      }
      await page.goto(portal + "/dashboard");
    }
    let stopped = "";
    for (const [record, spec] of Object.entries(task)) {
      if (stopped) {
        lines.push(`${record}: not done — not started: ${stopped}`);
        continue;
      }
      try {
        lines.push(`${record}: ${await fileOne(page, record, spec)}`);
      } catch (e) {
        if (!(e instanceof SessionExpired)) throw e;
        stopped = e.message;
        lines.push(`${record}: not done — ${stopped}`);
      }
    }
  } finally {
    await browser.disconnect();
    stdin.close();
  }
  process.stdout.write(["FILING REPORT", ...lines].join("\n") + "\n");
}

main().catch((e) => {
  process.stderr.write(`file_all.js: error: ${e.message}\n`);
  process.exit(1);
});
