// The guard's WebSocket check, in a document's main world (a second line behind Chrome's
// own emulation rule, which can miss a WebSocket opened while the first document of a new
// renderer process is parsed) and in every worker's global scope (a service worker's rule
// comes only after its release). An early warning only: the page can get around it, and
// Chrome's rule is the decision (websocket_guard.py). Entries are
// [URLPattern string, offline], first match wins, exactly as Chrome applies them. A
// refusal is reported to the guard, which re-checks the URL before it writes a block line
// (a script that forges a report cannot make an allowed URL look refused).
(() => {
  // The guard's report channel, taken out of the page's reach before any page script
  // runs: a binding in documents; in workers a console message (measured on Chrome 156: a
  // binding added to a service worker is often missing from its global scope, and when
  // present its calls were never reported), with console.debug held before the worker's
  // own code can replace it.
  const binding = globalThis[__AJANTIK_SOCKET_BINDING__];
  delete globalThis[__AJANTIK_SOCKET_BINDING__];
  const say = console.debug.bind(console);
  let count = 0;
  const report = typeof binding === "function" ? binding
    : (url) => say(__AJANTIK_SOCKET_CONSOLE__, ++count, url);
  let entries = null;
  try {
    entries = __AJANTIK_SOCKET_PATTERNS__.map(([p, offline]) => [new URLPattern(p), offline]);
  } catch (e) {
    entries = null; // a pattern this page cannot compile: refuse every WebSocket
  }
  const refused = (raw) => {
    if (entries === null) return true;
    let url;
    try {
      // A worker has no document: its URLs are relative to its own script.
      url = new URL(String(raw), globalThis.document ? document.baseURI : location.href);
    } catch (e) {
      return false; // the constructor throws its own SyntaxError
    }
    if (url.protocol === "http:") url.protocol = "ws:";
    else if (url.protocol === "https:") url.protocol = "wss:";
    for (const [pattern, offline] of entries) {
      if (pattern.test(url.href)) return offline;
    }
    return false;
  };
  const hidden = { writable: true, configurable: true, enumerable: false };
  // WebSocketStream opens the same handshake under another name.
  for (const name of ["WebSocket", "WebSocketStream"]) {
    const Native = globalThis[name];
    if (typeof Native !== "function") continue;
    const Guarded = new Proxy(Native, {
      construct(target, args, newTarget) {
        if (refused(args[0])) {
          try {
            report(String(args[0]));
          } catch (e) {
            // reporting must never let the WebSocket through
          }
          throw new DOMException(`${name} refused by the guard's rules`, "SecurityError");
        }
        return Reflect.construct(target, args, newTarget === Guarded ? Native : newTarget);
      },
    });
    Object.defineProperty(globalThis, name, { ...hidden, value: Guarded });
    // Without this, the prototype's constructor would hand the page the unchecked one.
    Object.defineProperty(Native.prototype, "constructor", { ...hidden, value: Guarded });
  }
  return "guarded"; // a worker's install checks it ran to the end
})();
