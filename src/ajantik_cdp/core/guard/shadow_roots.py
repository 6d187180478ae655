"""Which shadow roots a DOM event hands the guard, so that deny_clicks can listen on each.
Pure.

A press inside a closed shadow root reaches the window retargeted to its host (no
control), and an event that is not composed never leaves its root at all: the page-side
check must listen on every root. Open roots it finds itself; closed ones (and roots
attached to an element already in place, which no mutation shows) only DevTools can
reach. The guard enables the DOM domain on each page session where deny_clicks is set,
asks for the whole tree (``DOM.getDocument`` with ``pierce``), and reads every root out of
what Chrome then sends: that answer, ``DOM.setChildNodes``, ``DOM.childNodeInserted`` and
``DOM.shadowRootPushed``. Each root is then resolved in the guard's isolated world and
handed to its ``__ajantikWatchRoot`` (``proxy/shadow_roots.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

AUTHOR_ROOTS = frozenset({"open", "closed"})  # user-agent roots hold no page controls
DOM_EVENTS = frozenset({"DOM.setChildNodes", "DOM.childNodeInserted", "DOM.shadowRootPushed",
                        "DOM.documentUpdated"})


@dataclass(frozen=True)
class RootRef:
    backend_node_id: int
    frame_id: str | None  # None: the frame of the node the event was about (not known)
    mode: str  # "open" or "closed"


@dataclass(frozen=True)
class Unexplored:
    """A node whose children Chrome has not sent: ask for them (DOM.requestChildNodes)."""

    node_id: int


def _nodes(value: Any) -> list[Mapping[str, Any]]:
    return [n for n in value if isinstance(n, Mapping)] if isinstance(value, list) else []


def walk(node: Mapping[str, Any], frame_id: str | None) -> Iterator[RootRef | Unexplored]:
    """Every author shadow root in ``node``'s subtree (frames followed into their own
    documents), and every node whose children are still to come."""
    stack: list[tuple[Mapping[str, Any], str | None]] = [(node, frame_id)]
    while stack:
        current, frame = stack.pop()
        children = current.get("children")
        count = current.get("childNodeCount")
        node_id = current.get("nodeId")
        if children is None and isinstance(count, int) and count > 0 and \
                isinstance(node_id, int):
            yield Unexplored(node_id)
        for root in _nodes(current.get("shadowRoots")):
            backend = root.get("backendNodeId")
            mode = root.get("shadowRootType")
            if isinstance(backend, int) and mode in AUTHOR_ROOTS:
                yield RootRef(backend, frame, str(mode))
            stack.append((root, frame))
        stack.extend((child, frame) for child in _nodes(children))
        document = current.get("contentDocument")
        if isinstance(document, Mapping):
            owner_frame = current.get("frameId")
            stack.append((document, owner_frame if isinstance(owner_frame, str) else None))


def found_in_event(method: str, params: Mapping[str, Any]) -> list[RootRef | Unexplored]:
    """What one DOM event shows (frames unknown: the event names a node, not a frame)."""
    if method == "DOM.setChildNodes":
        return [x for n in _nodes(params.get("nodes")) for x in walk(n, None)]
    if method == "DOM.childNodeInserted":
        node = params.get("node")
        return list(walk(node, None)) if isinstance(node, Mapping) else []
    if method == "DOM.shadowRootPushed":
        root = params.get("root")
        if not isinstance(root, Mapping):
            return []
        # The pushed node is the root itself.
        return list(walk({"shadowRoots": [root]}, None))
    return []
