"""The client gate: which of a client's DevTools commands may go to Chrome, and when.

The guard's own session in the browser is what stops requests. The gate protects that
session from the client it proxies:

* A command for a target the guard has not finished guarding is held until it has (or
  refused, if the guard could not guard it). In particular a client's
  ``Runtime.runIfWaitingForDebugger`` cannot release a new tab, popup, frame or worker
  before the guard's interception is installed: measured on Chrome 156, one session's
  release resumes a target that another session is still holding.
* ``Target.createTarget`` with a URL navigates before any debugger can attach (measured:
  the request reached the server before the attach event). The gate opens such targets
  blank and asks the guard to navigate them once it holds them.
* A client that rewrites a paused request (``Fetch.continueRequest`` with a new URL or
  method) into one the rules deny has it failed instead.
* A navigation or new tab for one of Chrome's own privileged pages (``chrome:`` in any
  spelling, extension pages, DevTools, ``about:`` aliases: ``core/guard/privileged_urls.py``)
  is refused: Chrome lets a client open them, and the settings page can turn speculative
  loading back on.
* ``Target.exposeDevToolsProtocol`` would hand a page's own scripts a browser session that
  bypasses this gate; it is refused.
* The person's session stays inside Chrome (``core/guard/cookie_filter.py``): the answers to a
  client's cookie reads, and the headers in Chrome's network events, come back without the
  cookies ``share_cookies`` does not name, and without the credential headers
  (``Authorization``, ``Proxy-Authorization``) of requests to those hosts.
  ``Network.loadNetworkResource`` (Chrome fetches a URL with the page's cookies and hands
  the body to the client, outside the Fetch domain's view) is refused.
* Accepting a JavaScript dialog (``Page.handleJavaScriptDialog``) is a press on a control
  named by the dialog's message, judged by ``deny_clicks`` (``core/guard/dialog_presses.py``):
  a denied accept is answered with an error and never reaches Chrome.
* A client's press at a point (``Input.dispatchMouseEvent`` ``mousePressed``, a touch, a
  tap) on a page is checked first (``core/guard/input_presses.py``): the bridge asks
  Chrome's tree what is there before it forwards the command.

Every client message is parsed and the gate forwards its own serialisation of what it
checked, so a message with duplicate keys cannot mean one thing to the gate and another to
Chrome.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

import orjson

from ajantik_cdp.core.guard.background_fetch import recording_refusal
from ajantik_cdp.core.guard.browser_permissions import permission_refusal
from ajantik_cdp.core.guard.cookie_filter import (
    COOKIE_EVENTS,
    COOKIE_READS,
    CookiePolicy,
    filter_event,
    filter_result,
)
from ajantik_cdp.core.guard.dialog_presses import (
    OpenDialog,
    OpenDialogs,
    RefusedDialog,
    denied_accept,
)
from ajantik_cdp.core.guard.event_text import event_method
from ajantik_cdp.core.guard.fedcm import dialog_providers, selection_refusal
from ajantik_cdp.core.guard.input_presses import PressPoint, press_point
from ajantik_cdp.core.guard.privileged_urls import (
    PRIVILEGED_REFUSAL,
    passive_command,
    privileged_scheme,
    shows_privileged_page,
)
from ajantik_cdp.core.guard.targets import CONTAINER_TYPES, TargetState
from ajantik_cdp.core.policy.config import GuardConfig
from ajantik_cdp.core.policy.rules import Decision, RequestFacts, decide

BLANK_URLS = frozenset({"", "about:blank"})
PRESS_TARGETS = frozenset({"page", "iframe"})
REFUSED_METHODS = {
    "Target.exposeDevToolsProtocol": "it would give page scripts a DevTools session "
    "that bypasses the guard",
    "Network.setRequestInterception": "use the Fetch domain (the deprecated interception "
    "API is not checked by the guard)",
    "Network.continueInterceptedRequest": "use the Fetch domain (the deprecated "
    "interception API is not checked by the guard)",
    "Network.loadNetworkResource": "Chrome would fetch the URL with the person's session "
    "outside the guard's net and hand the answer to the client",
    "Target.openDevTools": "it opens DevTools' own front end, a privileged page that is "
    "itself a DevTools client of Chrome, outside the guard",
}


# Commands that open a URL in a tab as Chrome itself (browser-initiated: Chrome lets
# them reach its own pages, which a page's script cannot).
NAVIGATIONS = frozenset({"Target.createTarget", "Page.navigate", "PWA.launch"})


class RouteKind(Enum):
    FORWARD = "forward"  # send ``text`` upstream
    HOLD = "hold"  # wait until ``target_id`` is settled, then route the message again
    REPLY = "reply"  # send ``text`` back to the client; nothing goes upstream
    CHECK = "check"  # judge ``press`` first: forward ``text``, or answer ``swallow_reply``


@dataclass(frozen=True)
class BlockedRewrite:
    """A client's attempt to rewrite a paused request into a denied one."""

    session_id: str | None
    target_id: str | None
    facts: RequestFacts
    decision: Decision


