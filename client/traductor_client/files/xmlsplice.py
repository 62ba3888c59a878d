"""Writing an XML file back with only what changed changed: the original bytes, with the parts of
the tree the translation touched replaced by their new serialization.

lxml serializes a whole tree in its own way: attributes' quotes, namespace declarations before
the other attributes, character references as characters, ``<a></a>`` for ``<a/>``. A file
written that way differs from its input on lines nobody translated. So the tree is not written
whole: ``Splice(data, root)`` remembers, when the file is read, every node of the tree and where
it lies in the file's bytes (expat's byte offsets); ``splice.render(root)`` then compares the tree,
filled, with what was read, node by node, and copies the original bytes everywhere except:

- a start tag whose attributes changed (``state="translated"`` set): that tag, as lxml writes it;
- the text between two nodes (an element's text, a node's tail) that changed, or where nodes
  were inserted (a new ``<target>``): that stretch, as lxml writes it;
- the content of an element that lost a child: the whole content.

A node that replaced one read (``XmlDocument.undo`` puts back a copy) counts as the one it
copies (``same(copy, original)``). A file in UTF-16 or UTF-32 is worked on in UTF-8 and written
back in its own encoding; one expat cannot place is written whole by lxml, as before (``splice``
or ``render`` returns None).

What this module does not know: any format, units or translations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple
from xml.parsers import expat

from lxml import etree

_START_TAG = re.compile(rb"<[^\s/>]+(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*/?>")


@dataclass
class _Span:
    start: int  # the node's first byte
    open_end: int  # after its start tag (a comment, a PI: its end)
    close_start: int  # where its end tag begins (an empty element, a comment: its end)
    end: int  # after its last byte


def _spans(data: bytes, encoding: Optional[str] = None) -> List[_Span]:
    """The spans of the root element and every element, comment and processing instruction inside
    it, in document order (lxml's ``root.iter()``)."""
    parser = expat.ParserCreate(encoding)  # (given: it overrides the XML declaration's)
    spans: List[_Span] = []
    open_: List[_Span] = []

    def start(name: str, attributes: Any) -> None:
        at = parser.CurrentByteIndex
        tag = _START_TAG.match(data, at)
        if tag is None:
            raise ValueError(f"no start tag at byte {at}")
        span = _Span(at, tag.end(), tag.end(), tag.end())
        spans.append(span)
        open_.append(span)

    def end(name: str) -> None:
        span, at = open_.pop(), parser.CurrentByteIndex
        if not data.endswith(b"/>", 0, span.open_end):  # (<a/>: expat's index is past it)
            span.close_start, span.end = at, data.index(b">", at) + 1

    def other(closing: bytes):
        def handler(*_: Any) -> None:
            if open_:  # comments and PIs before or after the root are not in root.iter()
                at = parser.CurrentByteIndex
                stop = data.index(closing, at + 2) + len(closing)
                spans.append(_Span(at, stop, stop, stop))

        return handler

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CommentHandler, parser.ProcessingInstructionHandler = other(b"-->"), other(b"?>")
    parser.Parse(data, True)
    return spans


@dataclass
class _Read:
    """A node as read: its span, tag, attributes, text, tail and children."""

    span: _Span
    tag: Any
    attributes: Dict[str, str]
    text: Optional[str]
    tail: Optional[str]
    children: List[Any]


class Splice:
    """The file's bytes and tree as read (see the module docstring)."""

    def __init__(self, data: bytes, root: Any, encoding: str = "utf-8") -> None:
        self.encoding = encoding
        # the bytes worked on: the file's own, or in UTF-8 for an encoding that is not ASCII's
        self.wide = "16" in encoding or "32" in encoding
        self.data = data.decode(encoding).encode("utf-8") if self.wide else data
        nodes = list(root.iter())
        spans = _spans(self.data, "UTF-8" if self.wide else None)
        if len(spans) != len(nodes):
            raise ValueError(f"expat found {len(spans)} nodes, lxml {len(nodes)}")
        self.read: Dict[Any, _Read] = {
            node: _Read(span, node.tag, dict(node.attrib), node.text, node.tail, list(node))
            for node, span in zip(nodes, spans)
        }

    def same(self, copy: Any, original: Any) -> None:
        """``copy`` (a deep copy of ``original``, put in its place) is the node read."""
        for new, old in zip(copy.iter(), original.iter()):
            if old in self.read:
                self.read[new] = self.read[old]

    def render(self, root: Any) -> Optional[bytes]:
        """The file's bytes with the changed parts of ``root`` (module docstring), or None when
        lxml's serialization of it cannot be placed (then the caller writes it whole)."""
        new = etree.tostring(root, encoding="unicode").encode("utf-8")
        try:
            spans = dict(zip(root.iter(), _spans(new)))
        except (ValueError, expat.ExpatError):
            return None
        edits: List[Tuple[int, int, bytes]] = []

        def piece(a: int, b: int) -> bytes:
            return new[a:b].decode("utf-8").encode("utf-8" if self.wide else self.encoding, "xmlcharrefreplace")

        def walk(node: Any) -> None:
            read, here = self.read[node], spans[node]
            if read.tag != node.tag:
                edits.append((read.span.start, read.span.end, piece(here.start, here.end)))
                return
            children = list(node)
            empty = read.span.open_end == read.span.end and read.span.close_start == read.span.end
            if empty and isinstance(node.tag, str) and (children or node.text):  # <a/> got content
                edits.append((read.span.start, read.span.end, piece(here.start, here.end)))
                return
            if read.attributes != dict(node.attrib):
                tag = piece(here.start, here.open_end)
                if here.open_end == here.end and not empty:  # lxml writes <a></a> as <a/>
                    tag = tag[:-2].rstrip() + b">"
                edits.append((read.span.start, read.span.open_end, tag))
            kept = {id(child) for child in children if child in self.read}
            if [self.read[child] for child in children if id(child) in kept] != [self.read[c] for c in read.children]:
                if children or read.children:  # a child removed or moved: the whole content
                    edits.append((read.span.open_end, read.span.close_start, piece(here.open_end, here.close_start)))
                return
            # the stretches between kept children: text or tail changed, or nodes inserted there
            old_at, new_at, before, inserted = read.span.open_end, here.open_end, None, False
            for child in children + [None]:
                if child is not None and id(child) not in kept:
                    inserted = True
                    continue
                now = node.text if before is None else before.tail
                was = read.text if before is None else self.read[before].tail
                if inserted or (now or "") != (was or ""):
                    old_stop = read.span.close_start if child is None else self.read[child].span.start
                    new_stop = here.close_start if child is None else spans[child].start
                    edits.append((old_at, old_stop, piece(new_at, new_stop)))
                if child is None:
                    break
                walk(child)
                old_at, new_at, before, inserted = self.read[child].span.end, spans[child].end, child, False

        try:
            walk(root)
        except RecursionError:  # nested deeper than Python's stack: written whole instead
            return None
        out, at = [], 0
        for start, stop, replacement in sorted(edits):
            out += [self.data[at:start], replacement]
            at = stop
        out.append(self.data[at:])
        spliced = b"".join(out)
        return spliced.decode("utf-8").encode(self.encoding) if self.wide else spliced


def splice(data: bytes, root: Any, encoding: str = "utf-8") -> Optional[Splice]:
    """A Splice of the file, or None when expat cannot place its nodes (module docstring)."""
    try:
        return Splice(data, root, encoding)
    except (ValueError, expat.ExpatError, LookupError, UnicodeError):
        return None


__all__ = ["Splice", "splice"]
