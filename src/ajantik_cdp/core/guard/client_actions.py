"""What a person would call an action, among a client's commands, and how each reads on
the film's timeline. Pure: the guard's reports (``proxy/reports.py``) hand it each command
a client sends and write the line it answers.

A browser driver acts on a page with a few commands a person would name (navigate,
click, type, a key, an upload, a script the skill wrote) and wraps each in many of its
own: for one click Playwright evaluates its injected script a dozen times through
``Runtime.callFunctionOn`` (the selector, visibility, the hit target), and Puppeteer and
chrome-devtools-mcp (a bundled Puppeteer) do the same with functions of theirs. Those
calls are the client's plumbing: they get no line of their own; the next action of the
same page says how many came before it ("click at (138, 18) · after 9 calls of
Playwright's own"). Calls after a page's last action are in no line.

Plumbing is told apart by what the clients put in their own calls, never by what a page
can touch (the page cannot see or change a command on its way to Chrome):

- Puppeteer, and chrome-devtools-mcp, tag every function with ``//# sourceURL=pptr:NAME;
  WHERE``: ``pptr:internal``, or a WHERE inside Puppeteer's own files (or the copy
  bundled in chrome-devtools-mcp), is plumbing; a WHERE elsewhere is the skill's own
  code calling ``page.evaluate``. chrome-devtools-mcp's ``evaluate_script`` runs the
  agent's function through a ``Runtime.evaluate`` from its ``tools/script.js``: that one
  is the agent's script.
- Playwright evaluates everything through one wrapper, ``(utilityScript, ...args) =>
  utilityScript.evaluate(...args)``, whose fourth argument is the function. It is
  plumbing when it runs in Playwright's utility world (a context Playwright set up with
  its injected script, ``"isUtilityWorld":true``, seen earlier on the same page) or
  when it takes Playwright's injected script as a parameter; else the skill's script.
- ``DOM.focus`` and ``DOM.scrollIntoViewIfNeeded`` are every client's way into a click or
  a fill: plumbing.
- Any other script (a raw DevTools client's ``Runtime.evaluate``) is the skill's.

A summary keeps the shape of what was done and never its text: typed values and
evaluated source may hold a password. A printable key, ``Input.insertText`` and IME
composition are all "type text", without the text or its length.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from ajantik_cdp.core.plurals import counted
from ajantik_cdp.core.policy.press_keys import press_key_of

# Commands that act on a page (or are a client's plumbing for doing so).
ACTION_METHODS = frozenset({
    "Page.navigate", "Page.reload", "Page.navigateToHistoryEntry",
    "Input.dispatchMouseEvent", "Input.dispatchKeyEvent", "Input.insertText",
    "Input.dispatchTouchEvent", "Input.synthesizeTapGesture", "Input.imeSetComposition",
    "Input.dispatchDragEvent", "Input.synthesizeScrollGesture",
    "Runtime.evaluate", "Runtime.callFunctionOn", "DOM.setFileInputFiles",
    "DOM.focus", "DOM.scrollIntoViewIfNeeded",
})
PLUMBING_METHODS = frozenset({"DOM.focus", "DOM.scrollIntoViewIfNeeded"})
TYPE_TEXT = "type text"
FOLD = " · after "  # between an action's summary and its note of folded calls

PLAYWRIGHT = "Playwright"
PUPPETEER = "Puppeteer"
DEVTOOLS_MCP = "chrome-devtools-mcp"
_PLAYWRIGHT_WRAPPER = "(utilityScript,...args)=>utilityScript.evaluate(...args)"
_PPTR_TAG = re.compile(r"//# sourceURL=pptr:([^;\s]*)(?:;(\S*))?\s*$")
_PUPPETEER_FILES = ("/puppeteer-core/", "/puppeteer/lib/", "/chrome-devtools-mcp/build/")
_DEVTOOLS_MCP_SCRIPT_TOOL = "/chrome-devtools-mcp/build/src/tools/script.js"
_LINE_AND_COLUMN = re.compile(r":\d+(:\d+)?\)?$")
_OBJECT_CONTEXT = re.compile(r"-?\d+\.(\d+)\.\d+")  # V8's "isolate.context.object"
_INJECTED_PARAMS = re.compile(r"^\s*(async\s*)?(\(|\[)?[^=]*\b(injected\w*|utilityScript)\b")

_MOUSE_BUTTON = {"left": "click", "right": "right-click", "middle": "middle-click"}


def _num(value: Any) -> str:
    return f"{value:.0f}" if isinstance(value, int | float) and not isinstance(value, bool) \
        else "?"


def _at(params: Mapping[str, Any]) -> str:
    return f"at ({_num(params.get('x'))}, {_num(params.get('y'))})"


def _shape(text: Any) -> str:
    if not isinstance(text, str):
        return "no source"
    return f"{counted(len(text), 'character')}, {counted(text.count(chr(10)) + 1, 'line')}"


@dataclass(frozen=True)
class Plumbing:
    client: str | None  # whose: "Playwright", "Puppeteer", ...; None: not known


@dataclass
class ClientActions:
    """Per guard run: which contexts are Playwright's utility worlds, and how many
    plumbing calls each page has had since its last action."""

    _utility: set[tuple[str | None, int]] = field(default_factory=set)
    _folded: dict[str | None, Counter[str | None]] = field(default_factory=dict)

    def command(self, target_id: str | None, method: str, params: Mapping[str, Any],
                mask_url: Callable[[str], str]) -> str | None:
        """The line for the timeline, or None: not an action (mouse moves, key-ups,
        everything that does not act on a page), or the client's plumbing (counted)."""
        if method not in ACTION_METHODS:
            return None
        found = self._classify(target_id, method, params, mask_url)
        if found is None:
            return None
        if isinstance(found, Plumbing):
            self._folded.setdefault(target_id, Counter())[found.client] += 1
            return None
        folded = self._folded.pop(target_id, None)
        return found + (fold_note(folded) if folded else "")

    def _classify(self, target_id: str | None, method: str, params: Mapping[str, Any],
                  mask_url: Callable[[str], str]) -> str | Plumbing | None:
        if method in PLUMBING_METHODS:
            return Plumbing(None)
        if method == "Runtime.evaluate":
            return self._script(target_id, method, params.get("expression"), params)
        if method == "Runtime.callFunctionOn":
            return self._script(target_id, method, params.get("functionDeclaration"), params)
        return summarise_input(method, params, mask_url)

    def _script(self, target_id: str | None, method: str, source: Any,
                params: Mapping[str, Any]) -> str | Plumbing:
        text = source if isinstance(source, str) else ""
        tagged = _PPTR_TAG.search(text)
        if tagged is not None:
            return _puppeteer(method, tagged.group(1), unquote(tagged.group(2) or ""), text)
        if method == "Runtime.evaluate" and ("module.exports.UtilityScript" in text or
                                             "isUtilityWorld" in text):
            context = params.get("contextId")
            if '"isUtilityWorld":true' in text and isinstance(context, int):
                self._utility.add((target_id, context))
            return Plumbing(PLAYWRIGHT)
        if "".join(text.split()) == _PLAYWRIGHT_WRAPPER:
            return self._playwright_call(target_id, params)
        return skill_script(text)

    def _playwright_call(self, target_id: str | None, params: Mapping[str, Any]
                         ) -> str | Plumbing:
        args = params.get("arguments")
        args = args if isinstance(args, list) else []
        inner = args[3].get("value") if len(args) > 3 and isinstance(args[3], dict) else None
        inner = inner if isinstance(inner, str) else ""
        if "injected.setInputFiles(" in inner:
            return "upload files"  # set_input_files sends the files through the page
        where = _OBJECT_CONTEXT.fullmatch(str(params.get("objectId", "")))
        if where is not None and (target_id, int(where.group(1))) in self._utility:
            return Plumbing(PLAYWRIGHT)
        if _INJECTED_PARAMS.match(inner.split("=>", 1)[0] + "=>"):
            return Plumbing(PLAYWRIGHT)
        return skill_script(inner)


