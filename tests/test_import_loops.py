"""No module imports, at any depth and inside functions too, a module that imports it back.

A loop hides behind a function-level import until someone moves that import to the top,
and it makes two modules impossible to read or test apart.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("common", "host", "schemas", "servers")


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for f in sorted((root / package).rglob("*.py")):
            parts = f.relative_to(root).with_suffix("").parts
            found[".".join(("lakeboard", *(parts[:-1] if parts[-1] == "__init__" else parts)))] = f
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project modules it imports (a package's parents are not counted: Python
    imports them first whatever the module says)."""
    modules = _modules(root)
    graph: dict[str, set[str]] = {}
    for name, f in modules.items():
        package = name if f.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                for a in node.names:
                    # `from package import module` imports that module; `from module import name`, the module.
                    targets.add(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base)
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = {t for t in targets if t in modules and t != name and t not in ancestors}
    return graph


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other (strongly connected, more than one module)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        order[v] = low[v] = len(order)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in order:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], order[w])
        if low[v] == order[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in order:
            visit(v)
    return found


def test_the_finder_sees_a_loop_through_a_function_level_import(tmp_path: Path) -> None:
    pkg = tmp_path / "servers"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from lakeboard.servers.b import g\n")
    (pkg / "b.py").write_text("def g():\n    from lakeboard.servers import a\n")
    (pkg / "c.py").write_text("from . import a\n")
    assert loops(import_graph(tmp_path)) == [["lakeboard.servers.a", "lakeboard.servers.b"]]


def test_no_import_loops() -> None:
    assert loops(import_graph(REPO)) == []


def crossings(graph: dict[str, set[str]], side: str, other: str) -> list[str]:
    """The imports from package `side` into package `other`, as "importer -> imported"."""
    return sorted(f"{m} -> {t}" for m, targets in graph.items() if m.startswith(side + ".")
                  for t in targets if t.startswith(other + "."))


def test_the_finder_sees_the_host_import_a_server(tmp_path: Path) -> None:
    for package, text in (("host", "from lakeboard.servers.x import y\n"), ("servers", "")):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "x.py").write_text(text)
    assert crossings(import_graph(tmp_path), "lakeboard.host", "lakeboard.servers") == [
        "lakeboard.host.x -> lakeboard.servers.x"]


def test_host_and_servers_meet_only_in_common_and_schemas() -> None:
    """The host speaks to servers over MCP only; what both sides use lives in common/ or schemas/."""
    graph = import_graph(REPO)
    assert crossings(graph, "lakeboard.host", "lakeboard.servers") == []
    assert crossings(graph, "lakeboard.servers", "lakeboard.host") == []
    for shared in ("lakeboard.common", "lakeboard.schemas"):
        assert crossings(graph, shared, "lakeboard.host") == crossings(graph, shared, "lakeboard.servers") == []


def package_loops(root: Path) -> list[tuple[str, str]]:
    """Pairs of packages, neither inside the other, each importing the other (at any depth of module)."""
    modules = _modules(root)
    packages = {name for name, f in modules.items() if f.name == "__init__.py"}

    def package(module: str) -> str:
        return module if module in packages else module.rpartition(".")[0]

    edges = {(package(m), package(t)) for m, targets in import_graph(root).items() for t in targets}
    return sorted((a, b) for a, b in edges if a < b and (b, a) in edges
                  and not b.startswith(a + ".") and not a.startswith(b + "."))


def test_the_finder_sees_two_packages_import_each_other(tmp_path: Path) -> None:
    files = {
        "host/__init__.py": "",
        "host/board.py": "",
        "host/cli.py": "from lakeboard.host.agents import x\n",  # a package and its parent may meet
        "host/agents/__init__.py": "",
        "host/agents/x.py": "from lakeboard.host.baselines.modes import m\nfrom lakeboard.host import board\n",
        "host/baselines/__init__.py": "",
        "host/baselines/modes.py": "def m():\n    from lakeboard.host.agents import x\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert package_loops(tmp_path) == [("lakeboard.host.agents", "lakeboard.host.baselines")]


def test_packages_are_layers() -> None:
    """No two packages import each other: the agents use the modes the baselines define
    (host/baselines/modes.py), never the other way round."""
    assert package_loops(REPO) == []
