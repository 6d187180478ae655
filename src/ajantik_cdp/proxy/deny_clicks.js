// ajantik cdp: deny_clicks, installed in an isolated world of every document.
//
// It runs before any page script (Page.addScriptToEvaluateOnNewDocument), in a world the
// page's scripts cannot reach, and puts capture listeners on window. Window is the first
// node of every event path and these listeners are the first registered on it, so they run
// before any listener the page can add, and stopImmediatePropagation() keeps the page's
// listeners from running at all.
//
// The guard fills in the patterns, the binding's name and click_labels.js (see
// page_scripts.py).
(function (patterns, bindingName, foldTable) {
  "use strict";
  __AJANTIK_LABELS__
  __AJANTIK_FOLD__

  if (window.__ajantikDenyClicks) return;
  Object.defineProperty(window, "__ajantikDenyClicks", { value: true });

  // Each pattern arrives folded (name_folding.py's fold_pattern) and meets folded labels.
  const fold = ajantikFold(foldTable);
  const rules = patterns.map((p, i) => ({ index: i, re: new RegExp(p, "iu") }));
  const report = window[bindingName];
  delete window[bindingName];

  const POINTER_EVENTS = [
    "pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "auxclick",
    "touchstart", "touchend", "contextmenu",
  ];
  const KEY_EVENTS = ["keydown", "keypress", "keyup"];

  const { pressableFromPath, labelsOf } = ajantikLabels();

  function match(el) {
    const labels = labelsOf(el);
    const folded = labels.map(fold);
    for (const rule of rules) {
      for (let i = 0; i < labels.length; i++) {
        if (rule.re.test(folded[i])) return { rule, label: labels[i] };
      }
    }
    return null;
  }

  function swallow(event, found) {
    event.stopImmediatePropagation();
    if (event.cancelable) event.preventDefault();
    try {
      report(JSON.stringify({
        rule: found.rule.index, label: found.label,
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

  // Enter or Space by any field Chrome fills a key event from: a client's
  // Input.dispatchKeyEvent may give only windowsVirtualKeyCode, code or text ("\r"), and
  // a script's KeyboardEvent only keyCode or charCode, and a page that reads keyCode acts
  // on them all. core/policy/press_keys.py holds the same table.
  const PRESS_KEYS = new Set(["Enter", " ", "Spacebar", "\r", "\n"]);
  const PRESS_CODES = new Set(["Enter", "NumpadEnter", "Space"]);
  const PRESS_NUMBERS = new Set([10, 13, 32]);
  function isPressKey(event) {
    return PRESS_KEYS.has(event.key) || PRESS_CODES.has(event.code) ||
      PRESS_NUMBERS.has(event.keyCode) || PRESS_NUMBERS.has(event.which) ||
      PRESS_NUMBERS.has(event.charCode);
  }

  function onKey(event) {
    if (isPressKey(event)) onPointer(event);
  }

  function onSubmit(event) {
    const submitter = event.submitter;
    if (!submitter) return;
    const found = match(submitter);
    if (found) swallow(event, found);
  }

  const opts = { capture: true, passive: false };
  function listenOn(node) {
    // Adding a listener that is already there is a no-op, so this is safe to repeat.
    for (const type of POINTER_EVENTS) node.addEventListener(type, onPointer, opts);
    for (const type of KEY_EVENTS) node.addEventListener(type, onKey, opts);
    node.addEventListener("submit", onSubmit, opts);
  }
  const listen = () => listenOn(window);
  listen();
  // document.open() erases every listener on the window, the guard's included (measured,
  // Chrome 156). It also empties the document, which a MutationObserver (not a listener,
  // so it survives) sees: put the listeners back.
  new MutationObserver(listen).observe(document, { childList: true });

  // Shadow roots. An event that is not composed (a script's new MouseEvent('click'), any
  // event by default) never leaves the shadow root it was dispatched in, so the window
  // never sees it; and at the window, a press inside a closed root is retargeted to its
  // host, which is no control. So every root gets the same listeners: an open one when
  // this script finds it (its host inserted, or present at start), a closed one (or one
  // attached to an element already in place) when the guard finds it over DevTools
  // (DOM.shadowRootPushed, shadow_roots.py) and hands it to watchRoot below.
  const watched = new WeakSet();
  const rootObserver = new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) scan(node);
  });
  function watchRoot(root) {
    if (!root || watched.has(root)) return;
    watched.add(root);
    listenOn(root);
    rootObserver.observe(root, { childList: true, subtree: true });
    scan(root);
  }
  function scan(node) {
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE &&
        node.nodeType !== Node.DOCUMENT_NODE) return;
    if (node.shadowRoot) watchRoot(node.shadowRoot);
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_ELEMENT);
    for (let el = walker.nextNode(); el; el = walker.nextNode()) {
      if (el.shadowRoot) watchRoot(el.shadowRoot);
    }
  }
  rootObserver.observe(document, { childList: true, subtree: true });
  scan(document);
  // For the guard's DevTools calls only: this world's global is out of the page's reach.
  Object.defineProperty(window, "__ajantikWatchRoot", { value: watchRoot });
})(__AJANTIK_PATTERNS__, __AJANTIK_BINDING__, __AJANTIK_FOLD_TABLE__);
