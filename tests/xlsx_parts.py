"""Helpers for tests that compare .xlsx packages part by part (tests/recalc/write/test_preserve.py,
tests/recalc/run/test_engines_lo.py): a package's members, and a sheet compared with its
recalculated copy."""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i.filename) for i in z.infolist()}


def _compare_sheet(before: bytes, after: bytes) -> int:
    """Assert the sheets are equal except formula cells' v/t; return how many cells changed."""
    a, b = ET.fromstring(before), ET.fromstring(after)
    changed = 0
    for ea, eb in zip(a.iter(), b.iter(), strict=True):
        assert ea.tag == eb.tag
        if ea.tag == f"{NS}c" and ea.find(f"{NS}f") is not None:
            assert {k: v for k, v in ea.attrib.items() if k != "t"} == {
                k: v for k, v in eb.attrib.items() if k != "t"
            }
            changed += 1
            continue
        if ea.tag == f"{NS}v" and eb.tag == f"{NS}v":
            continue  # formula cells' values (others are checked through their parent below)
        assert ea.attrib == eb.attrib, ea.tag
        assert (ea.text or "") == (eb.text or ""), ea.tag
    # the children of formula cells: same f, and a v after it
    for ca, cb in zip(a.iter(f"{NS}c"), b.iter(f"{NS}c"), strict=True):
        if ca.find(f"{NS}f") is None:
            assert ET.tostring(ca) == ET.tostring(cb)
            continue
        assert ET.tostring(ca.find(f"{NS}f")) == ET.tostring(cb.find(f"{NS}f"))
        assert [c.tag for c in cb] == [f"{NS}f", f"{NS}v"]
    return changed
