// ajantik cdp: deny_clicks, installed in an isolated world of every document.
//
// It runs before any page script (Page.addScriptToEvaluateOnNewDocument), in a world the
// page's scripts cannot reach, and puts capture listeners on window. Window is the first
// node of every event path and these listeners are the first registered on it, so they run
// before any listener the page can add, and stopImmediatePropagation() keeps the page's
// listeners from running at all.
//
// __AJANTIK_PATTERNS__ and __AJANTIK_BINDING__ are replaced by the guard.
(function (patterns, bindingName) {
  "use strict";
  if (window.__ajantikDenyClicks) return;
  Object.defineProperty(window, "__ajantikDenyClicks", { value: true });

  const rules = patterns.map((p, i) => ({ index: i, source: p, re: new RegExp(p, "iu") }));
  const report = window[bindingName];
  delete window[bindingName];

  const BUTTON_ROLES = new Set([
    "button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "option",
    "switch", "checkbox", "radio", "treeitem",
  ]);
  const INPUT_BUTTONS = new Set(["button", "submit", "reset", "image"]);
  const POINTER_EVENTS = [
    "pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "auxclick",
    "touchstart", "touchend", "contextmenu",
  ];
  const KEY_EVENTS = ["keydown", "keypress", "keyup"];

  const collapse = (s) => (s || "").replace(/\s+/g, " ").trim();

  function isPressable(el) {
    if (!(el instanceof Element)) return false;
    const tag = el.localName;
    if (tag === "button" || tag === "summary") return true;
    if (tag === "a" || tag === "area") return el.hasAttribute("href") || el.hasAttribute("role");
    if (tag === "input") return INPUT_BUTTONS.has((el.getAttribute("type") || "").toLowerCase());
    const role = (el.getAttribute("role") || "").trim().split(/\s+/)[0].toLowerCase();
    return BUTTON_ROLES.has(role);
  }

  function pressableFromPath(path) {
    for (const node of path) {
      if (node === window || node === document) break;
      if (isPressable(node)) return node;
    }
    return null;
  }

  function hidden(el) {
    if (el.hidden || el.getAttribute("aria-hidden") === "true") return true;
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    return style.display === "none" || style.visibility === "hidden";
  }

  // Visible text, descending into open shadow roots and through slots, with the alt of
  // images and the value of input buttons standing in for their text.
  function textOf(node, depth) {
    if (depth > 40) return "";
    if (node.nodeType === Node.TEXT_NODE) return node.data;
    if (!(node instanceof Element)) return "";
    if (hidden(node)) return "";
    const tag = node.localName;
    if (tag === "img" || (tag === "input" && node.type === "image")) return " " + (node.getAttribute("alt") || "") + " ";
    if (tag === "input") return INPUT_BUTTONS.has(node.type) ? " " + (node.value || "") + " " : "";
    if (tag === "script" || tag === "style" || tag === "template") return "";
    if (tag === "slot") {
      const assigned = node.assignedNodes({ flatten: true });
      const nodes = assigned.length ? assigned : Array.from(node.childNodes);
      return nodes.map((n) => textOf(n, depth + 1)).join("");
    }
    const root = node.shadowRoot;
    const children = root ? Array.from(root.childNodes) : Array.from(node.childNodes);
    const inner = children.map((n) => textOf(n, depth + 1)).join("");
    const display = node.ownerDocument.defaultView.getComputedStyle(node).display;
    return display === "inline" ? inner : " " + inner + " ";
  }

  function byIds(el, ids) {
    const root = el.getRootNode();
    return ids.split(/\s+/).filter(Boolean).map((id) => {
      const ref = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      return ref ? ref.textContent : "";
    }).join(" ");
  }

  // Every source the accessible name is made from, in accname order. A pattern that
  // matches any of them denies the control, so a page cannot hide a denied label behind
  // another attribute.
  function labelsOf(el) {
    const out = [];
    const add = (s) => { const c = collapse(s); if (c) out.push(c); };
    if (el.hasAttribute("aria-labelledby")) add(byIds(el, el.getAttribute("aria-labelledby")));
    add(el.getAttribute("aria-label"));
    if (el.labels) for (const l of el.labels) add(l.textContent);
    if (el.localName === "input") add(el.value);
    add(textOf(el, 0));
    add(el.getAttribute("title"));
    for (const img of el.querySelectorAll("img[alt]")) add(img.getAttribute("alt"));
    return out;
  }

  function match(el) {
    const labels = labelsOf(el);
    for (const rule of rules) {
      for (const label of labels) {
        if (rule.re.test(label)) return { rule, label };
      }
    }
    return null;
  }

  function swallow(event, found) {
    event.stopImmediatePropagation();
    if (event.cancelable) event.preventDefault();
    try {
      report(JSON.stringify({
        rule: found.rule.index, pattern: found.rule.source, label: found.label,
        event: event.type, url: location.href, trusted: event.isTrusted,
      }));
    } catch (e) { /* the guard is gone; the press is still swallowed */ }
  }

  function onPointer(event) {
    const el = pressableFromPath(event.composedPath());
    if (!el) return;
    const found = match(el);
    if (found) swallow(event, found);
  }

  function onKey(event) {
    if (event.key !== "Enter" && event.key !== " " && event.key !== "Spacebar") return;
    onPointer(event);
  }

  function onSubmit(event) {
    const submitter = event.submitter;
    if (!submitter) return;
    const found = match(submitter);
    if (found) swallow(event, found);
  }

  const opts = { capture: true, passive: false };
  for (const type of POINTER_EVENTS) window.addEventListener(type, onPointer, opts);
  for (const type of KEY_EVENTS) window.addEventListener(type, onKey, opts);
  window.addEventListener("submit", onSubmit, opts);
})(__AJANTIK_PATTERNS__, __AJANTIK_BINDING__);
