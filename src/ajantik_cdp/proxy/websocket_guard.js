// The guard's main-world WebSocket check (a second line behind Chrome's own emulation
// rule, which can miss a WebSocket opened while the first document of a new renderer
// process is parsed). Entries are [URLPattern string, offline], first match wins, exactly
// as Chrome applies them. A refusal is reported to the guard, which re-checks the URL
// before it writes a block line (a page calling the binding cannot forge an allowed one).
(() => {
  // The guard's report channel, taken out of the page's reach before any page script runs.
  const report = globalThis[__AJANTIK_SOCKET_BINDING__];
  delete globalThis[__AJANTIK_SOCKET_BINDING__];
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
  const hidden = { writable: true, configurable: true, enumerable: false };
  // WebSocketStream opens the same handshake under another name.
  for (const name of ["WebSocket", "WebSocketStream"]) {
    const Native = globalThis[name];
    if (typeof Native !== "function") continue;
    const Guarded = new Proxy(Native, {
      construct(target, args, newTarget) {
        if (refused(args[0])) {
          try {
            if (typeof report === "function") report(String(args[0]));
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
})();
