"""Which client commands are actions on the film's timeline, as a person would name them,
and which are the client's plumbing, folded into the next action's line. The command
shapes are those Playwright 1.65, Puppeteer 24 and chrome-devtools-mcp 1.11 sent through
the guard (tests/film/test_timeline.py drives the clients themselves). A summary never
holds typed text or evaluated source."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.client_actions import (
    ACTION_METHODS,
    TYPE_TEXT,
    ClientActions,
    merge_typing,
    split_fold,
)

PW_WRAPPER = "(utilityScript, ...args) => utilityScript.evaluate(...args)"
PW_UTILITY_INSTALL = ('\n(() => {\n const module = {};\n var __commonJS = 1;\n return (new '
                      'module.exports.InjectedScript(globalThis, {"isUtilityWorld":true,'
                      '"customEngines":[]}));\n})();')
PW_MAIN_INSTALL = PW_UTILITY_INSTALL.replace('"isUtilityWorld":true', '"isUtilityWorld":false')


def pw_call(inner: str, context: int) -> tuple[str, dict[str, Any]]:
    """Playwright's one way to evaluate: the wrapper, on the context's utility script."""
    return ("Runtime.callFunctionOn", {
        "functionDeclaration": PW_WRAPPER, "objectId": f"99379472010332210.{context}.1",
        "arguments": [{"objectId": f"99379472010332210.{context}.1"}, {"value": True},
                      {"value": True}, {"value": inner}, {"value": 1}, {"value": {"v": 1}}],
        "returnByValue": True, "awaitPromise": True})


def pptr(source: str, name: str, where: str, method: str = "Runtime.callFunctionOn"
         ) -> tuple[str, dict[str, Any]]:
    tagged = f"{source}\n//# sourceURL=pptr:{name}" + (f";{where}" if where else "")
    key = "functionDeclaration" if method == "Runtime.callFunctionOn" else "expression"
    return (method, {key: tagged, "executionContextId": 4})


PPTR_LIB = ("evaluate", "%2Fhome%2Fme%2Fskill%2Fnode_modules%2Fpuppeteer-core%2Flib%2Fcjs%2F"
            "puppeteer%2Fapi%2FElementHandle.js%3A1294%3A38)")
MCP_LIB = ("evaluate", "%2Fx%2Fnode_modules%2Fchrome-devtools-mcp%2Fbuild%2Fsrc%2F"
           "third_party%2Findex.js%3A58980%3A38)")
MCP_SCRIPT = "%2Fx%2Fnode_modules%2Fchrome-devtools-mcp%2Fbuild%2Fsrc%2Ftools%2Fscript.js"
PRESS = ("Input.dispatchMouseEvent", {"type": "mousePressed", "button": "left", "x": 138.7,
                                      "y": 18.5, "clickCount": 1})
RELEASE = ("Input.dispatchMouseEvent", {"type": "mouseReleased", "button": "left",
                                        "x": 138.7, "y": 18.5})
MOVE = ("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 1, "y": 2})


def timeline(commands: list[tuple[str, dict[str, Any]]], target: str = "P") -> list[str]:
    actions = ClientActions()
    out = []
    for method, params in commands:
        line = actions.command(target, method, params, lambda url: url)
        if line is not None:
            out.append(line)
    return out


def test_playwright_plumbing_is_folded_into_the_next_action() -> None:
    click = [pw_call("(injected2, params2) => { const elements = injected2.querySelectorAll("
                     "params2) }", 4),
             pw_call("(r) => ({ log: r.log, success: r.success, box: r.box })", 4),
             pw_call("(r) => r.element", 4),
             ("DOM.scrollIntoViewIfNeeded", {"objectId": "99379472010332210.4.4"}),
             pw_call("() => ({ width: innerWidth, height: innerHeight })", 4),
             MOVE, PRESS, RELEASE, pw_call("(h) => h.stop()", 4)]
    got = timeline([("Page.navigate", {"url": "http://a/form"}),
                    ("Runtime.evaluate", {"expression": PW_UTILITY_INSTALL, "contextId": 4}),
                    ("Runtime.evaluate", {"expression": PW_MAIN_INSTALL, "contextId": 3}),
                    *click,
                    pw_call("async ([injected, node, { value }]) => { injected.fill() }", 4),
                    ("Input.insertText", {"text": "Ada Lovelace"}),
                    pw_call("([injected, node, files]) => injected.setInputFiles(node, files)",
                            4),
                    # the skill's page.evaluate, in the page's main world
                    pw_call("() => document.title = 'skill was here'", 3),
                    # a handle's preview in the main world: Playwright's, by its parameter
                    pw_call('(injected, e) => "JSHandle@" + injected.previewNode(e)', 3)])
    assert got == [
        "navigate to http://a/form",
        "click at (139, 18) · after 7 calls of Playwright's own",  # installs, 4 calls, DOM
        "type text · after 2 calls of Playwright's own",  # h.stop() and the fill
        "upload files",
        "evaluate the skill's script (39 characters, 1 line)"]


def test_without_the_utility_world_seen_the_parameters_still_tell() -> None:
    got = timeline([pw_call("(injected, node) => injected.elementState(node)", 7),
                    pw_call("el => el.textContent", 7), PRESS])
    assert got == ["evaluate the skill's script (20 characters, 1 line) · after 1 call of "
                   "Playwright's own", "click at (139, 18)"]


def test_puppeteer_tags_its_own_functions() -> None:
    got = timeline([("Page.navigate", {"url": "http://a/"}),
                    pptr("function addPageBinding(type, name) {}", "internal", ""),
                    pptr("async (element) => element.isConnected", *PPTR_LIB),
                    MOVE, PRESS, RELEASE,
                    ("Input.dispatchKeyEvent", {"type": "keyDown", "key": "A", "text": "A"}),
                    ("Input.dispatchKeyEvent", {"type": "keyUp", "key": "A"}),
                    ("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "Tab"}),
                    ("DOM.setFileInputFiles", {"objectId": "1.4.8", "files": ["/tmp/a.pdf"]}),
                    pptr("() => { document.title = 'x'; }", "evaluate",
                         "%2Fhome%2Fme%2Fskill%2Fstep.js%3A13%3A14")])
    assert got == ["navigate to http://a/",
                   "click at (139, 18) · after 2 calls of Puppeteer's own",
                   TYPE_TEXT, "key Tab", "upload 1 file",
                   "evaluate the skill's script (31 characters, 1 line)"]


def test_chrome_devtools_mcp_is_a_bundled_puppeteer_whose_evaluate_script_is_the_agents(
        ) -> None:
    got = timeline([pptr("element => element.isConnected", *MCP_LIB), PRESS,
                    pptr("(\n() => 1\n)", "evaluateHandle", MCP_SCRIPT + "%3A224%3A73)",
                         "Runtime.evaluate"),
                    pptr("async (fn, ...args) => JSON.stringify(await fn(...args))",
                         "evaluate", MCP_SCRIPT + "%3A225%3A40)"),
                    ("Input.insertText", {"text": "x"})])
    assert got == ["click at (139, 18) · after 1 call of chrome-devtools-mcp's own",
                   "evaluate the skill's script (11 characters, 3 lines)",
                   "type text · after 1 call of chrome-devtools-mcp's own"]


def test_a_raw_client_evaluates_its_own_script_and_plumbing_is_per_page() -> None:
    actions = ClientActions()
    assert actions.command("P", "DOM.focus", {}, str) is None
    assert actions.command("Q", "Runtime.evaluate", {"expression": "a\nb"}, str) == \
        "evaluate the skill's script (3 characters, 2 lines)"  # Q had no plumbing
    assert actions.command("P", *PRESS, str) == "click at (139, 18) · after 1 call of " \
        "the client's own"


def test_clicks_keys_and_navigations_read_plainly() -> None:
    def one(method: str, params: dict[str, Any]) -> str | None:
        return ClientActions().command("P", method, params, lambda u: u.replace("1", "[w]"))

    assert one("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter"}) == "key Enter"
    assert one("Input.dispatchKeyEvent", {"type": "char", "key": "Enter"}) is None
    assert one(*PRESS) == "click at (139, 18)"
    assert one("Input.dispatchMouseEvent", {"type": "mousePressed", "x": 1, "y": 2,
                                            "clickCount": 2}) == "double-click at (1, 2)"
    assert one("Input.dispatchMouseEvent", {"type": "mousePressed", "button": "right",
                                            "x": 1, "y": 2}) == "right-click at (1, 2)"
    assert one(*RELEASE) is None and one(*MOVE) is None
    assert one("Page.navigate", {"url": "http://a/?token=1"}) == \
        "navigate to http://a/?token=[w]"
    assert one("Network.enable", {}) is None
    assert one("DOM.setFileInputFiles", {"files": ["a", "b"]}) == "upload 2 files"


@given(st.text(string.printable, min_size=1, max_size=1))
def test_a_printable_key_is_typing_and_no_more(key: str) -> None:
    assert ClientActions().command("P", "Input.dispatchKeyEvent",
                                   {"type": "keyDown", "key": key, "text": key}, str) == TYPE_TEXT


SECRET = "hunter2-" + "x" * 5


@given(st.sampled_from(sorted(ACTION_METHODS)),
       st.dictionaries(st.sampled_from(["text", "expression", "functionDeclaration", "key",
                                        "code", "url", "files", "type", "arguments",
                                        "unmodifiedText", "commands"]),
                       st.just(SECRET), max_size=6),
       st.sampled_from(["keyDown", "rawKeyDown", "char", "mousePressed", None]))
def test_an_action_summary_never_holds_typed_text_or_source(
        method: str, params: dict[str, object], kind: str | None) -> None:
    if kind is not None:
        params = {**params, "type": kind}
    summary = ClientActions().command("P", method, params, lambda url: "[url]")
    assert summary is None or SECRET not in summary


@given(st.text(max_size=40), st.text(max_size=40))
def test_a_skills_script_in_playwrights_wrapper_shows_no_source(head: str, tail: str) -> None:
    summary = timeline([pw_call(f"() => '{head}{SECRET}{tail}'", 3)])
    assert len(summary) == 1 and SECRET not in summary[0]


def test_a_run_of_typing_reads_as_one_entry() -> None:
    done, note = split_fold("click at (1, 2) · after 3 calls of Puppeteer's own")
    assert (done, note) == ("click at (1, 2)", "after 3 calls of Puppeteer's own")
    assert split_fold("key Tab") == ("key Tab", "")
    assert merge_typing([TYPE_TEXT, TYPE_TEXT + " · after 1 call of x", None, TYPE_TEXT,
                         "key Tab", TYPE_TEXT, TYPE_TEXT]) == [
        True, False, True, True, True, True, False]
