"""The package's layout, as docs/architecture.md draws it: no import cycles, one face per part.

Module-level imports only (an import inside a function is for an optional heavy dependency, and
is listed in LAZY with the reason). The graph is read from the source with ``ast``, so it holds
whatever the import order of a test run happens to be.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"udfs": "gputco.udfs", "workbook": "gputco.workbook", "addin": "gputco.addin"}
RECALC = "gputco.workbook.recalc"


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _top_level_imports(name: str, deep: bool = False) -> list[tuple[str, int]]:
    """(imported gputco module, line) of the module's top-level imports (``if TYPE_CHECKING``
    blocks left out: they never run); with ``deep``, the imports inside functions too."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    base = name if _is_package(name) else name.rpartition(".")[0]
    out = []

    def visit(body):
        for node in body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            if deep and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.With):
                visit(node.body)
            if isinstance(node, ast.If | ast.Try | ast.For | ast.While):
                visit(node.body)
                visit(getattr(node, "orelse", []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
                visit(getattr(node, "finalbody", []))
            elif isinstance(node, ast.Import):
                out.extend((a.name, node.lineno) for a in node.names if a.name in MODULES)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    pkg = base
                    for _ in range(node.level - 1):
                        pkg = pkg.rpartition(".")[0]
                    target = f"{pkg}.{node.module}" if node.module else pkg
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in MODULES:
                        out.append((sub, node.lineno))
                    elif target in MODULES:
                        out.append((target, node.lineno))

    visit(tree.body)
    return out


GRAPH = {name: _top_level_imports(name) for name in MODULES}
#: with the imports inside functions, less the front doors' (addin/ imports a command's modules
#: when the command runs, so that ``gputco --help`` stays fast)
DEEP = {
    name: []
    if name.startswith("gputco.addin")
    else [e for e in _top_level_imports(name, True) if e[0] != name]
    for name in MODULES
}


def test_the_graph_is_read():
    """The reader finds the imports we know exist (a reader that finds none would pass the rest)."""
    assert "gputco.workbook.batch.validate" in {m for m, _ in GRAPH["gputco.workbook.batch.run"]}
    assert any(m.startswith(RECALC) for m, _ in GRAPH["gputco.workbook.batch.xlsx_in"])
    assert sum(len(v) for v in GRAPH.values()) > 300


def _cycles(graph: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w, _ in graph[v]:
            if w == v:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in graph:
        if v not in index:
            strong(v)
    return cycles


def test_no_import_cycles():
    cycles = _cycles(GRAPH)
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_no_cycle_hidden_in_a_function():
    """An import inside a function is for an optional heavy dependency or a command's modules,
    never to dodge a cycle: with those imports counted there is still none."""
    cycles = _cycles(DEEP)
    assert cycles == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def _imports_anywhere(name: str) -> list[tuple[str, int]]:
    """Every gputco import of the module, at any depth (function bodies included)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, node.lineno))
            out.extend((f"{node.module}.{a.name}", node.lineno) for a in node.names)
        elif isinstance(node, ast.Import):
            out.extend((a.name, node.lineno) for a in node.names)
    return out


def test_nothing_outside_the_engine_imports_its_internals():
    """Outside workbook/recalc, only the face ``gputco.workbook.recalc`` (its ``__all__``) and the
    function table's public module are imported."""
    allowed = {RECALC}
    bad = []
    for name in MODULES:
        if name == RECALC or name.startswith(RECALC + "."):
            continue
        for target, line in _imports_anywhere(name):
            if target.startswith(RECALC + ".") and target not in allowed:
                stem = target.rpartition(".")[0]
                if stem == RECALC and target.rpartition(".")[2] in _face():
                    continue  # from gputco.workbook.recalc import recalc_file
                bad.append(f"{MODULES[name].relative_to(ROOT)}:{line} imports {target}")
    assert bad == []


def _face() -> set[str]:
    tree = ast.parse(MODULES[RECALC].read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise AssertionError("workbook/recalc/__init__.py has no __all__")


def test_the_face_exports_what_it_names():
    import gputco.workbook.recalc as recalc

    assert sorted(recalc.__all__) == sorted(_face())
    missing = [n for n in recalc.__all__ if not hasattr(recalc, n)]
    assert missing == []


def test_the_engine_is_laid_out_by_stage():
    top = sorted(p.name for p in (ROOT / "workbook" / "recalc").iterdir() if p.name != "__pycache__")
    assert top == ["__init__.py", "base", "formula", "functions", "read", "run", "write"]


def test_the_wheel_lists_every_package():
    """Every folder with an ``__init__.py`` is a package of the wheel (pyproject.toml lists them:
    a folder left out installs as missing, though an editable install would still find it)."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    assert listed == found


#: the engine's stages, bottom first: a module imports only from its own stage or those before it
#: (the face, workbook/recalc/__init__.py, sits above them all)
STAGES = ("base", "read", "formula", "functions", "run", "write")


def engine_import_faults(folder: Path) -> list[str]:
    """What in the engine at ``folder`` (a copy of workbook/recalc) breaks its fence: an import of
    the rest of gputco, or an import against the stage order. Imports at any depth count (a
    function's, and those under ``if TYPE_CHECKING``: a published engine must not need them)."""
    faults = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        stage = parts[0] if len(parts) > 1 else None  # None: the face
        name = ".".join([RECALC, *(parts[:-1] if parts[-1] == "__init__" else parts)])
        base = name if path.name == "__init__.py" else name.rpartition(".")[0]
        where = f"workbook/recalc/{path.relative_to(folder).as_posix()}"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    pkg = base
                    for _ in range(node.level - 1):
                        pkg = pkg.rpartition(".")[0]
                    targets = [f"{pkg}.{node.module}" if node.module else pkg]
                else:
                    targets = [node.module or ""]
            else:
                continue
            for target in targets:
                if not (target == "gputco" or target.startswith("gputco.")):
                    continue
                if target != RECALC and not target.startswith(RECALC + "."):
                    faults.append(f"{where}:{node.lineno} imports {target}, outside the engine")
                    continue
                if stage is None:
                    continue
                to = target[len(RECALC) + 1 :].partition(".")[0] or None
                if (
                    to is None
                    or to not in STAGES
                    or stage not in STAGES
                    or STAGES.index(to) > STAGES.index(stage)
                ):
                    faults.append(
                        f"{where}:{node.lineno} ({stage}) imports {target}, against the stage order"
                    )
    return faults


def test_the_engine_imports_nothing_else_of_gputco():
    """Custom functions, the fallback (and its errors), the safe output and the row writer are
    handed in by the callers; the engine could be published on its own (docs/architecture.md)."""
    faults = [f for f in engine_import_faults(ROOT / "workbook" / "recalc") if "outside" in f]
    assert faults == []


def test_the_engine_keeps_its_stage_order():
    faults = [f for f in engine_import_faults(ROOT / "workbook" / "recalc") if "stage order" in f]
    assert faults == []


def test_the_fence_check_catches_mutants(tmp_path):
    """Two mutants of a copy of the engine: an import of the rest of gputco, and a back-arrow (the
    bottom layer importing the run stage); the check names each, with its file and line."""
    import shutil

    copy = tmp_path / "recalc"
    shutil.copytree(ROOT / "workbook" / "recalc", copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = engine_import_faults(copy)
    values = copy / "base" / "values.py"
    values.write_text(values.read_text() + "\nfrom gputco.workbook.recalc.run import engine\n")
    lines = len(values.read_text().splitlines())
    package = copy / "read" / "package.py"
    package.write_text(package.read_text() + "\n\ndef _mutant():\n    from gputco.udfs import UDFS\n")
    plines = len(package.read_text().splitlines())
    added = sorted(set(engine_import_faults(copy)) - set(before))
    assert added == [
        f"workbook/recalc/base/values.py:{lines} (base) imports gputco.workbook.recalc.run, against the stage order",
        f"workbook/recalc/read/package.py:{plines} imports gputco.udfs, outside the engine",
    ]


def test_the_engine_runs_as_a_package_of_its_own(tmp_path):
    """Copied out as ``xlrecalc`` with its import prefix rewritten (docs/architecture.md, "Publishing
    it on its own"), the engine recalculates a workbook in a Python where gputco cannot be imported."""
    import math
    import shutil
    import subprocess
    import sys

    import openpyxl

    package = tmp_path / "xlrecalc"
    shutil.copytree(ROOT / "workbook" / "recalc", package, ignore=shutil.ignore_patterns("__pycache__"))
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8").replace(RECALC, "xlrecalc")
        path.write_text(text, encoding="utf-8")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["A3"] = 2, "=A1*PI()", "=-PMT(0.05/12,60,31250)"
    wb.save(tmp_path / "book.xlsx")
    code = (
        "import sys; sys.modules['gputco'] = None; import xlrecalc; "
        "v = xlrecalc.evaluate_workbook(sys.argv[1]); print(v[('Sheet', 'A2')], v[('Sheet', 'A3')])"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "book.xlsx")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    pi2, pmt = map(float, run.stdout.split())
    r = 0.05 / 12
    assert pi2 == 2 * math.pi
    assert pmt == pytest.approx(31250 * r / (1 - (1 + r) ** -60), rel=1e-12)  # the annuity identity


UDFS_PKG = "gputco.udfs"


@dataclass(frozen=True)
class Face:
    """A package's internal face: its ``_face.py`` (FACE: module -> (job group, names or None for
    all, why)) and the names the package itself exports."""

    package: str  #: dotted name, e.g. gputco.udfs
    folder: str  #: its folder in the checkout, e.g. udfs
    owner: str  #: how a fault names it, e.g. udfs'
    public: frozenset[str] = frozenset()  #: names of the package itself others may use

    def declared(self) -> dict[str, frozenset[str] | None]:
        """module -> names (None for all) of the checkout's ``_face.py``."""
        import runpy

        declared = runpy.run_path(str(ROOT / self.folder / "_face.py"))["FACE"]
        assert declared
        return {module: names for module, (_, names, _) in declared.items()}

    def modules(self) -> set[str]:
        return {p.stem for p in (ROOT / self.folder).glob("*.py")} - {"__init__"}


def _udfs_public() -> frozenset[str]:
    """udfs/__init__.py's ``__all__`` and ``UDFS``, read from the checkout's file."""
    public = {"UDFS"}
    for node in ast.parse((ROOT / "udfs" / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            public |= set(ast.literal_eval(node.value))
    assert len(public) > 40
    return frozenset(public)


UDFS_FACE = Face(UDFS_PKG, "udfs", "udfs'", _udfs_public())
XLSX_FACE = Face("gputco.workbook.xlsx", "workbook/xlsx", "workbook/xlsx's")


def face_faults(face: Face, root: Path, folders: tuple[str, ...]) -> list[str]:
    """Imports (at any depth) of ``face``'s package's internals from ``folders`` under ``root``
    (the package's own folder left out) that its ``_face.py`` does not declare: an undeclared
    module, or a name outside a module's declared names (in ``from PKG.m import name`` and in
    ``m.name`` after ``from PKG import m``), or a name of the package itself it does not export."""
    declared, public, modules = face.declared(), face.public, face.modules()
    parent, _, leaf = face.package.rpartition(".")
    depth = face.package.count(".") + 1  # where the module's name stands in a dotted import
    own = root / face.folder
    faults = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            if path.is_relative_to(own):
                continue
            where = path.relative_to(root).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            alias: dict[str, str] = {}
            package: set[str] = set()  # names bound to the package itself (from gputco import udfs)

            def use(module: str, name: str | None, line: int, where: str = where) -> None:
                if module not in declared:
                    faults.append(f"{where}:{line} imports {face.package}.{module}, not in {face.owner} face")
                elif name is not None and declared[module] is not None and name not in declared[module]:
                    faults.append(
                        f"{where}:{line} uses {face.package}.{module}.{name}, not in {face.owner} face"
                    )

            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name.startswith(face.package + "."):
                            use(a.name.split(".")[depth], None, node.lineno)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    if node.module == parent:
                        package |= {a.asname or a.name for a in node.names if a.name == leaf}
                    elif node.module == face.package:
                        for a in node.names:
                            if a.name in modules:
                                use(a.name, None, node.lineno)
                                alias[a.asname or a.name] = a.name
                            elif a.name not in public:
                                faults.append(
                                    f"{where}:{node.lineno} imports {face.package}.{a.name}, not public"
                                )
                    elif node.module.startswith(face.package + "."):
                        for a in node.names:
                            use(node.module.split(".")[depth], a.name, node.lineno)
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
                    continue
                if node.value.id in alias:
                    use(alias[node.value.id], node.attr, node.lineno)
                elif node.value.id in package:
                    if node.attr in modules:  # udfs.chain.X: a submodule through the package
                        use(node.attr, None, node.lineno)
                    elif node.attr not in public and not node.attr.startswith("__"):  # __file__
                        faults.append(f"{where}:{node.lineno} uses {face.package}.{node.attr}, not public")
    return faults


def udfs_face_faults(root: Path, folders: tuple[str, ...] = ("workbook", "addin")) -> list[str]:
    """Imports of udfs internals from ``folders`` that udfs/_face.py does not declare."""
    return face_faults(UDFS_FACE, root, folders)


def xlsx_face_faults(root: Path, folders: tuple[str, ...] = ("workbook", "addin", "udfs")) -> list[str]:
    """Imports of workbook/xlsx internals from ``folders`` that workbook/xlsx/_face.py does not
    declare (workbook/xlsx itself left out)."""
    return face_faults(XLSX_FACE, root, folders)


def test_workbook_and_addin_import_only_udfs_face():
    """workbook/ and addin/ import from udfs only its public face and the modules (names) that
    udfs/_face.py declares; the rest of udfs is private (docs/architecture.md)."""
    assert udfs_face_faults(ROOT) == []


@pytest.mark.parametrize("face", [UDFS_FACE, XLSX_FACE], ids=["udfs", "xlsx"])
def test_the_face_names_real_modules_and_names(face):
    """Each declared module exists and each declared name is defined there (a face naming what is
    gone would let nothing through yet look complete)."""
    import importlib

    missing = []
    for module, names in face.declared().items():
        mod = importlib.import_module(f"{face.package}.{module}")
        missing += [f"{module}.{n}" for n in sorted(names or ()) if not hasattr(mod, n)]
    assert missing == []


def test_the_rest_of_gputco_imports_only_xlsx_face():
    """workbook/ (but workbook/xlsx), addin/ and udfs/ import from workbook/xlsx only the modules
    (names) that workbook/xlsx/_face.py declares (docs/architecture.md)."""
    assert xlsx_face_faults(ROOT) == []


def _mutated_addin_faults(tmp_path, faults, mutants: str) -> tuple[list[str], int]:
    """``faults`` (a face check) of a copy of addin/, clean as it is, then with ``mutants`` added
    at the end of its lite.py: the faults found (sorted) and lite.py's line count."""
    import shutil

    shutil.copytree(ROOT / "addin", tmp_path / "addin", ignore=shutil.ignore_patterns("__pycache__"))
    assert faults(tmp_path, ("addin",)) == []
    lite = tmp_path / "addin" / "lite.py"
    lite.write_text(lite.read_text() + mutants)
    return sorted(faults(tmp_path, ("addin",))), len(lite.read_text().splitlines())


def test_the_xlsx_face_check_catches_mutants(tmp_path):
    """Mutants of a copy of addin/: an undeclared module, a name outside a narrow module's
    declared names, the same through a module alias and through the package; each is named
    with its file and line."""
    got, n = _mutated_addin_faults(
        tmp_path,
        xlsx_face_faults,
        "\n\ndef _mutant():\n    from gputco.workbook.xlsx import _face\n"
        + "    from gputco.workbook.xlsx.files import remove_stale\n"
        + "    from gputco.workbook.xlsx import book\n    return book.FIRST_SYSTEM_COL\n"
        + "\n\ndef _mutant2():\n    from gputco.workbook import xlsx\n    return xlsx.rowfill, xlsx.NOT_PUBLIC\n",
    )
    assert got == sorted(
        [
            f"addin/lite.py:{n - 8} imports gputco.workbook.xlsx._face, not in workbook/xlsx's face",
            f"addin/lite.py:{n - 7} uses gputco.workbook.xlsx.files.remove_stale, not in workbook/xlsx's face",
            f"addin/lite.py:{n - 5} uses gputco.workbook.xlsx.book.FIRST_SYSTEM_COL, not in workbook/xlsx's face",
            f"addin/lite.py:{n} uses gputco.workbook.xlsx.NOT_PUBLIC, not public",
        ]
    )


def test_the_udfs_face_check_catches_mutants(tmp_path):
    """Mutants of a copy of addin/: an undeclared module (flows, the maths' kernels), a name outside
    a narrow module's declared names, the same through a module alias, and through the package
    (``udfs.energy``, ``udfs.NOT_PUBLIC``); each is named with its file and line."""
    got, n = _mutated_addin_faults(
        tmp_path,
        udfs_face_faults,
        "\n\ndef _mutant():\n    from gputco.udfs import flows\n"
        + "    from gputco.udfs.compute import flops_per_token_palm\n"
        + "    from gputco.udfs import excel\n    return excel.SOMETHING_PRIVATE\n"
        + "\n\ndef _mutant2():\n    from gputco import udfs\n    return udfs.energy, udfs.NOT_PUBLIC\n",
    )
    assert got == sorted(
        [
            f"addin/lite.py:{n - 8} imports gputco.udfs.flows, not in udfs' face",
            f"addin/lite.py:{n - 7} uses gputco.udfs.compute.flops_per_token_palm, not in udfs' face",
            f"addin/lite.py:{n - 5} uses gputco.udfs.excel.SOMETHING_PRIVATE, not in udfs' face",
            f"addin/lite.py:{n} imports gputco.udfs.energy, not in udfs' face",
            f"addin/lite.py:{n} uses gputco.udfs.NOT_PUBLIC, not public",
        ]
    )
