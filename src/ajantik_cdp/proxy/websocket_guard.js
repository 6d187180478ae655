// The guard's main-world WebSocket check (a second line behind Chrome's own emulation
// rule, which can miss a WebSocket opened while the first document of a new renderer
// process is parsed). Entries are [URLPattern string, offline], first match wins, exactly
// as Chrome applies them; the guard's record names the refusal from Chrome's own events.
(() => {
  const Native = globalThis.WebSocket;
  if (typeof Native !== "function") return;
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
      url = new URL(String(raw), document.baseURI);
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
  const Guarded = new Proxy(Native, {
    construct(target, args, newTarget) {
      if (refused(args[0])) {
        throw new DOMException("WebSocket refused by the guard's rules", "SecurityError");
      }
      return Reflect.construct(target, args, newTarget === Guarded ? Native : newTarget);
    },
  });
  const hidden = { writable: true, configurable: true, enumerable: false };
  Object.defineProperty(globalThis, "WebSocket", { ...hidden, value: Guarded });
  // Without this, WebSocket.prototype.constructor would hand the page the unchecked one.
  Object.defineProperty(Native.prototype, "constructor", { ...hidden, value: Guarded });
})();
