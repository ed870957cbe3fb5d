"""The LibreOffice oracle's own rules: recorded answers carry their version, and a LibreOffice
test never skips in CI."""

from __future__ import annotations

import json

import lo
import pytest
from lo_record import PATH, REGENERATE, Err, norm, same


def test_missing_soffice_skips_locally_and_fails_in_ci(monkeypatch):
    monkeypatch.setattr(lo, "soffice", lambda: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install"):
        lo.check_soffice()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        lo.check_soffice()


def test_every_recorded_set_names_its_libreoffice_version_and_date():
    book = json.loads(PATH.read_text(encoding="utf-8"))
    assert book["regenerate"] == REGENERATE
    assert {"functions", "groups_tco", "groups_loan", "udf_pmt"} <= set(book["sets"])
    for name, body in book["sets"].items():
        assert body["libreoffice"].startswith("LibreOffice "), name
        assert len(body["recorded"]) == 10 and body["cells"], name


def test_recorded_errors_stay_apart_from_text():
    assert isinstance(norm("#N/A"), Err) and not same("#N/A", "#N/A text")
    assert not same(Err("#N/A"), "N/A") and same(1.0, 1.0 + 1e-12) and not same(1.0, True)
