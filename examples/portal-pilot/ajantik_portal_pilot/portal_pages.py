"""The portal's pages: a server-rendered sign-in form, then one single-page app.

Every view of the app (dashboard, a filing's sections, its documents, its review page)
loads and saves through the JSON API, as most portals built this decade do, so every read
a skill causes goes through ``/api/`` where the guard can record it. Views change without
a page load; a deep link (``/filings/R-101/review``) loads the app and opens that view.
"""

from __future__ import annotations

import json
from html import escape

from ajantik_portal_pilot.filing_state import SECTION_TITLES, SECTIONS

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2733;background:#f4f6f8}
header{background:#123a5a;color:#fff;padding:10px 24px;display:flex;gap:24px}
header a{color:#fff}main{max-width:820px;margin:24px auto;background:#fff;padding:24px;
border-radius:6px}label{display:block;margin:12px 0 4px}input{width:100%;padding:6px;
box-sizing:border-box}button{margin-top:16px;padding:8px 16px}table{border-collapse:collapse;
width:100%}td,th{border-bottom:1px solid #dde3e8;padding:6px;text-align:left}
#status{min-height:1.4em;font-weight:600}nav.steps a{margin-right:12px}
"""


def _shell(title: str, body: str, *, app: bool) -> str:
    schema = {name: [[k, label] for k, label in fields] for name, fields in SECTIONS.items()}
    scripts = (
        f"<script>const SECTIONS = {json.dumps(schema)};"
        f"const SECTION_TITLES = {json.dumps(SECTION_TITLES)};</script>"
        '<script src="/static/portal.js"></script>'
    ) if app else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)} · Harbour Registry</title>
<style>{STYLE}</style></head>
<body><header><strong>Harbour Registry</strong>
<a href="/dashboard" data-route>Filings</a></header>
<main id="view">{body}</main>{scripts}
</body></html>"""


def login_page(error: str = "") -> str:
    note = f'<p id="status" role="alert">{escape(error)}</p>' if error else ""
    return _shell("Sign in", f"""<h1>Sign in</h1>{note}
<form method="post" action="/login">
<label for="username">Email</label><input id="username" name="username" autocomplete="username">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password">
<button type="submit">Sign in</button></form>""", app=False)


def app_page() -> str:
    return _shell("Filings", "<p>Loading…</p>", app=True)


PORTAL_JS = r"""
"use strict";
let viewToken = 0;

function el(tag, text, data) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  Object.assign(node.dataset, data || {});
  return node;
}

function link(path, text) {
  const a = el("a", text, {route: ""});
  a.href = path;
  return a;
}

async function api(method, url, body) {
  const opts = {method, credentials: "same-origin", headers: {}};
  if (body instanceof FormData) { opts.body = body; }
  else if (body !== undefined) {
    opts.body = JSON.stringify(body); opts.headers["Content-Type"] = "application/json";
  }
  const r = await fetch(url, opts);
  let data = null;
  // A 204 (or any body that is not JSON) is still an answer: report its status.
  if (r.status !== 204) { try { data = await r.json(); } catch (e) { data = null; } }
  return {status: r.status, ok: r.ok, data};
}

function show(status, text) {
  const node = document.getElementById("status");
  node.textContent = text;
  node.dataset.httpStatus = String(status);
}

function explain(res, okText) {
  if (res.ok) return okText;
  if (res.status === 401) return "Your session has expired. Sign in again.";
  const why = res.data && res.data.error ? ": " + res.data.error : "";
  return "Could not save (HTTP " + res.status + ")" + why;
}

async function send(method, url, body, okText) {
  const node = document.getElementById("status");
  delete node.dataset.httpStatus;
  node.textContent = "Saving…";
  let res;
  try { res = await api(method, url, body); }
  catch (e) { show(0, "Could not reach the registry: " + e.message); return null; }
  show(res.status, explain(res, okText));
  return res;
}

async function loadFiling(id, token) {
  const res = await api("GET", "/api/filings/" + id);
  if (token !== viewToken) return null;
  if (!res.ok) { show(res.status, explain(res, "")); return null; }
  return res.data.filing;
}

function stepsNav(id) {
  const nav = el("nav");
  nav.className = "steps";
  for (const [name, title] of Object.entries(SECTION_TITLES)) {
    nav.append(link(`/filings/${id}/sections/${name}`, title));
  }
  nav.append(link(`/filings/${id}/documents`, "Documents"),
             link(`/filings/${id}/review`, "Review"));
  return nav;
}

function startView(title, id) {
  const view = document.getElementById("view");
  view.replaceChildren(el("h1", title));
  if (id) view.append(stepsNav(id));
  document.title = title + " · Harbour Registry";
  return view;
}

async function dashboardView(token) {
  const view = startView("Filings");
  const table = el("table");
  table.id = "filings";
  table.createTHead().insertRow().append(
    ...["Record", "Account", "Period", "Status", "Missing"].map(t => el("th", t)));
  const body = table.createTBody();
  view.append(el("p", "Annual confirmation filings for the customer accounts you act for."),
              table, el("p", "", {}));
  view.lastChild.id = "status";
  const res = await api("GET", "/api/filings");
  if (token !== viewToken) return;
  if (!res.ok) { show(res.status, explain(res, "")); return; }
  for (const f of res.data.filings) {
    const tr = body.insertRow();
    tr.dataset.record = f.id;
    tr.insertCell().append(link(`/filings/${f.id}/review`, f.id));
    for (const text of [f.account_name, f.period, f.status, f.missing.join(", ") || "nothing"]) {
      tr.insertCell().textContent = text;
    }
  }
  table.dataset.ready = "1";
}

async function sectionView(token, id, section) {
  const view = startView(`${id}: ${SECTION_TITLES[section]}`, id);
  const form = el("form", undefined, {record: id, section});
  form.id = "section-form";
  for (const [key, label] of SECTIONS[section]) {
    const l = el("label", label);
    l.htmlFor = key;
    const input = el("input");
    input.id = key;
    input.name = key;
    form.append(l, input);
  }
  const button = el("button", "Save " + SECTION_TITLES[section].toLowerCase());
  button.type = "submit";
  form.append(button);
  const status = el("p");
  status.id = "status";
  status.setAttribute("role", "status");
  view.append(form, status);
  const filing = await loadFiling(id, token);
  if (!filing) return;
  const saved = filing.sections[section];
  if (saved) for (const [k, v] of Object.entries(saved)) form.elements[k].value = v;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const fields = {};
    for (const input of form.querySelectorAll("input")) fields[input.name] = input.value;
    await send("PUT", `/api/filings/${id}/sections/${section}`, fields, "Saved");
  });
  form.dataset.ready = "1";
}

function listDocuments(ul, filing) {
  ul.replaceChildren(...filing.documents.map(
    d => el("li", `${d.name} (${d.size} bytes)`, {doc: d.id})));
}

async function documentsView(token, id) {
  const view = startView(`${id}: Documents`, id);
  const form = el("form", undefined, {record: id});
  form.id = "upload-form";
  const l = el("label", "Annual accounts (PDF)");
  l.htmlFor = "file";
  const input = el("input");
  input.id = "file";
  input.name = "file";
  input.type = "file";
  const button = el("button", "Upload document");
  button.type = "submit";
  form.append(l, input, button);
  const status = el("p");
  status.id = "status";
  status.setAttribute("role", "status");
  const ul = el("ul");
  ul.id = "documents";
  view.append(form, status, el("h2", "Uploaded"), ul);
  const filing = await loadFiling(id, token);
  if (!filing) return;
  listDocuments(ul, filing);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = new FormData();
    data.append("file", input.files[0]);
    const res = await send("POST", `/api/filings/${id}/documents`, data, "Uploaded");
    if (res && res.ok && res.data) listDocuments(ul, res.data.filing);
  });
  form.dataset.ready = "1";
}

async function reviewView(token, id) {
  const view = startView(`${id}: Review`, id);
  const review = el("div", undefined, {record: id});
  review.id = "review";
  const status = el("p");
  status.id = "status";
  status.setAttribute("role", "status");
  const proceed = el("button", "Proceed to submission");
  proceed.id = "proceed";
  proceed.type = "button";
  view.append(review, status, proceed);
  const filing = await loadFiling(id, token);
  if (!filing) return;
  const state = el("p", "Status: ");
  state.appendChild(el("strong", filing.status)).id = "filing-status";
  const table = el("table");
  for (const [name, fields] of Object.entries(filing.sections)) {
    if (!fields) {
      table.insertRow().append(el("th", SECTION_TITLES[name]),
                               el("td", "not saved", {section: name, missing: "1"}));
      continue;
    }
    for (const [k, v] of Object.entries(fields)) {
      table.insertRow().append(el("th", `${SECTION_TITLES[name]}: ${k}`),
                               el("td", v, {section: name, field: k}));
    }
  }
  const docs = el("ul");
  for (const d of filing.documents) {
    docs.append(el("li", d.name, {doc: d.id, name: d.name, sha256: d.sha256}));
  }
  const missing = el("p", "Missing: ");
  missing.appendChild(el("span", filing.missing.join(", ") || "nothing")).id = "missing";
  review.append(state, table, el("h2", "Documents"), docs, missing);
  proceed.addEventListener("click", async () => {
    await send("POST", `/api/filings/${id}/submission`, {}, "Submitted to the registry");
  });
  review.dataset.ready = "1";
}

function route() {
  const token = ++viewToken;
  const path = location.pathname;
  let m;
  if ((m = path.match(/^\/filings\/(R-\d+)\/sections\/(\w+)$/)) && SECTIONS[m[2]]) {
    return sectionView(token, m[1], m[2]);
  }
  if ((m = path.match(/^\/filings\/(R-\d+)\/documents$/))) return documentsView(token, m[1]);
  if ((m = path.match(/^\/filings\/(R-\d+)(\/review)?$/))) return reviewView(token, m[1]);
  return dashboardView(token);
}

// Links inside the app change the view without a page load.
document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[data-route]");
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey) return;
  ev.preventDefault();
  history.pushState(null, "", a.getAttribute("href"));
  route();
});
window.addEventListener("popstate", route);
window.harbourApp = {version: 1};
route();
"""
