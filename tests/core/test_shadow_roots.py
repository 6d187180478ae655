"""Which shadow roots the guard reads out of Chrome's DOM events (core/guard/shadow_roots.py)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ajantik_cdp.core.guard.shadow_roots import RootRef, Unexplored, found_in_event, walk
from tests.support.examples import examples


def el(node_id: int, *children: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"nodeId": node_id, "backendNodeId": node_id + 1000, "nodeType": 1,
            "childNodeCount": len(children), "children": list(children), **more}


def root(node_id: int, mode: str, *children: dict[str, Any]) -> dict[str, Any]:
    return {"nodeId": node_id, "backendNodeId": node_id + 1000, "nodeType": 11,
            "shadowRootType": mode, "children": list(children)}


def test_every_author_root_is_found_nested_and_in_frames() -> None:
    tree = el(1,
              el(2, shadowRoots=[root(3, "closed", el(4, shadowRoots=[root(5, "open")]))]),
              el(6, shadowRoots=[root(7, "user-agent")]),  # <input>'s own: no controls
              el(8, frameId="CHILD", contentDocument=el(9, el(10, shadowRoots=[
                  root(11, "closed")]))))
    assert set(walk(tree, "MAIN")) == {
        RootRef(1003, "MAIN", "closed"), RootRef(1005, "MAIN", "open"),
        RootRef(1011, "CHILD", "closed"),
    }


def test_a_node_whose_children_were_not_sent_is_explored() -> None:
    inserted = {"nodeId": 20, "backendNodeId": 1020, "nodeType": 1, "childNodeCount": 3,
                "shadowRoots": [{"nodeId": 21, "backendNodeId": 1021, "nodeType": 11,
                                 "shadowRootType": "closed", "childNodeCount": 1}]}
    found = found_in_event("DOM.childNodeInserted", {"parentNodeId": 1, "node": inserted})
    assert set(found) == {Unexplored(20), RootRef(1021, None, "closed"), Unexplored(21)}


def test_pushed_roots_and_set_children() -> None:
    assert found_in_event("DOM.shadowRootPushed", {"hostId": 4, "root": root(5, "closed")}) \
        == [RootRef(1005, None, "closed")]
    nodes = [el(30, shadowRoots=[root(31, "open")]), el(32)]
    assert found_in_event("DOM.setChildNodes", {"parentId": 1, "nodes": nodes}) == \
        [RootRef(1031, None, "open")]
    assert found_in_event("DOM.attributeModified", {"nodeId": 1}) == []


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.sampled_from(
                         ["nodeId", "backendNodeId", "children", "shadowRoots",
                          "shadowRootType", "contentDocument", "frameId", "childNodeCount",
                          "node", "nodes", "root"]), inner, max_size=5), max_leaves=30)


@examples(200)
@given(st.sampled_from(["DOM.setChildNodes", "DOM.childNodeInserted",
                        "DOM.shadowRootPushed"]), st.dictionaries(
                            st.sampled_from(["node", "nodes", "root"]), _JSON))
def test_any_shape_chrome_could_send_is_read_without_error(method: str,
                                                           params: dict[str, Any]) -> None:
    for item in found_in_event(method, params):
        assert isinstance(item, RootRef | Unexplored)
