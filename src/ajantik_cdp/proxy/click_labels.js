// ajantik cdp: which control a press lands on, and the labels it goes by.
//
// Shared by the deny_clicks guard (which runs it in an isolated world) and the label tests
// (which run it in a test page). A control's first label is its accessible name as
// Chrome's accessibility tree computes it, the name an agent reads in an accessibility
// snapshot (Playwright MCP, chrome-devtools-mcp). The press must be judged before any page
// listener runs, synchronously, so Chrome's own tree (an asynchronous DevTools call)
// cannot be asked: this file follows its rules instead, and tests/guard/
// test_click_labels.py checks it against Chrome's tree on a corpus of control shapes.
// The rules below are Chrome's as measured (Chrome 156), which differ from the accname
// spec in places (noted where they do).
function ajantikLabels() {
  "use strict";
  const PRESSABLE_ROLES = new Set([
    "button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "option",
    "switch", "checkbox", "radio", "treeitem",
  ]);
  // Roles whose name may come from their content when they are the control named.
  const CONTENT_ROLES = new Set([
    ...PRESSABLE_ROLES, "heading", "cell", "gridcell", "columnheader", "rowheader", "row",
    "tooltip", "legend", "caption", "term", "sectionhead",
  ]);
  // Roles that neither press nor take their name from content, which still end the
  // search for a role among role="..." tokens.
  const OTHER_ROLES = new Set([
    "none", "presentation", "generic", "group", "img", "image", "textbox", "searchbox",
    "combobox", "listbox", "slider", "spinbutton", "progressbar", "meter", "scrollbar",
    "separator", "dialog", "alertdialog", "alert", "status", "log", "marquee", "timer",
    "list", "listitem", "menu", "menubar", "tablist", "tabpanel", "tree", "treegrid",
    "grid", "table", "rowgroup", "radiogroup", "toolbar", "region", "article", "document",
    "application", "banner", "complementary", "contentinfo", "form", "main", "navigation",
    "search", "note", "math", "figure", "feed", "definition", "directory", "paragraph",
    "blockquote", "code", "emphasis", "strong", "deletion", "insertion", "subscript",
    "superscript", "time", "caption", "mark", "comment", "suggestion",
  ]);
  const INPUT_BUTTONS = new Set(["button", "submit", "reset", "image"]);
  const INPUT_PRESSABLE = new Set([...INPUT_BUTTONS, "checkbox", "radio"]);
  const TEXT_INPUTS = new Set(["text", "search", "url", "tel", "email", "password"]);
  const VALUE_INPUTS = new Set(["number", "range"]);
  const NO_TEXT_INPUTS = new Set([
    "color", "date", "datetime-local", "month", "time", "week", "file", "hidden",
  ]);
  // Elements that never contribute text; the SVG ones name their parent instead.
  const SKIPPED = new Set(["script", "style", "template", "noscript", "rt", "rp", "title",
                           "desc", "head", "link", "meta"]);
  // Elements laid out as boxes of their own even when their display is inline: Chrome
  // puts a space around their text.
  const REPLACED = new Set(["img", "input", "select", "textarea", "button", "iframe",
                            "video", "audio", "canvas", "object", "embed", "svg",
                            "progress", "meter"]);
  const SVG_NS = "http://www.w3.org/2000/svg";

  // Chrome collapses ASCII whitespace in names and keeps others (NBSP, soft hyphen).
  const asciiCollapse = (s) => (s || "").replace(/[ \t\n\r\f]+/g, " ");
  const chromeTrim = (s) => asciiCollapse(s).replace(/^ | $/g, "");
  // What patterns are matched against: every kind of whitespace is one space.
  const collapse = (s) => (s || "").replace(/\s+/g, " ").trim();
  // A label as it reads: compatibility forms folded (fullwidth letters), and characters
  // that show nothing (soft hyphen, zero-width space and joiners, word joiner) removed.
  const folded = (s) => collapse((s || "").normalize("NFKC")
    .replace(/[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff]/g, ""));

  const styleOf = (el, pseudo) => el.ownerDocument.defaultView.getComputedStyle(el, pseudo);

  // The first token of role="..." that names a role this file knows; Chrome likewise
  // skips tokens it does not know (role="fancy button" is a button).
  function roleOf(el) {
    const tokens = (el.getAttribute("role") || "").trim().toLowerCase().split(/\s+/);
    const explicit = tokens.find((t) => CONTENT_ROLES.has(t) || OTHER_ROLES.has(t));
    if (explicit) return explicit;
    const tag = el.localName;
    if (tag === "button" || tag === "summary") return "button";
    if ((tag === "a" || tag === "area") && el.hasAttribute("href")) return "link";
    if (tag === "option") return "option";
    if (tag === "input") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (INPUT_BUTTONS.has(type)) return "button";
      if (type === "checkbox" || type === "radio") return type;
    }
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (tag === "td") return "cell";
    if (tag === "th") return "columnheader";
    return "";
  }

  function isPressable(el) {
    if (!(el instanceof Element)) return false;
    const tag = el.localName;
    if (tag === "button" || tag === "summary" || tag === "option") return true;
    if (tag === "a" || tag === "area") return el.hasAttribute("href") || el.hasAttribute("role");
    if (tag === "input") return INPUT_PRESSABLE.has((el.getAttribute("type") || "").toLowerCase());
    // Any pressable token counts, even after one Chrome would take first: a press on
    // role="none button" is still judged.
    return (el.getAttribute("role") || "").toLowerCase().split(/\s+/)
      .some((t) => PRESSABLE_ROLES.has(t)) || PRESSABLE_ROLES.has(roleOf(el));
  }

  // The control a press lands on: the nearest pressable node of the composed path, or
  // the control of a <label> on it (pressing a label presses its control).
  function pressableFromPath(path) {
    for (const node of path) {
      if (node === window || node === document) break;
      if (isPressable(node)) return node;
      if (node instanceof Element && node.localName === "label" && node.control &&
          isPressable(node.control)) return node.control;
    }
    return null;
  }

  // -- hidden -------------------------------------------------------------------------

  function excluded(el) {
    if (el.getAttribute("aria-hidden") === "true" || el.hasAttribute("inert")) return true;
    return styleOf(el).display === "none";
  }

  const invisible = (el) => {
    const v = styleOf(el).visibility;
    return v === "hidden" || v === "collapse";
  };

  function hiddenAnywhere(el) {
    if (el.closest("[aria-hidden=true], [inert]")) return true;
    if (typeof el.checkVisibility === "function") {
      return !el.checkVisibility({ visibilityProperty: true });
    }
    return excluded(el) || invisible(el);
  }

  // -- text of nodes ------------------------------------------------------------------

  // text-transform, which Chrome's tree applies to the text it reads.
  function transformed(text, t) {
    if (t === "uppercase") return text.toUpperCase();
    if (t === "lowercase") return text.toLowerCase();
    if (t === "capitalize") {
      return text.replace(/(^|[^\p{L}\p{N}'\u2019])(\p{L})/gu, (m, before, letter) =>
        before + letter.toUpperCase());
    }
    return text;
  }

  // The text of a CSS `content` value as Chrome's tree reads it: strings and resolved
  // attr(); quotes; counters and images read as nothing; an alt text after '/' wins.
  function contentValue(value) {
    if (!value || value === "none" || value === "normal") return "";
    const tokens = [];
    let i = 0;
    let alt = null;
    let current = tokens;
    while (i < value.length) {
      const c = value[i];
      if (c === '"' || c === "'") {
        let s = "";
        i++;
        while (i < value.length && value[i] !== c) {
          if (value[i] === "\\") {
            const hex = /^[0-9a-fA-F]{1,6} ?/.exec(value.slice(i + 1));
            if (hex) {
              s += String.fromCodePoint(parseInt(hex[0], 16));
              i += 1 + hex[0].length;
            } else {
              s += value[i + 1] || "";
              i += 2;
            }
          } else {
            s += value[i++];
          }
        }
        i++;
        current.push(s);
      } else if (c === "/") {
        alt = [];
        current = alt;
        i++;
      } else if (/[a-zA-Z-]/.test(c)) {
        const word = /^[a-zA-Z-]+/.exec(value.slice(i))[0];
        i += word.length;
        if (value[i] === "(") {  // counter(), url(), image-set()...: no text
          let depth = 0;
          do {
            if (value[i] === "(") depth++;
            else if (value[i] === ")") depth--;
            i++;
          } while (i < value.length && depth > 0);
        } else if (word === "open-quote") {
          current.push("\u201c");
        } else if (word === "close-quote") {
          current.push("\u201d");
        }
      } else {
        i++;
      }
    }
    return (alt !== null ? alt : tokens).join("");
  }

  function pseudoText(el, which, ctx) {
    if (ctx.includeHidden) return "";  // an element that is not rendered has no pseudo
    const style = styleOf(el, which);
    if (style.display === "none" || style.visibility === "hidden") return "";
    const text = contentValue(style.content);
    if (!text) return "";
    const out = transformed(text, style.textTransform);
    return style.display === "inline" ? out : " " + out + " ";
  }

  // Children in the flat tree: a shadow root instead of light children, slots replaced by
  // what is assigned to them (or their fallback).
  function flatChildren(el) {
    const base = el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
    const out = [];
    for (const node of base) {
      if (node instanceof Element && node.localName === "slot") {
        const assigned = node.assignedNodes({ flatten: true });
        out.push(...(assigned.length ? assigned : flatSlotFallback(node)));
      } else {
        out.push(node);
      }
    }
    return out;
  }

  function flatSlotFallback(slot) {
    const out = [];
    for (const node of slot.childNodes) {
      if (node instanceof Element && node.localName === "slot") out.push(...flatSlotFallback(node));
      else out.push(node);
    }
    return out;
  }

  const isText = (n) => n && n.nodeType === Node.TEXT_NODE;

  function contentText(el, ctx) {
    const parts = [];
    const hiddenHere = !ctx.includeHidden && el !== ctx.root && invisible(el);
    if (!hiddenHere) parts.push(pseudoText(el, "::before", ctx));
    const kids = flatChildren(el);
    for (let i = 0; i < kids.length; i++) {
      const node = kids[i];
      if (isText(node)) {
        const parent = node.parentElement;
        if (!ctx.includeHidden && parent && parent !== ctx.root && invisible(parent)) continue;
        let text = asciiCollapse(parent ? transformed(node.data, styleOf(parent).textTransform)
                                           : node.data);
        const prev = kids[i - 1];
        const next = kids[i + 1];
        const prevEndsInSpace = isText(prev) && /[ \t\n\r\f]$/.test(prev.data);
        if (text === " " || text === "") {
          // Chrome leaves out a space that layout would collapse into a neighbour's.
          if (prevEndsInSpace || (isText(next) && /^[ \t\n\r\f]/.test(next.data))) text = "";
        } else if (prevEndsInSpace) {
          text = text.replace(/^ /, "");
        }
        parts.push(text);
      } else if (node instanceof Element) {
        if (node === ctx.skip || SKIPPED.has(node.localName)) continue;
        const name = computeName(node, { ...ctx, inContent: true, depth: ctx.depth + 1 });
        const tag = node.localName;
        if (tag === "br" || tag === "wbr") {
          parts.push(" ");
        } else if (REPLACED.has(tag) || !/^(inline|contents)$/.test(styleOf(node).display)) {
          parts.push(" " + name + " ");
        } else {
          parts.push(name);
        }
      }
    }
    if (!hiddenHere) parts.push(pseudoText(el, "::after", ctx));
    return parts.join("");
  }

  function byIds(el, ids) {
    const root = el.getRootNode();
    return ids.split(/\s+/).filter(Boolean).map((id) =>
      root.getElementById ? root.getElementById(id) : document.getElementById(id),
    ).filter(Boolean);
  }

  // The value an embedded control stands for inside another control's name.
  function embeddedValue(el) {
    const tag = el.localName;
    const role = roleOf(el);
    if (tag === "input") {
      const type = (el.getAttribute("type") || "text").toLowerCase();
      if (TEXT_INPUTS.has(type) || VALUE_INPUTS.has(type)) return el.value;
      if (NO_TEXT_INPUTS.has(type)) return "";
      if (!INPUT_PRESSABLE.has(type)) return el.value;
      return null;
    }
    if (tag === "textarea") return el.value;
    if (tag === "select") {
      return Array.from(el.selectedOptions).map((o) => chromeTrim(o.label)).join(" ");
    }
    if (tag === "progress" || tag === "meter") return String(el.value);
    if (role === "slider" || role === "spinbutton" || role === "progressbar" ||
        role === "meter" || role === "scrollbar") {
      return el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") || "";
    }
    return null;
  }

  function labelsText(el, ctx) {
    return Array.from(el.labels).map((label) => computeName(label, {
      ...ctx, inContent: true, skip: el, depth: ctx.depth + 1,
    })).join(" ");
  }

  // The host language's own name for an element, or null when it has none.
  function nativeName(el, ctx) {
    const tag = el.localName;
    if (el.namespaceURI === SVG_NS) {
      const title = Array.from(el.children).find((c) => c.localName === "title");
      return title ? title.textContent : null;
    }
    // Chrome stops at an associated <label> even when it is hidden (the name is then "").
    const hasLabels = el.labels && el.labels.length > 0 && !ctx.contentOnly;
    if (tag === "input") {
      const type = (el.getAttribute("type") || "text").toLowerCase();
      if (type === "hidden") return "";
      if (hasLabels) return labelsText(el, ctx);
      if (type === "image") {
        for (const attr of ["alt", "value", "title"]) {
          const v = el.getAttribute(attr);
          if (v && v.trim()) return v;
        }
        return "Submit";
      }
      if (type === "submit" || type === "reset" || type === "button") {
        if (el.hasAttribute("value")) return el.getAttribute("value");
        if (type === "submit") return "Submit";
        if (type === "reset") return "Reset";
        return el.getAttribute("title");
      }
      return el.getAttribute("title") || el.getAttribute("placeholder") || null;
    }
    if (tag === "textarea") {
      if (hasLabels) return labelsText(el, ctx);
      return el.getAttribute("title") || el.getAttribute("placeholder") || null;
    }
    if (tag === "select" || tag === "button" || tag === "meter" || tag === "progress" ||
        tag === "output") {
      return hasLabels ? labelsText(el, ctx) : null;
    }
    if (tag === "img" || tag === "area") {
      return el.hasAttribute("alt") ? el.getAttribute("alt") : null;
    }
    if (tag === "option") {
      const label = el.getAttribute("label");
      return label && label.trim() ? label : null;
    }
    const captionOf = { fieldset: "legend", figure: "figcaption", table: "caption" }[tag];
    if (captionOf) {
      const caption = Array.from(el.children).find((c) => c.localName === captionOf);
      return caption ? computeName(caption, { ...ctx, inContent: true, depth: ctx.depth + 1 })
        : null;
    }
    return null;
  }

  const filled = (s) => chromeTrim(s) !== "";

  // The accessible name of `el` in the context of a computation that started at
  // ctx.root. Chrome's order: aria-labelledby, aria-label, the value of an embedded
  // control, the host language's name, the content, the title attribute.
  function computeName(el, ctx) {
    if (ctx.depth > 60) return "";
    const isRoot = el === ctx.root;
    if (!isRoot && !ctx.includeHidden && excluded(el)) return "";
    // A visibility:hidden element lends nothing of its own, but its visible children
    // still count (visibility is inherited and can be turned back on).
    if (!isRoot && !ctx.includeHidden && invisible(el)) return contentText(el, ctx);

    if (!ctx.inLabelledBy && !ctx.contentOnly && el.hasAttribute("aria-labelledby")) {
      const refs = byIds(el, el.getAttribute("aria-labelledby"));
      const text = refs.map((ref) => computeName(ref, {
        root: ctx.root, inLabelledBy: true, inContent: true,
        includeHidden: ctx.includeHidden || hiddenAnywhere(ref), depth: ctx.depth + 1,
        contentOnly: false, skip: null, referenced: ref,
      })).join(" ");
      if (filled(text)) return text;
    }
    if (!ctx.contentOnly) {
      const label = el.getAttribute("aria-label");
      if (filled(label)) return label;
    }
    if (!isRoot && (ctx.inContent || ctx.referenced === el)) {
      const value = embeddedValue(el);
      if (value !== null) return value;
    }
    // A native source that is there but empty (an <input type=submit value="">, a hidden
    // <label>) still ends the computation: Chrome does not fall back to the content.
    const native = nativeName(el, ctx);
    if (native !== null) return native;
    const tag = el.localName;
    const formControl = tag === "input" || tag === "textarea" || tag === "select";
    if (!formControl && (!isRoot || CONTENT_ROLES.has(roleOf(el)))) {
      const text = contentText(el, ctx);
      if (filled(text)) return text;
    }
    if (!ctx.contentOnly) {
      for (const attr of ["title", "aria-placeholder"]) {
        const v = el.getAttribute(attr);
        if (filled(v)) return v;
      }
    }
    return "";
  }

  function start(el, extra) {
    return {
      root: el, inLabelledBy: false, inContent: false, includeHidden: false, depth: 0,
      contentOnly: false, skip: null, referenced: null, ...extra,
    };
  }

  // The accessible name, as Chrome's tree has it (ASCII whitespace collapsed, trimmed).
  function nameOf(el) {
    return chromeTrim(computeName(el, start(el)));
  }

  // Every label a press on `el` is judged by: the accessible name first, then each source
  // it could have been made of. A pattern that matches any of them denies the control, so
  // a page cannot hide a denied label behind another attribute (a visible "Proceed to
  // submission" with aria-label="Cancel" is still denied).
  function labelsOf(el) {
    const out = [];
    const add = (s) => { const c = collapse(s); if (c && !out.includes(c)) out.push(c); };
    // A source that cannot be read (a page that broke a DOM API the computation uses)
    // falls back to the raw text rather than leaving the control unjudged.
    const from = (source) => { try { add(source()); } catch (e) { add(el.textContent); } };
    from(() => nameOf(el));
    from(() => contentText(el, start(el, { contentOnly: true })));
    from(() => el.getAttribute("aria-label"));
    from(() => el.hasAttribute("aria-labelledby")
      ? byIds(el, el.getAttribute("aria-labelledby")).map((r) => r.textContent).join(" ")
      : "");
    from(() => { for (const l of el.labels || []) add(l.textContent); return ""; });
    from(() => el.localName === "input" &&
      INPUT_BUTTONS.has((el.getAttribute("type") || "").toLowerCase()) ? el.value : "");
    for (const attr of ["title", "alt", "placeholder"]) from(() => el.getAttribute(attr));
    from(() => { for (const i of el.querySelectorAll("img[alt]")) add(i.alt); return ""; });
    for (const label of out.slice()) add(folded(label));
    return out;
  }

  return { isPressable, pressableFromPath, nameOf, labelsOf, collapse };
}