@dataclass(frozen=True)
class Route:
    kind: RouteKind
    text: str = ""
    target_id: str | None = None
    blocked: BlockedRewrite | None = None
    # FORWARD: the command ``text`` spells, already parsed, so that the film's action
    # line does not parse every command a second time; for a command wrapped in
    # Target.sendMessageToTarget, the inner one, which is what acts on the page.
    command: dict[str, Any] | None = None
    # REPLY: the accept of a dialog deny_clicks refused, to be recorded as a block.
    refused_dialog: RefusedDialog | None = None
    # CHECK: the point pressed, and the client's answer if the press is swallowed.
    press: PressPoint | None = None
    swallow_reply: str = ""


@dataclass(frozen=True)
class NavigateWhenGuarded:
    """The gate opened ``target_id`` blank; the guard must navigate it to ``url``."""

    target_id: str
    url: str


@dataclass
class _Session:
    target_id: str
    target_type: str


StatusLookup = Callable[[str], TargetState]
UrlLookup = Callable[[str], str]  # a target's current URL, "" when unknown
DialogLookup = Callable[[str], OpenDialog | None]


def _no_dialog(target_id: str) -> OpenDialog | None:
    return None


@dataclass
class ClientGate:
    """Per-client-connection state. ``page_target`` is set for /devtools/page/<id> links."""

    config: GuardConfig
    page_target: str | None = None
    # The guard's own view of each target's URL (Target.targetInfoChanged on its session).
    url_of: UrlLookup = lambda _target_id: ""
    sessions: dict[str, _Session] = field(default_factory=dict)
    deferred_urls: dict[int, str] = field(default_factory=dict)
    paused: dict[tuple[str | None, str], RequestFacts] = field(default_factory=dict)
    # FedCM account choosers Chrome showed, by dialog id: each account's provider.
    fedcm_dialogs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # (sessionId, id) of the client's cookie reads still waiting for Chrome's answer, and
    # how many: a client may reuse an id, and every answer to it must be filtered.
    cookie_reads: dict[tuple[str | None, int], int] = field(default_factory=dict)
    # (sessionId, id) of the client's Page.getNavigationHistory calls still unanswered,
    # and the URL of every history entry an answer named, by (sessionId, entry id).
    history_reads: set[tuple[str | None, int]] = field(default_factory=set)
    history: dict[tuple[str | None, int], tuple[str, ...]] = field(default_factory=dict)
    cookies: CookiePolicy = field(init=False)
    # The dialogs open on each target: as this client's own Page events showed them, and
    # as the guard's session saw them (the client may accept one it was never shown).
    dialogs: OpenDialogs = field(default_factory=OpenDialogs)
    guard_dialog: DialogLookup = _no_dialog

    def __post_init__(self) -> None:
        self.cookies = self.config.cookie_policy

    # -- client -> Chrome -------------------------------------------------------------

    def route_text(self, text: str, status: StatusLookup) -> Route:
        try:
            msg = orjson.loads(text)
        except orjson.JSONDecodeError:
            return Route(RouteKind.REPLY, _error(None, None, -32700, "Message must be JSON"))
        return self.route(msg, status)

    def route(self, msg: Any, status: StatusLookup) -> Route:
        if not isinstance(msg, dict):
            return Route(RouteKind.REPLY, _error(None, None, -32600, "Message must be an object"))
        msg_id = msg.get("id")
        method = msg.get("method")
        session_id = msg.get("sessionId")
        if not isinstance(msg_id, int) or isinstance(msg_id, bool):
            return Route(
                RouteKind.REPLY,
                _error(None, session_id, -32600, "Message must have integer 'id' property"),
            )
        if not isinstance(method, str):
            return Route(
                RouteKind.REPLY,
                _error(msg_id, session_id, -32600, "Message must have string 'method' property"),
            )
        if session_id is not None and not isinstance(session_id, str):
            return Route(
                RouteKind.REPLY,
                _error(msg_id, None, -32600, "Message has property 'sessionId', but it is "
                       "not a string"),
            )

        target_id, target_type = self._target_of(session_id)
        if target_id is not None and target_type not in CONTAINER_TYPES:
            state = status(target_id)
            if state is TargetState.FAILED:
                return Route(
                    RouteKind.REPLY,
                    _error(msg_id, session_id, -32000,
                           f"ajantik cdp: target {target_id} could not be guarded, so no "
                           "command may reach it"),
                )
            if state in (TargetState.PENDING, TargetState.UNKNOWN):
                return Route(RouteKind.HOLD, target_id=target_id)

        if target_id is not None and target_type not in CONTAINER_TYPES:
            shown = shows_privileged_page(self.url_of(target_id))
            if shown is not None and not passive_command(method, msg.get("params")):
                # One of Chrome's own pages (a settings tab the person has open, an
                # extension's worker or page): its powers are out of the rules' reach.
                return Route(RouteKind.REPLY, _error(
                    msg_id, session_id, -32000, f"ajantik cdp refuses {method} on target "
                    f"{target_id}: " + PRIVILEGED_REFUSAL.format(why=shown)))

        params = msg.get("params")
        if params is not None and not isinstance(params, dict):
            return Route(
                RouteKind.REPLY, _error(msg_id, session_id, -32602, "Invalid parameters")
            )
        params = params or {}

        refused = (REFUSED_METHODS.get(method) or permission_refusal(method, params)
                   or recording_refusal(method, params))
        if method == "FedCm.selectAccount" and not refused:
            refused = selection_refusal(self.config,
                                        self.fedcm_dialogs.get(str(params.get("dialogId"))),
                                        params)
        if refused:
            return Route(
                RouteKind.REPLY,
                _error(msg_id, session_id, -32000, f"ajantik cdp refuses {method}: {refused}"),
            )

        if method == "Page.handleJavaScriptDialog" and target_id is not None and \
                self.config.deny_clicks and params.get("accept") is not False:
            denial = denied_accept(self.config.deny_clicks, target_id,
                                    self.dialogs.get(target_id) or self.guard_dialog(target_id))
            if denial is not None:
                return Route(RouteKind.REPLY, _error(
                    msg_id, session_id, -32000,
                    f"ajantik cdp refuses to accept the {denial.dialog.kind} dialog "
                    f"{denial.dialog.message[:200]!r}: a press denied by {denial.rule}"),
                    target_id, refused_dialog=denial)

        if self.config.deny_clicks and target_type in PRESS_TARGETS:
            point = press_point(method, params)
            if point is not None:
                done: dict[str, Any] = {"id": msg_id, "result": {}}
                if session_id is not None:
                    done["sessionId"] = session_id
                return Route(RouteKind.CHECK, _dumps(msg), target_id, command=msg,
                             press=point, swallow_reply=_dumps(done))

        if method in NAVIGATIONS:
            url = params.get("url")
            # createTarget without a URL (or with "") opens about:blank.
            # (PWA.launch without a URL opens the app's own start page.)
            why = privileged_scheme(url) if isinstance(url, str) and (
                method == "Page.navigate" or url not in BLANK_URLS) else None
            if method == "Page.navigate" and not isinstance(url, str):
                why = "no URL"
            if why is not None:
                return Route(RouteKind.REPLY, _error(
                    msg_id, session_id, -32000, f"ajantik cdp refuses to open {url!r}: "
                    + PRIVILEGED_REFUSAL.format(why=why)))
        if method == "Page.navigateToHistoryEntry":
            why = self._history_refusal(session_id, params.get("entryId"))
            if why is not None:
                return Route(RouteKind.REPLY, _error(
                    msg_id, session_id, -32000, f"ajantik cdp refuses {method}: {why}"))
        if method == "Page.getNavigationHistory":
            self.history_reads.add((session_id, msg_id))
        if method in COOKIE_READS and not self.cookies.share_all:
            key = (session_id, msg_id)
            self.cookie_reads[key] = self.cookie_reads.get(key, 0) + 1
        if method == "Target.createTarget":
            url = params.get("url")
            if isinstance(url, str) and url not in BLANK_URLS:
                self.deferred_urls[msg_id] = url
                msg = {**msg, "params": {**params, "url": "about:blank"}}
        elif method == "Target.sendMessageToTarget":
            return self._route_nested(msg, params, status)
        elif method == "Fetch.continueRequest":
            rewrite = self._check_rewrite(session_id, target_id, params)
            if rewrite is not None:
                fail = {
                    "id": msg_id,
                    "method": "Fetch.failRequest",
                    "params": {"requestId": params.get("requestId"),
                               "errorReason": "BlockedByClient"},
                }
                if session_id is not None:
                    fail["sessionId"] = session_id
                return Route(RouteKind.FORWARD, _dumps(fail), target_id, blocked=rewrite,
                             command=fail)
        return Route(RouteKind.FORWARD, _dumps(msg), target_id, command=msg)

    def refuse(self, text: str, target_id: str | None, waited: float) -> Route:
        """Answer a held command whose target never became guarded."""
        msg = orjson.loads(text)
        return Route(
            RouteKind.REPLY,
            _error(msg.get("id"), msg.get("sessionId"), -32000,
                   f"ajantik cdp: target {target_id} was not guarded within {waited:g}s, "
                   "so the command was not sent"),
        )

    def _route_nested(self, msg: dict[str, Any], params: dict[str, Any],
                      status: StatusLookup) -> Route:
        """Old, non-flattened clients wrap each command in Target.sendMessageToTarget."""
        inner_text = params.get("message")
        inner_session = params.get("sessionId")
        if not isinstance(inner_text, str) or not isinstance(inner_session, str):
            return Route(RouteKind.FORWARD, _dumps(msg), None, command=msg)
        try:
            inner = orjson.loads(inner_text)
        except orjson.JSONDecodeError:
            return Route(RouteKind.FORWARD, _dumps(msg), None, command=msg)
        if isinstance(inner, dict):
            inner = {**inner, "sessionId": inner_session}
        routed = self.route(inner, status)
        if routed.kind is RouteKind.CHECK:
            # An old client waits for the inner answer, which only Chrome can give: the
            # press goes on, and the page-side check judges it.
            routed = replace(routed, kind=RouteKind.FORWARD, press=None, swallow_reply="")
        if routed.kind is not RouteKind.FORWARD:
            if routed.kind is RouteKind.REPLY:
                # Answer on the outer command: the client waits for that id.
                return Route(RouteKind.REPLY, _error(msg["id"], msg.get("sessionId"), -32000,
                                                     _reply_message(routed.text)),
                             routed.target_id, refused_dialog=routed.refused_dialog)
            return routed
        assert routed.command is not None  # every FORWARD route carries its command
        forwarded = {k: v for k, v in routed.command.items() if k != "sessionId"}
        outer = {**msg, "params": {**params, "message": _dumps(forwarded)}}
        return Route(RouteKind.FORWARD, _dumps(outer), routed.target_id, routed.blocked,
                     command=forwarded)

    def _history_refusal(self, session_id: str | None, entry_id: Any) -> str | None:
        """A history navigation goes where its entry says, which may be a privileged page
        the tab showed before (the gate never saw it opened): decided on the URL an
        earlier Page.getNavigationHistory answer gave for the entry, and refused for an
        entry no answer named (Playwright and Puppeteer always ask first)."""
        urls = self.history.get((session_id, entry_id)) if isinstance(entry_id, int) \
            else None
        if urls is None:
            return ("the guard does not know where that entry leads (ask "
                    "Page.getNavigationHistory on this session first)")
        for url in urls:
            why = privileged_scheme(url)
            if why is not None:
                return f"{url!r}: " + PRIVILEGED_REFUSAL.format(why=why)
        return None

    def _target_of(self, session_id: str | None) -> tuple[str | None, str | None]:
        if session_id is None:
            if self.page_target is not None:
                return self.page_target, "page"
            return None, None
        sess = self.sessions.get(session_id)
        if sess is None:
            # Chrome rejects session ids it did not issue on this connection.
            return None, None
        return sess.target_id, sess.target_type

    def _check_rewrite(self, session_id: str | None, target_id: str | None,
                       params: dict[str, Any]) -> BlockedRewrite | None:
        request_id = params.get("requestId")
        if not isinstance(request_id, str):
            return None
        original = self.paused.pop((session_id, request_id), None)
        new_url = params.get("url")
        new_method = params.get("method")
        if original is None or (new_url is None and new_method is None):
            return None
        facts = RequestFacts(
            method=new_method if isinstance(new_method, str) else original.method,
            url=new_url if isinstance(new_url, str) else original.url,
            resource_type=original.resource_type,
            is_redirect=True,  # a rewritten URL is a redirect the server never issued
        )
        decision = decide(self.config, facts)
        if decision.blocked:
            return BlockedRewrite(session_id, target_id, facts, decision)
        return None

    # -- Chrome -> client -------------------------------------------------------------

    def wants(self, text: str) -> bool:
        """Cheap pre-filter: does this upstream message need to be parsed?

        Chrome writes an event's method first and unescaped, and a reply's id first; a
        message of any other shape is parsed, so the test cannot miss one. It keeps large
        messages (screenshots, bodies) off the parser.
        """
        method = event_method(text)
        if method is not None:
            return method in _GATE_EVENTS or (method in COOKIE_EVENTS
                                              and self._may_carry_cookies(text))
        if text.startswith('{"id":'):
            return bool(self.deferred_urls or self.cookie_reads or self.history_reads)
        return True

    def _may_carry_cookies(self, text: str) -> bool:
        # Every place a cookie value can sit is named "cookie" in some case (a Cookie or
        # Set-Cookie header, raw header text, associatedCookies, cookieLine), every
        # credential header "authorization" (Authorization, Proxy-Authorization), and
        # Chrome never escapes ASCII letters: most network events skip the parser and the
        # walk. (lower() then ``in`` measured ten times faster than a case-blind regex.)
        if self.cookies.share_all:
            return False
        low = text.lower()
        return "cookie" in low or "authorization" in low

    def incoming(self, text: str) -> tuple[str, list[NavigateWhenGuarded]]:
        """What the client receives for Chrome's ``text``, and navigations to start."""
        try:
            msg = orjson.loads(text)
        except orjson.JSONDecodeError:
            return text, []
        navs = self.observe_message(msg)
        if not self._may_carry_cookies(text):
            return text, navs
        filtered = self._filter_cookies(msg, msg.get("sessionId") if isinstance(msg, dict)
                                        else None)
        return (text if filtered is None else _dumps(filtered)), navs

    def _filter_cookies(self, msg: Any, session_id: Any) -> Any | None:
        """``msg`` without the cookies the client may not see; None if it needs no change."""
        if not isinstance(msg, dict):
            return None
        method = msg.get("method")
        if method is None:
            msg_id = msg.get("id")
            key = (session_id if isinstance(session_id, str) else None, msg_id)
            result = msg.get("result")
            if not isinstance(msg_id, int) or key not in self.cookie_reads \
                    or not isinstance(result, dict) or "cookies" not in result:
                # Only an answer that lists cookies settles a read: another command's
                # answer under the same id must not clear the way for the real one.
                return None
            self.cookie_reads[key] -= 1
            if not self.cookie_reads[key]:
                del self.cookie_reads[key]
            filtered = filter_result(result, self.cookies)
            return None if filtered is None else {**msg, "result": filtered}
        params = msg.get("params")
        if method == "Target.receivedMessageFromTarget" and isinstance(params, dict):
            inner_text = params.get("message")
            try:
                inner = orjson.loads(inner_text) if isinstance(inner_text, str) else None
            except orjson.JSONDecodeError:
                return None
            changed = self._filter_cookies(inner, params.get("sessionId"))
            if changed is None:
                return None
            return {**msg, "params": {**params, "message": _dumps(changed)}}
        if not isinstance(method, str):
            return None
        new_params = filter_event(method, params, self.cookies)
        return None if new_params is None else {**msg, "params": new_params}

    def observe(self, text: str) -> list[NavigateWhenGuarded]:
        try:
            msg = orjson.loads(text)
        except orjson.JSONDecodeError:
            return []
        return self.observe_message(msg)

    def observe_message(self, msg: Any) -> list[NavigateWhenGuarded]:
        if not isinstance(msg, dict):
            return []
        method = msg.get("method")
        params = msg.get("params") or {}
        if method == "Target.attachedToTarget":
            info = params.get("targetInfo") or {}
            sid = params.get("sessionId")
            if isinstance(sid, str) and isinstance(info.get("targetId"), str):
                self.sessions[sid] = _Session(info["targetId"], str(info.get("type", "")))
        elif method == "Target.detachedFromTarget":
            sid = params.get("sessionId")
            if isinstance(sid, str):
                gone = self.sessions.pop(sid, None)
                if gone is not None:
                    self.dialogs.gone(gone.target_id)
        elif method in DIALOG_EVENTS:
            session_id = msg.get("sessionId")
            target_id, _ = self._target_of(session_id if isinstance(session_id, str) else None)
            self.dialogs.event(target_id, method, params)
        elif method == "Fetch.requestPaused":
            req = params.get("request") or {}
            rid = params.get("requestId")
            if isinstance(rid, str) and params.get("responseStatusCode") is None:
                self.paused[(msg.get("sessionId"), rid)] = RequestFacts(
                    method=str(req.get("method", "GET")),
                    url=str(req.get("url", "")),
                    resource_type=str(params.get("resourceType", "Other")),
                )
        elif method == "FedCm.dialogShown":
            dialog = params.get("dialogId")
            if isinstance(dialog, str):
                self.fedcm_dialogs[dialog] = dialog_providers(params)
                while len(self.fedcm_dialogs) > FEDCM_DIALOGS_KEPT:
                    del self.fedcm_dialogs[next(iter(self.fedcm_dialogs))]
        elif method == "Target.receivedMessageFromTarget":
            inner_text = params.get("message")
            if isinstance(inner_text, str):
                try:
                    return self.observe_message(
                        {**orjson.loads(inner_text), "sessionId": params.get("sessionId")}
                    )
                except (orjson.JSONDecodeError, TypeError):
                    return []
        elif "id" in msg and (msg.get("sessionId"), msg["id"]) in self.history_reads:
            self._learn_history(msg)
        elif "id" in msg and msg["id"] in self.deferred_urls:
            url = self.deferred_urls.pop(msg["id"])
            target_id = (msg.get("result") or {}).get("targetId")
            if isinstance(target_id, str):
                return [NavigateWhenGuarded(target_id, url)]
        return []

    def _learn_history(self, msg: dict[str, Any]) -> None:
        session_id = msg.get("sessionId")
        result = msg.get("result")
        if not isinstance(result, dict):
            # An error, or another command's answer under a reused id: keep waiting.
            if "error" in msg:
                self.history_reads.discard((session_id, msg["id"]))
            return
        self.history_reads.discard((session_id, msg["id"]))
        entries = result.get("entries")
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("id"), int):
                self.history[(session_id, entry["id"])] = tuple(
                    str(entry.get(k)) for k in ("url", "userTypedURL")
                    if isinstance(entry.get(k), str))


DIALOG_EVENTS = frozenset({"Page.javascriptDialogOpening", "Page.javascriptDialogClosed"})
_GATE_EVENTS = DIALOG_EVENTS | frozenset({
    "Target.attachedToTarget",
    "Target.detachedFromTarget",
    "Target.receivedMessageFromTarget",
    "Fetch.requestPaused",
    "FedCm.dialogShown",
})
FEDCM_DIALOGS_KEPT = 64  # a client answers a chooser soon after it shows


def _dumps(msg: Any) -> str:
    return orjson.dumps(msg).decode()


def _error(msg_id: int | None, session_id: Any, code: int, message: str) -> str:
    out: dict[str, Any] = {"error": {"code": code, "message": message}}
    if msg_id is not None:
        out["id"] = msg_id
    if isinstance(session_id, str):
        out["sessionId"] = session_id
    return _dumps(out)


def _reply_message(text: str) -> str:
    try:
        return str(orjson.loads(text)["error"]["message"])
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return "refused by ajantik cdp"
