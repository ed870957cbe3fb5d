"""The TCO_ functions in xlwings Lite: `gputco addin lite` writes main.py and requirements.txt.

xlwings Lite registers as Excel custom functions the members of the workbook's ``main.py`` that
carry xlwings's ``@func`` metadata (its ``custom_functions_meta(module)`` walks the module with
``inspect.getmembers``, xlwings/pro/udfs_officejs.py). That code path is part of xlwings PRO and
imports only with a licence key, so these tests import the written main.py exactly as Lite would,
(1) with the real xlwings package installed here, and (2) with stand-ins for Lite's ``func`` and
``arg`` that record their arguments as Lite's do and check them against the function's signature
as Lite's ``xlarg`` does ("argument not found"). Every registry function must be registered and
compute the plain numpy function's value.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import sys
import types
from pathlib import Path

import pytest

from gputco import udfs
from gputco.addin.cli import main


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("lite")
    assert main(["addin", "lite", "-o", str(where)]) == 0
    return where


def load_main(path: Path, name: str = "lite_main") -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def example_value(name, fn):
    s = udfs.UDFS[name].udf_spec
    args = list(s.example)
    return fn(*args), s.plain(*(args + [a.default for a in s.args[len(args) :]]))


def same(got, want) -> bool:
    if isinstance(want, list | tuple):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, float):
        return isinstance(got, float) and math.isclose(got, want, rel_tol=1e-12)
    return got == want or (want is None and got == "")


def test_the_files(written, capsys):
    assert (written / "requirements.txt").read_text() == f"gputco=={udfs.__version__}\n"
    text = (written / "main.py").read_text()
    assert (
        "from xlwings import arg, func" in text
        and "xlwings" not in (written / "requirements.txt").read_text()
    )
    assert main(["addin", "lite", "-o", str(written)]) == 2  # never over a user's main.py unasked
    assert "exists" in capsys.readouterr().err


def test_main_py_with_the_real_xlwings_registers_every_function(written):
    module = load_main(written / "main.py")
    for name in udfs.UDFS:
        fn = getattr(module, name)
        assert fn.__name__ == name
        got, want = example_value(name, fn)
        if udfs.UDFS[name].udf_spec.table:
            want = [["" if x is None else x for x in row] for row in want]
        assert same(got, want), (name, got, want)


def test_main_py_with_lite_style_decorators(written, monkeypatch):
    registered = {}

    def func(f=None, **kwargs):
        def inner(fn):
            meta = fn.__dict__.setdefault("__xlfunc__", {"args": {}})
            meta.update(name=fn.__name__, kwargs=kwargs, doc=inspect.getdoc(fn))
            registered[fn.__name__] = fn
            return fn

        return inner if f is None else inner(f)

    def arg(name, convert=None, **kwargs):
        def inner(fn):
            if name not in inspect.signature(fn).parameters:  # as Lite's xlarg refuses it
                raise ValueError(f"Argument {name!r} not found in {fn.__name__}")
            fn.__dict__.setdefault("__xlfunc__", {"args": {}})["args"][name] = kwargs
            return fn

        return inner

    fake = types.ModuleType("xlwings")
    fake.func, fake.arg, fake.script = func, arg, lambda f=None, **k: f
    monkeypatch.setitem(sys.modules, "xlwings", fake)
    monkeypatch.delitem(sys.modules, "gputco.addin.xlwings_decorate", raising=False)
    module = load_main(written / "main.py", "lite_main_fake")
    assert list(registered) == list(udfs.UDFS)
    members = dict(inspect.getmembers(module))  # how Lite's custom_functions_meta finds them
    for name, spec in ((n, u.udf_spec) for n, u in udfs.UDFS.items()):
        meta = members[name].__xlfunc__
        assert meta["kwargs"] == {"category": spec.category} and meta["doc"], name
        assert sorted(meta["args"]) == sorted(a.name for a in spec.args), name
        assert all(a["doc"] and a["ndim"] == 2 and a["err_to_str"] for a in meta["args"].values())
        got, want = example_value(name, members[name])
        if not spec.table:
            assert same(got, want), (name, got, want)
