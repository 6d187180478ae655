"""No module of src/ajantik_cdp imports itself back, however indirectly.

Every import counts: at the top, inside a function, and under ``if TYPE_CHECKING`` (a cycle
that only the type checker follows is still two modules that cannot be read apart). The
graph is read from the source with ``ast``, so nothing is imported to check it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import ajantik_cdp

ROOT = Path(ajantik_cdp.__file__).resolve().parent


def module_names() -> dict[str, tuple[Path, bool]]:
    names: dict[str, tuple[Path, bool]] = {}
    for path in ROOT.rglob("*.py"):
        parts = ["ajantik_cdp", *path.relative_to(ROOT).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        names[".".join(parts)] = (path, is_package)
    return names


@functools.cache  # read once: two tests walk the same sources
def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_package) in modules.items():
        package = name.split(".") if is_package else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                # ``from pkg import mod`` imports the module mod, not a name in pkg.
                targets = [source, *(f"{source}.{alias.name}" for alias in node.names)]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
    return found


def test_the_checker_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_sees_relative_type_checking_and_function_level_imports() -> None:
    graph = import_graph()
    assert len(graph) > 50  # the whole package was read
    # proxy/server.py imports the guardian at the top; reports.py is imported under
    # TYPE_CHECKING by page_scripts.py.
    assert "ajantik_cdp.proxy.guardian" in graph["ajantik_cdp.proxy.server"]
    assert "ajantik_cdp.proxy.reports" in graph["ajantik_cdp.proxy.page_scripts"]


def test_no_module_in_src_is_part_of_an_import_cycle() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)
