"""The targets the guard knows of, and what it does with each kind.

Shared by the guard's own session (which decides how to install itself on a target), the
interception state machine (which names the target and frame a request came from) and the
client gate (which decides whether a client's command may reach a target yet).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any


class TargetState(Enum):
    UNKNOWN = "unknown"  # the guard has not attached to this target (yet)
    PENDING = "pending"  # attached, the guard's session being installed; still paused
    GUARDED = "guarded"  # installed, released
    EXEMPT = "exempt"  # needs no guard (Chrome's own UI); released as is
    FAILED = "failed"  # could not be guarded; never released by the guard


# Chrome's own UI surfaces (chrome:// pages such as the omnibox popup). Chrome attaches
# them on auto-attach and they must be released; they run no site content.
EXEMPT_TYPES = frozenset({"browser_ui"})

# Containers with no network of their own. A client session on one of these carries
# Target.* commands; the pages inside are separate targets that the guard holds.
CONTAINER_TYPES = frozenset({"tab", "browser"})

# Types whose sessions can host Page.* commands (deny_clicks scripts, navigation).
DOCUMENT_TYPES = frozenset({"page", "iframe", "webview"})

# Workers Chrome stops and starts again on the same DevTools session.
RESTARTING_TYPES = frozenset({"service_worker", "shared_worker"})
# Audio, paint, animation and layout worklets: Chrome names them all "worklet". Shared
# storage and auction worklets are other types, with network reach of their own, and are
# not among them.
WORKLET_TYPES = frozenset({"worklet"})

# A request whose target Chrome has already destroyed (a beacon or fetchLater sent while
# its tab closes) is still named after that target: the guard keeps this many behind.
GONE_KEPT = 256


@dataclass
class Target:
    target_id: str
    target_type: str
    url: str
    # The guard's session on it; None while the target is only discovered (created, not
    # yet attached) or after it went away.
    session_id: str | None = None
    state: TargetState = TargetState.UNKNOWN


@dataclass(frozen=True)
class InstallPlan:
    """What the guard must have in place on a target before it releases it."""

    exempt: bool = False
    # Fetch.enable with no patterns: it pauses nothing on the target's session, but
    # measured on Chrome 156 it is what brings the loaders of a document or worker that
    # existed before the guard under the browser-wide net (without it, their requests
    # never reach the browser session's Fetch).
    join_net: bool = True
    auto_attach: bool = True
    page_scripts: bool = False
    # Shared and service workers stop (idle, ServiceWorker.stopAllWorkers) and start
    # again on the same session, waiting for the debugger, with no new attach: the guard
    # watches for the restart (Inspector events) to release them.
    watch_restarts: bool = False
    # Network.setBypassServiceWorker on documents: their navigations and requests go to
    # the network, where the net decides them, instead of to a service worker. Navigation
    # preload (explicit, and Chrome's automatic one for a worker that is not running) is
    # a request no Fetch session sees; bypassing is the one switch that stops it for
    # every spelling of a denied URL (measured on Chrome 156: emulation rules by URL
    # pattern are case- and escape-sensitive, and ignore regular-expression groups).
    bypass_service_workers: bool = False


def install_plan(target_type: str) -> InstallPlan:
    if target_type in EXEMPT_TYPES:
        return InstallPlan(exempt=True, join_net=False, auto_attach=False)
    if target_type == "worker":
        # A dedicated worker has no Fetch domain ("'Fetch.enable' wasn't found", Chrome
        # 156); its requests go through its owner frame's loaders, which join the net
        # with their target. Auto-attach still brings the workers it starts to the guard.
        return InstallPlan(join_net=False)
    if target_type in WORKLET_TYPES:
        # Neither: "'Fetch.enable' wasn't found" (Chrome 156), and left paused for it the
        # page's addModule() never resolves (an audio graph or a paint() style hangs).
        # Their global scopes have no fetch, XHR, beacon or WebSocket: nothing for the net
        # to decide comes from them (their modules are scripts, which are reads).
        return InstallPlan(join_net=False, auto_attach=False)
    # Everything else, known (page, iframe, shared and service workers) or not, joins the
    # net; a type that refuses it stays paused rather than run outside it.
    return InstallPlan(page_scripts=target_type in DOCUMENT_TYPES,
                       bypass_service_workers=target_type in DOCUMENT_TYPES,
                       watch_restarts=target_type in RESTARTING_TYPES)


def is_settled(state: TargetState) -> bool:
    return state in (TargetState.GUARDED, TargetState.EXEMPT, TargetState.FAILED)


@dataclass(frozen=True)
class TargetNews:
    """What one ``Target.*`` event changed in the book, for its reader to act on."""

    attached: Target | None = None  # a new session on this target
    waiting: bool = False  # the attached target waits for the debugger
    gone: str | None = None  # the id of a target whose session or target went away


TARGET_EVENTS = frozenset({"Target.attachedToTarget", "Target.detachedFromTarget",
                           "Target.targetCreated", "Target.targetInfoChanged",
                           "Target.targetDestroyed"})


class TargetBook:
    """Every target the guard knows of: attached (with its session), only discovered
    (``Target.targetCreated`` arrives before the attach, and a tab opened with a URL from
    Chrome's own port may load before it), and the last few that went away."""

    def __init__(self) -> None:
        self._by_id: dict[str, Target] = {}
        self._by_session: dict[str, Target] = {}
        self._gone: OrderedDict[str, Target] = OrderedDict()

    def __iter__(self) -> Iterator[Target]:
        return iter(list(self._by_id.values()))

    def discovered(self, target_id: str, target_type: str, url: str) -> None:
        """``targetCreated`` / ``targetInfoChanged``: a type and URL, attached or not."""
        target = self._by_id.get(target_id)
        if target is None:
            self._by_id[target_id] = Target(target_id, target_type, url)
        else:
            target.url = url

    def attached(self, target_id: str, target_type: str, session_id: str,
                 url: str) -> Target:
        # A target attached again (after a detach) starts over as PENDING: clients wait
        # until the guard is back in place.
        # Chrome can attach one target twice (a service worker, through the browser and
        # through its page): both sessions stay known, the newest one names the target.
        target = Target(target_id, target_type, url, session_id, TargetState.PENDING)
        self._by_id[target_id] = target
        self._by_session[session_id] = target
        self._gone.pop(target_id, None)
        return target

    def detached(self, session_id: str) -> Target | None:
        target = self._by_session.pop(session_id, None)
        if target is not None and self._by_id.get(target.target_id) is target:
            # A service worker attached through the browser and through its page loses
            # the page's session when its last page closes, and stays attached (and
            # guarded) through the browser's: that session names it from now on.
            # Measured: forgetting it left the worker UNKNOWN, so every client command
            # for it was held 10 s and refused, and Playwright never connected.
            other = self._other_session(target)
            if other is not None:
                self._by_id[target.target_id] = other
            else:
                del self._by_id[target.target_id]
                self._bury(target)
        return target

    def _other_session(self, target: Target) -> Target | None:
        """The newest other live session on ``target``'s id, if any."""
        for other in reversed(list(self._by_session.values())):
            if other.target_id == target.target_id:
                return other
        return None

    def destroyed(self, target_id: str) -> None:
        target = self._by_id.get(target_id)
        if target is not None and target.session_id is None:
            del self._by_id[target_id]
            self._bury(target)

    def _bury(self, target: Target) -> None:
        self._gone[target.target_id] = target
        while len(self._gone) > GONE_KEPT:
            self._gone.popitem(last=False)

    def news(self, method: str, params: Mapping[str, Any]) -> TargetNews | None:
        """Keep the book from one Target event (the guard's session and the camera's
        session without a guard read them alike). None when the event is not one of
        ``TARGET_EVENTS`` or is missing what it needs."""
        info = params.get("targetInfo")
        if not isinstance(info, Mapping):
            info = {}
        if method == "Target.attachedToTarget":
            session_id = params.get("sessionId")
            if not isinstance(info.get("targetId"), str) or not isinstance(session_id, str):
                return None
            target = self.attached(info["targetId"], str(info.get("type", "other")),
                                   session_id, str(info.get("url", "")))
            return TargetNews(attached=target,
                              waiting=bool(params.get("waitingForDebugger")))
        if method == "Target.detachedFromTarget":
            gone = self.detached(str(params.get("sessionId", "")))
            return TargetNews(gone=gone.target_id if gone else None)
        if method in ("Target.targetCreated", "Target.targetInfoChanged"):
            if not isinstance(info.get("targetId"), str):
                return None
            self.discovered(info["targetId"], str(info.get("type", "other")),
                            str(info.get("url", "")))
            return TargetNews()
        if method == "Target.targetDestroyed":
            target_id = str(params.get("targetId", ""))
            self.destroyed(target_id)
            return TargetNews(gone=target_id)
        return None

    def get(self, target_id: str) -> Target | None:
        """A live target, or one that went away recently (for naming its last requests)."""
        return self._by_id.get(target_id) or self._gone.get(target_id)

    def live(self, target_id: str) -> Target | None:
        return self._by_id.get(target_id)

    def by_session(self, session_id: str) -> Target | None:
        return self._by_session.get(session_id)

    def status(self, target_id: str) -> TargetState:
        target = self._by_id.get(target_id)
        return target.state if target else TargetState.UNKNOWN

    def document_sessions(self) -> tuple[tuple[str, str], ...]:
        """(target id, session id) of every attached target that has frames."""
        return tuple((t.target_id, t.session_id) for t in self._by_session.values()
                     if t.target_type in DOCUMENT_TYPES and t.session_id is not None)