def _puppeteer(method: str, name: str, where: str, source: str) -> str | Plumbing:
    """``where`` is the calling file with its line and column ("/x/y.js:13:14")."""
    file = _LINE_AND_COLUMN.sub("", where)
    client = DEVTOOLS_MCP if "/chrome-devtools-mcp/" in file else PUPPETEER
    if file.endswith(_DEVTOOLS_MCP_SCRIPT_TOOL) and method == "Runtime.evaluate":
        return skill_script(source)  # evaluate_script: the agent's function
    if name == "internal" or any(part in file for part in _PUPPETEER_FILES):
        return Plumbing(client)
    return skill_script(source)


def skill_script(source: str) -> str:
    # The tag a client appends is no part of what the skill wrote.
    body = _PPTR_TAG.sub("", source).rstrip()
    return f"evaluate the skill's script ({_shape(body)})"


def fold_note(folded: Mapping[str | None, int]) -> str:
    """What an action's line says of the plumbing calls before it."""
    total = sum(folded.values())
    # DOM.focus and scrollIntoViewIfNeeded name no client: they are the named one's.
    clients = [c for c in folded if c is not None]
    whose = f"{clients[0]}'s own" if len(clients) == 1 else "the client's own"
    return f"{FOLD}{counted(total, 'call')} of {whose}"


