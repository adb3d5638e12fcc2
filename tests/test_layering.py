"""The folder layout shows the stack (issue 14 part 2): lower layers never import higher ones.

Read from the source with :mod:`ast`, so imports inside functions (lazy imports) count
as much as those at the top: a cycle hidden behind a lazy import is still a cycle.
The layer of every simcore module comes from ``tests/layers.toml`` (data < model <
process < runs < teaching, as in CONTRIBUTING.md); the lead updates that file when
modules move. ``hardware/`` is a leaf: it never imports simcore.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simcore", "hardware")
TABLE = tomllib.loads((Path(__file__).with_name("layers.toml")).read_text())


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the checked packages."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> tuple[set[str], set[str]]:
    """(modules of the checked packages, other top-level packages) that ``name`` imports."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    ours, others = set(), set()

    def longest_known(dotted: str) -> str | None:
        parts = dotted.split(".")
        while parts:
            if ".".join(parts) in known:
                return ".".join(parts)
            parts.pop()
        return None

    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                hit = longest_known(alias.name)
                if hit:
                    ours.add(hit)
                elif alias.name.split(".")[0] not in PACKAGES:
                    others.add(alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] not in PACKAGES:
                others.add(source.split(".")[0])
                continue
            for alias in node.names:
                hit = longest_known(f"{source}.{alias.name}")
                if hit:
                    ours.add(hit)
    ours.discard(name)
    return ours, others


def import_graph(root: Path = ROOT) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    files = module_files(root)
    known = set(files)
    graph, third_party = {}, {}
    for name, path in files.items():
        graph[name], third_party[name] = _imports(name, path, known)
    return graph, third_party


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
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
            node, children = work[-1]
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def layer_of(module: str, table: dict = TABLE) -> str | None:
    entries = table["modules"]
    if module.split(".")[0] != "simcore":
        return None
    own_file = f"{module}.__init__"
    if own_file in entries and (ROOT / Path(*module.split("."))).is_dir():
        return entries[own_file]
    parts = module.split(".")
    while parts:
        key = ".".join(parts)
        if key in entries:
            return entries[key]
        parts.pop()
    return None


GRAPH, THIRD_PARTY = import_graph()


def test_the_table_is_well_formed():
    order = TABLE["order"]
    assert order == ["data", "model", "process", "runs", "teaching"]
    bad = {k: v for k, v in TABLE["modules"].items() if v not in order}
    assert not bad, f"tests/layers.toml: unknown layers {bad}; layers are {order}"
    missing = [k for k in TABLE["modules"]
               if k.removesuffix(".__init__") not in GRAPH]
    assert not missing, f"tests/layers.toml names modules that do not exist: {missing}"


def test_every_simcore_module_has_a_layer():
    unassigned = sorted(m for m in GRAPH if m.startswith("simcore") and layer_of(m) is None)
    assert not unassigned, f"give these modules a layer in tests/layers.toml: {unassigned}"


def layer_violations(graph: dict[str, set[str]], table: dict = TABLE) -> list[str]:
    rank = {name: i for i, name in enumerate(table["order"])}
    wrong = []
    for module, targets in sorted(graph.items()):
        mine = layer_of(module, table)
        if mine is None:
            continue
        for target in sorted(targets):
            theirs = layer_of(target, table)
            if theirs is not None and rank[theirs] > rank[mine]:
                wrong.append(f"{module} ({mine}) imports {target} ({theirs})")
    return wrong


def test_no_lower_layer_imports_a_higher_one():
    wrong = layer_violations(GRAPH)
    assert not wrong, "\n".join(wrong)


def test_no_layer_imports_a_forbidden_package():
    wrong = [f"{m} ({layer_of(m)}) imports {pkg}"
             for m, pkgs in sorted(THIRD_PARTY.items())
             for pkg in sorted(pkgs)
             if pkg in TABLE["forbidden"].get(layer_of(m) or "", [])]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(package):
    inside = {m: {t for t in ts if t.split(".")[0] == package}
              for m, ts in GRAPH.items() if m.split(".")[0] == package}
    found = cycles(inside)
    assert not found, "import cycles (lazy imports included): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_leaf_packages_stay_leaves():
    wrong = [f"{m} imports {t}"
             for leaf, banned in TABLE["leaves"].items()
             for m, ts in sorted(GRAPH.items()) if m.split(".")[0] == leaf
             for t in sorted(ts) if t.split(".")[0] in banned]
    wrong += [f"{m} imports {p}"
              for leaf, banned in TABLE["leaves"].items()
              for m, ps in sorted(THIRD_PARTY.items()) if m.split(".")[0] == leaf
              for p in sorted(ps) if p in banned]
    assert not wrong, "\n".join(wrong)


# -- the checker itself, on small made-up packages -------------------------------------

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def test_checker_finds_a_cycle_hidden_behind_a_lazy_import(tmp_path):
    root = _tree(tmp_path, {
        "hardware/__init__.py": "",
        "hardware/a.py": "from . import b\n",
        "hardware/b.py": "def f():\n    from .c import g\n    return g\n",
        "hardware/c.py": "def g():\n    from .a import x\n",
        "simcore/__init__.py": "",
    })
    graph, _ = import_graph(root)
    assert graph["hardware.a"] == {"hardware.b"}
    assert cycles(graph) == [["hardware.a", "hardware.b", "hardware.c"]]


def test_checker_sees_a_leaf_importing_simcore_lazily(tmp_path):
    root = _tree(tmp_path, {
        "hardware/__init__.py": "",
        "hardware/x.py": "def f():\n    import simcore.access\n",
        "simcore/__init__.py": "",
        "simcore/access.py": "",
    })
    graph, _ = import_graph(root)
    assert graph["hardware.x"] == {"simcore.access"}
    assert cycles(graph) == []


def test_checker_finds_a_model_module_importing_the_engine():
    graph = {"simcore.disk.access": {"simcore.engine", "simcore.disk.layout"},
             "simcore.engine": {"simcore.disk.access"}, "simcore.disk.layout": set()}
    assert layer_violations(graph) == [
        "simcore.disk.access (model) imports simcore.engine (runs)"]
    # and the real graph is being checked: it has edges from every layer
    layers = {layer_of(m) for m, ts in GRAPH.items() if ts and m.startswith("simcore")}
    assert set(TABLE["order"]) - {"data"} <= layers


def test_layer_lookup_uses_the_longest_entry():
    table = {"modules": {"simcore.__init__": "runs", "simcore.sched": "process",
                         "simcore.sched.linux": "runs"}}
    assert layer_of("simcore.sched.positional", table) == "process"
    assert layer_of("simcore.sched.linux.bfq", table) == "runs"
    assert layer_of("simcore", table) == "runs"
    assert layer_of("simcore.nowhere", table) is None
