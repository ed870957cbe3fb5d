"""Safe XML parsing for package parts: expat with DTDs refused.

An .xlsx part never needs a document type declaration, so refusing every DTD closes the classic XML
attacks (entity expansion "billion laughs", external entities, network access) in one move, the
same rule defusedxml applies. This uses the standard library's expat directly (no dependency) and
also gives byte offsets, which the writer needs to patch values into the original bytes.
"""

from __future__ import annotations

import pyexpat
import xml.etree.ElementTree as ET

from gputco.workbook.recalc.base.errors import WorkbookFormatError

DTD_REFUSED = "declares a DTD or entities; refused for safety (entity expansion, external entities)"


class _DTDRefused(Exception):
    """Raised inside expat's callbacks; :func:`run` turns it into a WorkbookFormatError."""


def _refuse_dtd(*_args: object) -> None:
    raise _DTDRefused


def make_parser(*, namespaces: bool = True) -> pyexpat.XMLParserType:
    """An expat parser with namespace processing (names are ``"uri local"``; without
    ``namespaces`` they are as written, ``prefix:local``) and DTDs refused."""
    p = pyexpat.ParserCreate(namespace_separator=" ") if namespaces else pyexpat.ParserCreate()
    p.StartDoctypeDeclHandler = _refuse_dtd
    p.EntityDeclHandler = _refuse_dtd
    p.ExternalEntityRefHandler = _refuse_dtd
    p.buffer_text = True
    return p


def run(parser: pyexpat.XMLParserType, data: bytes, part: str) -> None:
    """Parse ``data`` with the handlers already set; XML errors become WorkbookFormatError
    (an encoding Python does not know, in the XML declaration, too)."""
    run_piece(parser, data, part, final=True)


def run_piece(parser: pyexpat.XMLParserType, data: bytes, part: str, *, final: bool) -> None:
    """Feed one piece of a part too big to hold at once (``final`` for the last), as :func:`run`."""
    try:
        parser.Parse(data, final)
    except _DTDRefused:
        raise WorkbookFormatError(f"{part} {DTD_REFUSED}") from None
    except pyexpat.ExpatError as err:
        raise WorkbookFormatError(f"{part} is not well-formed XML: {err}") from None
    except LookupError as err:
        raise WorkbookFormatError(f"{part} is in an unknown text encoding: {err}") from None


class _Root(Exception):
    """Raised at the root element: the prolog, where a DTD would be, is over."""


def refuse_dtd(data: bytes, part: str) -> None:
    """Refuse a part whose prolog declares a DTD, reading only up to its root element (for
    parts handed on unparsed, e.g. to LibreOffice).

    >>> refuse_dtd(b'<?xml version="1.0"?><a><b/></a>', "ok.xml")
    >>> refuse_dtd(b'<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', "bad.xml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.workbook.recalc.base.errors.WorkbookFormatError: bad.xml declares a DTD or entities; ...
    """
    p = make_parser()

    def root(*_args: object) -> None:
        raise _Root

    p.StartElementHandler = root
    try:
        for i in range(0, max(len(data), 1), 1 << 16):
            run_piece(p, data[i : i + (1 << 16)], part, final=i + (1 << 16) >= len(data))
    except _Root:
        return


def _et_name(name: str) -> str:
    uri, sep, local = name.rpartition(" ")
    return "{" + uri + "}" + local if sep else name


def parse_tree(data: bytes, part: str) -> ET.Element:
    """Parse a small part into an ElementTree element (names in ``{uri}local`` form).

    >>> root = parse_tree(b'<a xmlns="u"><b x="1">t</b></a>', "test")
    >>> root.tag, root[0].get("x"), root[0].text
    ('{u}a', '1', 't')
    >>> parse_tree(b'<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', "test")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gputco.workbook.recalc.base.errors.WorkbookFormatError: test declares a DTD or entities; refused for safety ...
    """
    builder = ET.TreeBuilder()
    p = make_parser()
    p.StartElementHandler = lambda name, attrs: builder.start(
        _et_name(name), {_et_name(k): v for k, v in attrs.items()}
    )
    p.EndElementHandler = lambda name: builder.end(_et_name(name))
    p.CharacterDataHandler = builder.data
    run(p, data, part)
    return builder.close()
