"""Validating a package's XML parts against the ECMA-376 schemas (tests/data/ooxml-schemas, their
source and licence in its README.md), offline with lxml.

One wrapper schema imports every namespace the parts use; the http schemaLocations of
``opc-coreProperties.xsd`` (Dublin Core) resolve to the copies in ``dcmi/``. Before validation the
markup-compatibility layer is applied as a consumer that does not know Microsoft's extensions
does (ECMA-376 Part 3): attributes and elements in namespaces the root declares ``mc:Ignorable``
are removed, and ``mc:AlternateContent`` keeps its ``mc:Fallback``. ``extLst/ext`` content is laxly
validated by the schemas themselves. The schemas' one known gap (``xml:space`` on ``<t>``, ``<v>``,
``<f>``, which Excel writes but ST_Xstring does not declare) is not reported.
"""

from __future__ import annotations

import functools
import re
import zipfile
from pathlib import Path

from lxml import etree

SCHEMAS = Path(__file__).parent / "data" / "ooxml-schemas"
ECMA = SCHEMAS / "ecma376-transitional"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"

#: namespace -> schema file of the wrapper
_IMPORTS = {
    "http://schemas.openxmlformats.org/spreadsheetml/2006/main": ECMA / "sml.xsd",
    "http://schemas.openxmlformats.org/drawingml/2006/main": ECMA / "dml-main.xsd",
    "http://schemas.openxmlformats.org/drawingml/2006/chart": ECMA / "dml-chart.xsd",
    "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing": ECMA
    / "dml-spreadsheetDrawing.xsd",
    "http://schemas.openxmlformats.org/officeDocument/2006/extended-properties": ECMA
    / "shared-documentPropertiesExtended.xsd",
    "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties": ECMA
    / "shared-documentPropertiesCustom.xsd",
    "http://schemas.openxmlformats.org/package/2006/content-types": SCHEMAS / "opc" / "opc-contentTypes.xsd",
    "http://schemas.openxmlformats.org/package/2006/relationships": SCHEMAS / "opc" / "opc-relationships.xsd",
    "http://schemas.openxmlformats.org/package/2006/metadata/core-properties": SCHEMAS
    / "opc"
    / "opc-coreProperties.xsd",
}


class _Local(etree.Resolver):
    """The Dublin Core and xml: schemas from dcmi/, never from the network."""

    def resolve(self, url, pubid, context):
        name = url.rsplit("/", 1)[-1]
        if url.startswith("http"):
            local = SCHEMAS / "dcmi" / name
            if not local.exists():
                raise OSError(f"schema {url} is not stored offline")
            return self.resolve_filename(str(local), context)
        return None


@functools.cache
def schema() -> etree.XMLSchema:
    imports = "".join(
        f'<xsd:import namespace="{ns}" schemaLocation="{path.resolve().as_uri()}"/>'
        for ns, path in _IMPORTS.items()
    )
    wrapper = f'<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">{imports}</xsd:schema>'
    parser = etree.XMLParser(no_network=True)
    parser.resolvers.add(_Local())
    doc = etree.fromstring(wrapper.encode(), parser, base_url=(SCHEMAS / "wrapper.xsd").as_uri())
    return etree.XMLSchema(etree.ElementTree(doc))


def _strip_ignorable(root: etree._Element) -> None:
    """ECMA-376 Part 3: drop what an ignorable namespace holds, keep AlternateContent's Fallback."""
    ignorable = set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        prefixes = el.get(f"{{{MC}}}Ignorable")
        if prefixes:
            ignorable |= {el.nsmap[p] for p in prefixes.split() if p in el.nsmap}
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        for name in list(el.attrib):
            ns = etree.QName(name).namespace
            if ns in ignorable or ns == MC:
                del el.attrib[name]
    for alt in list(root.iter(f"{{{MC}}}AlternateContent")):
        parent = alt.getparent()
        fallback = alt.find(f"{{{MC}}}Fallback")
        at = parent.index(alt)
        parent.remove(alt)
        if fallback is not None:
            for i, child in enumerate(fallback):
                parent.insert(at + i, child)
    for el in list(root.iter()):
        parent = el.getparent()
        if (
            isinstance(el.tag, str)
            and etree.QName(el).namespace in ignorable
            and etree.QName(parent).localname != "ext"  # an extension's content, laxly validated
        ):
            parent.remove(el)


def part_errors(name: str, data: bytes) -> list[str]:
    """Every schema error of one XML part, as ``part:line: message``."""
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    _strip_ignorable(root)
    for el in root.iter():
        if isinstance(el.tag, str) and XML_SPACE in el.attrib and etree.QName(el).localname in "tvf":
            del el.attrib[XML_SPACE]  # the schemas' known gap (README.md)
    s = schema()
    if s.validate(root):
        return []
    return [f"{name}:{e.line}: {e.message}" for e in s.error_log]


def package_errors(path: Path) -> tuple[int, list[str]]:
    """(number of XML parts checked, their schema errors) of one .xlsx; VML drawings (legacy, not
    XML-schema valid by design in ECMA-376 Part 4) are left out."""
    errors: list[str] = []
    n = 0
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if not re.search(r"\.(xml|rels)$", name):
                continue
            n += 1
            errors += part_errors(name, z.read(name))
    return n, errors
