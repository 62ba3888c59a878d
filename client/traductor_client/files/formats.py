"""Which reader takes a file, and the checks every upload passes before any parser sees it.

    read(name, data, limits, language) -> Document

``language`` is the target's code, when the caller knows it: it says how many plural forms a
translated plural message gets (``plurals``; a .po without Plural-Forms, Qt, Android).

1. The size: over ``limits.max_bytes`` is refused with the limit named.
2. The extension picks the format (``EXTENSIONS``); ``.xlf``/``.xliff`` are read as 1.2 or 2.0
   by their ``version`` attribute.
3. XML is first parsed by defusedxml, which refuses entity declarations and external
   references (billion laughs, ``file:///etc/passwd``, network fetches) with a clear message;
   translate-toolkit then parses it with lxml without entity resolution or network access.
4. More than ``limits.max_units`` units is refused with the limit named: an XML file's units
   are counted on that first parse, before the format's reader, which is much slower; other
   formats after parsing.

Every refusal is a :class:`FileError` naming the problem; a parser's own exception on a bad file
becomes one too (``toolkit.StoreDocument``), never a traceback.

What this module does not know: the service, or how the document is filled.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass
from typing import Callable, Dict, Optional

from traductor_client.files.errors import FileError
from traductor_client.files.job import Document


@dataclass(frozen=True)
class Limits:
    max_bytes: Optional[int] = None  # None: no limit (the CLI on a local file)
    max_units: Optional[int] = None
    bytes_flag: str = "--max-file-bytes"  # named in the refusal, so an operator knows what to raise
    units_flag: str = "--max-file-units"


def _po(data: bytes, name: str, language: str = "") -> Document:
    from traductor_client import __version__
    from traductor_client.files import gettext

    return gettext.PoDocument(gettext.parse(data, name), f"traductor-client {__version__}", language)


def _toolkit(module: str, class_name: str) -> Callable[..., Document]:
    def make(data: bytes, name: str, language: str = "") -> Document:
        # translate-toolkit: imported when a file needs it
        document = getattr(importlib.import_module(f"traductor_client.files.{module}"), class_name)(data, name)
        document.language = language or document.language  # (the file's own, where it says one)
        return document

    return make


_XLIFF2 = re.compile(rb"<xliff\b[^>]*\bversion\s*=\s*[\"']2\.", re.S)


def _xliff(data: bytes, name: str, language: str = "") -> Document:
    kind = "Xliff2Document" if _XLIFF2.search(data[:4096]) else "Xliff1Document"
    return _toolkit("bilingual", kind)(data, name, language)


# extension -> reader(data, name, language=""); the one list of supported extensions (/frontend/settings shows it)
EXTENSIONS: Dict[str, Callable[..., Document]] = {
    ".po": _po,
    ".pot": _po,
    ".xlf": _xliff,
    ".xliff": _xliff,
    ".ts": _toolkit("bilingual", "TsDocument"),
    ".xml": _toolkit("android", "AndroidDocument"),
    ".json": _toolkit("monolingual", "JsonDocument"),
    ".srt": _toolkit("monolingual", "SubRipDocument"),
    ".txt": _toolkit("monolingual", "TextDocument"),
    ".html": _toolkit("webpage", "HtmlDocument"),
    ".htm": _toolkit("webpage", "HtmlDocument"),
    ".md": _toolkit("markdown", "MarkdownDocument"),
    ".markdown": _toolkit("markdown", "MarkdownDocument"),
}
XML_EXTENSIONS = frozenset({".xlf", ".xliff", ".ts", ".xml"})


def extension(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def check_xml(data: bytes, name: str):
    """Refuse entity declarations, external references and XML that is not well formed; returns
    the root element (of a fast parse, for counting units before the format's reader)."""
    import defusedxml
    import defusedxml.ElementTree as safe_tree

    try:
        return safe_tree.fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except defusedxml.EntitiesForbidden:
        raise FileError(f"{name}: XML entity declarations are not accepted (entity expansion attack?)") from None
    except defusedxml.ExternalReferenceForbidden:
        raise FileError(f"{name}: XML external references are not accepted") from None
    except defusedxml.DefusedXmlException as error:
        raise FileError(f"{name}: unsafe XML refused ({error})") from None
    except safe_tree.ParseError as error:
        raise FileError(f"{name}: not well-formed XML ({error})") from None
    except (LookupError, ValueError) as error:  # an unknown encoding in the XML declaration
        raise FileError(f"{name}: not readable XML ({error})") from None


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def xml_units(root, ext: str) -> int:
    """How many units an XML file holds, counted on the safe parse: translate-toolkit's readers
    are much slower (2 MB of Qt .ts: 78 s), so a file over --max-file-units is refused first."""
    if ext == ".ts":
        return sum(_local(e.tag) == "message" for e in root.iter())
    if ext == ".xml":  # Android: <string>, <plurals>, and each <item> of a <string-array>
        arrays = [e for e in root.iter() if _local(e.tag) == "string-array"]
        return sum(_local(e.tag) in ("string", "plurals") for e in root.iter()) + sum(len(a) for a in arrays)
    return sum(_local(e.tag) in ("trans-unit", "segment") for e in root.iter())  # XLIFF 1.2, 2.0


def _check_units(name: str, count: int, limits: Limits) -> None:
    if limits.max_units is not None and count > limits.max_units:
        raise FileError(f"{name}: {count} units, more than the limit of {limits.max_units} ({limits.units_flag})")


def read(name: str, data: bytes, limits: Limits = Limits(), language: str = "") -> Document:
    """Parse an uploaded or local file into a document (see the module docstring); ``language``:
    the target's code, where known."""
    if limits.max_bytes is not None and len(data) > limits.max_bytes:
        raise FileError(f"{name}: {len(data)} bytes, more than the limit of {limits.max_bytes} ({limits.bytes_flag})")
    ext = extension(name)
    reader = EXTENSIONS.get(ext)
    if reader is None:
        known = " ".join(sorted(EXTENSIONS))
        what = f"{ext} is not a supported file format" if ext else "the name has no extension to say its format"
        raise FileError(f"{name}: {what} (supported: {known})")
    if ext in XML_EXTENSIONS:
        _check_units(name, xml_units(check_xml(data, name), ext), limits)
    document = reader(data, name, language)
    _check_units(name, len(document.units), limits)
    return document