def split_fold(summary: str) -> tuple[str, str]:
    """An action line's summary as (what was done, the note of folded calls or "")."""
    done, sep, note = summary.partition(FOLD)
    return done, f"{FOLD.strip(' ·')} {note}" if sep else ""


def summarise_input(method: str, params: Mapping[str, Any],
                    mask_url: Callable[[str], str]) -> str | None:
    """An input, navigation or upload command as a person would name it, or None when
    it is only half of one (a mouse move or release, a key-up)."""
    if method == "Page.navigate":
        url = params.get("url")
        return f"navigate to {mask_url(url) if isinstance(url, str) else '?'}"
    if method == "Page.reload":
        return "reload"
    if method == "Page.navigateToHistoryEntry":
        return "go to a history entry"
    if method == "Input.dispatchMouseEvent":
        kind = params.get("type")
        if kind == "mouseWheel":
            return f"scroll {_at(params)}"
        if kind != "mousePressed":
            return None
        button = _MOUSE_BUTTON.get(str(params.get("button", "left")), "click")
        clicks = params.get("clickCount")
        if isinstance(clicks, int) and clicks == 2 and button == "click":
            return f"double-click {_at(params)}"
        times = f" x{clicks}" if isinstance(clicks, int) and clicks > 2 else ""
        return f"{button} {_at(params)}{times}"
    if method == "Input.dispatchKeyEvent":
        if params.get("type") not in ("keyDown", "rawKeyDown", "char"):
            return None
        key = params.get("key")
        if isinstance(key, str) and len(key) > 1 and key.isascii() and key.isalnum():
            return None if params.get("type") == "char" else f"key {key}"
        if press_key_of(params) == "Enter" and not key:
            # Enter named only by its key code, code or "\r": still the Enter key.
            return "key Enter"
        return TYPE_TEXT
    if method in ("Input.insertText", "Input.imeSetComposition"):
        return TYPE_TEXT
    if method == "Input.dispatchTouchEvent":
        if params.get("type") != "touchStart":
            return None
        points = params.get("touchPoints")
        first = points[0] if isinstance(points, list) and points and \
            isinstance(points[0], dict) else {}
        return f"touch {_at(first)}"
    if method == "Input.synthesizeTapGesture":
        return f"tap {_at(params)}"
    if method == "Input.synthesizeScrollGesture":
        return f"scroll {_at(params)}"
    if method == "Input.dispatchDragEvent":
        return "drop" if params.get("type") == "drop" else None
    if method == "DOM.setFileInputFiles":
        files = params.get("files")
        return f"upload {counted(len(files) if isinstance(files, list) else 0, 'file')}"
    return None


def merge_typing(summaries: Sequence[str | None]) -> list[bool]:
    """Which timeline entries stay: a run of "type text" entries one after the other
    (``None`` stands for any entry that is not an action) reads as one."""
    keep = []
    previous: str | None = None
    for s in summaries:
        done = split_fold(s)[0] if s is not None else None
        keep.append(not (done == TYPE_TEXT and previous == TYPE_TEXT))
        previous = done
    return keep
