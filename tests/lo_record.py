"""LibreOffice's recorded answers: the oracle for the engine on machines without LibreOffice.

``tests/data/lo_probes.json`` holds, per probe set, what LibreOffice headless computed for each
probe cell (the formula, its value, and the LibreOffice version that computed it). The engine
tests always compare with this recording, so they run, and can fail, everywhere. The tests marked
:data:`lo.requires_soffice` recalculate the same workbooks in the installed LibreOffice and check
that it still gives the recorded answers; to refresh the recording (after adding probes or
upgrading LibreOffice) run::

    GPUTCO_LO_REFRESH=1 python -m pytest -q tests/recalc/functions/test_functions_lo.py \
        tests/recalc/run/test_groups_lo.py tests/recalc/run/test_udfs.py -k recording_equals_live

Values are JSON numbers, strings, booleans, null (blank) or ``{"error": "#N/A"}``.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import subprocess
from pathlib import Path

from openpyxl.utils.datetime import to_excel

from gputco.workbook.recalc import XlError
from gputco.workbook.soffice.process import soffice, soffice_env

PATH = Path(__file__).parent / "data" / "lo_probes.json"
REFRESH = os.environ.get("GPUTCO_LO_REFRESH") == "1"
REGENERATE = (
    "GPUTCO_LO_REFRESH=1 python -m pytest -q tests/recalc/functions/test_functions_lo.py "
    "tests/recalc/run/test_groups_lo.py tests/recalc/run/test_udfs.py -k recording_equals_live"
)


class Err(str):
    """A recorded error code ("#N/A"), kept apart from text that happens to start with '#'."""


def norm(v):
    """A cell value as recorded: float, str, bool, None (blank) or :class:`Err`."""
    if isinstance(v, datetime.datetime):  # LibreOffice formats DATE results as dates
        return float(to_excel(v))
    if isinstance(v, datetime.time):  # and TIME results as times (openpyxl reads a day fraction)
        return (v.hour * 3600 + v.minute * 60 + v.second + v.microsecond / 1e6) / 86400.0
    if isinstance(v, XlError | Err):
        return Err(str(v))
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float):
        return float(v)
    if (
        isinstance(v, str)
        and v.startswith("#")
        and v.rstrip("!?/0A").upper() in ("#N/", "#N", "#VALUE", "#REF", "#NAME", "#NUM", "#DIV", "#NULL")
    ):
        return Err(v)  # openpyxl reads a cached error as its text
    if v is None or v == "":
        return None
    return v


def same(a, b, rel: float = 1e-9) -> bool:
    """Recorded/computed values agree: numbers within ``rel`` relative, anything else exactly."""
    a, b = norm(a), norm(b)
    if type(a) is float and type(b) is float:
        return math.isclose(a, b, rel_tol=rel, abs_tol=1e-300) or a == b
    return type(a) is type(b) and a == b


def _encode(v):
    v = norm(v)
    return {"error": str(v)} if isinstance(v, Err) else v


def _decode(v):
    return Err(v["error"]) if isinstance(v, dict) else v


def _load(path: Path = PATH, regenerate: str = REGENERATE) -> dict:
    if not path.exists():
        return {"about": __doc__.split("\n\n")[0], "regenerate": regenerate, "sets": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def recorded(name: str, path: Path = PATH) -> dict[str, object]:
    """The recorded set: key (a probe formula, or Sheet!A1) -> LibreOffice's value."""
    entries = _load(path)["sets"].get(name, {}).get("cells", [])
    return {e["key"]: _decode(e["value"]) for e in entries}


def _dumps(book: dict) -> str:
    """JSON with one line per recorded cell (readable diffs when a probe is added)."""
    sets = []
    for name, body in book["sets"].items():
        cells = ",\n".join("    " + json.dumps(c, ensure_ascii=False) for c in body["cells"])
        head = {k: v for k, v in body.items() if k != "cells"}
        sets.append(f'  {json.dumps(name)}: {json.dumps(head)[:-1]}, "cells": [\n{cells}\n  ]}}')
    top = {k: v for k, v in book.items() if k != "sets"}
    return json.dumps(top, ensure_ascii=False)[:-1] + ', "sets": {\n' + ",\n".join(sets) + "\n}}\n"


def version() -> str:
    """The installed LibreOffice's version line, e.g. 'LibreOffice 7.4.7.2 40(Build:2)'."""
    out = subprocess.run(
        [soffice(), "--version"], capture_output=True, text=True, timeout=120, env=soffice_env(), check=True
    )
    return out.stdout.strip()


def verify_or_refresh(
    name: str, live: dict[str, object], rel: float = 1e-9, path: Path = PATH, regenerate: str = REGENERATE
) -> list[str]:
    """Live LibreOffice answers against the recording; with GPUTCO_LO_REFRESH=1 rewrite the set.

    Returns one line per key whose live value differs from (or is missing in) the recording.
    ``path`` and ``regenerate`` name another recording file and the command that refreshes it.
    """
    if REFRESH:
        book = _load(path, regenerate)
        book["regenerate"] = regenerate
        book["sets"][name] = {
            "libreoffice": version(),
            "recorded": datetime.date.today().isoformat(),
            "cells": [{"key": k, "value": _encode(v)} for k, v in live.items()],
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dumps(book), encoding="utf-8")
        return []
    rec = recorded(name, path)
    return [
        f"{k}: recorded {rec.get(k, '<missing>')!r}, LibreOffice now {v!r}"
        for k, v in live.items()
        if k not in rec or not same(rec[k], v, rel)
    ]
