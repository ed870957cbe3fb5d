"""How gputco is installed, as pip recorded it, not guessed from folders.

pip writes ``direct_url.json`` into the installed distribution's metadata (PEP 610): an editable
install (``pip install -e .``) records ``"dir_info": {"editable": true}`` and the folder it points
at; a plain ``pip install .`` records no ``editable`` flag, wherever its venv lives (a ``.venv``
inside the checkout is the common layout, and its site-packages then lies under the checkout).
"""

from __future__ import annotations

import json
from importlib.metadata import distribution
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname


def editable_checkout(name: str = "gputco") -> Path | None:
    """The folder an editable install of ``name`` runs from, or None when it is not editable."""
    text = distribution(name).read_text("direct_url.json")
    if not text:
        return None
    record = json.loads(text)
    if not record.get("dir_info", {}).get("editable"):
        return None
    return Path(url2pathname(urlparse(record["url"]).path)).resolve()
