// ajantik cdp: which control a press lands on, and the labels it goes by.
//
// Shared by the deny_clicks guard (which runs it in an isolated world) and the label unit
// tests (which run it in a test page). The label of a control is its accessible name:
// aria-labelledby, aria-label, an associated <label>, its visible text with whitespace
// collapsed (through open shadow roots and slots), the value of input buttons, title, and
// the alt of an image inside it.
function ajantikLabels() {
  "use strict";
  const BUTTON_ROLES = new Set([
    "button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "option",
    "switch", "checkbox", "radio", "treeitem",
  ]);
  const INPUT_BUTTONS = new Set(["button", "submit", "reset", "image"]);
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
    const add = (s) => { const c = collapse(s); if (c && !out.includes(c)) out.push(c); };
    if (el.hasAttribute("aria-labelledby")) add(byIds(el, el.getAttribute("aria-labelledby")));
    add(el.getAttribute("aria-label"));
    if (el.labels) for (const l of el.labels) add(l.textContent);
    if (el.localName === "input") add(el.value);
    add(textOf(el, 0));
    add(el.getAttribute("title"));
    for (const img of el.querySelectorAll("img[alt]")) add(img.getAttribute("alt"));
    return out;
  }

  return { isPressable, pressableFromPath, labelsOf, collapse };
}
