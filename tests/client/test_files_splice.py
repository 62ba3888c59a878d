"""files/xmlsplice.py on generated XML: whatever the quoting, whitespace, comments, character
references and empty elements of a file, the tree changed in some texts, attributes or children
is written as the input's bytes with those changes only: it parses to the changed tree, and
unchanged it is the input itself."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from traductor_client.files.xmlsplice import splice

_TEXT = st.sampled_from(["", " ", "\n  ", "word", "caf&#233;", "a &amp; b", "x&lt;y", "\u00a0?", "'q'"])


@st.composite
def elements(draw, depth=0):
    name = draw(st.sampled_from(["a", "b", "item", "x:g"]))
    quote = draw(st.sampled_from(['"', "'"]))
    attrs = "".join(f" k{i}={quote}v{i}{quote}" for i in range(draw(st.integers(0, 2))))
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        return f"<{name}{attrs}/>" if draw(st.booleans()) else f"<{name}{attrs}>{draw(_TEXT)}</{name} >"
    parts = [draw(_TEXT)]
    for _ in range(draw(st.integers(0, 3))):
        parts.append(draw(st.sampled_from(["<!-- note -->", "<?pi data?>", ""])) or draw(elements(depth + 1)))
        parts.append(draw(_TEXT))
    return f"<{name}{attrs}>{''.join(parts)}</{name}>"


def _parse(data: bytes):
    return etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(elements(), st.integers(0, 2**32 - 1))
def test_only_what_changed_is_rewritten(body, seed):
    data = f'<?xml version="1.0"?>\n<root xmlns:x="urn:x" a=\'1\'>{body}</root>\n'.encode()
    root = _parse(data)
    spliced = splice(data, root)
    assert spliced is not None
    unchanged = spliced.render(root)
    assert unchanged == data  # nothing changed: the input itself
    rng = random.Random(seed)
    nodes = [n for n in root.iter() if isinstance(n.tag, str)]
    for node in rng.sample(nodes, min(3, len(nodes))):
        change = rng.choice(["text", "tail", "attribute", "child"])
        if change == "text":
            node.text = "new «text» & <more>"
        elif change == "tail" and node is not root:
            node.tail = "\n new tail "
        elif change == "attribute":
            node.set("state", "translated")
        else:
            etree.SubElement(node, "target").text = "added"
    out = spliced.render(root)
    assert etree.tostring(_parse(out)) == etree.tostring(root)  # the changed tree, exactly


_WORDS = st.sampled_from(
    ["open", "the file", 'say "hi"', "back\\slash", "caf\u00e9", "tab\there", "line\nbreak", "{{name}}"]
)
_VALUES = st.recursive(
    st.one_of(_WORDS, st.integers(0, 9), st.booleans(), st.none()),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abcde"), inner, max_size=3)),
    max_leaves=8,
)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    st.dictionaries(st.sampled_from(["k1", "k2", "k3"]), _VALUES, min_size=1),
    st.sampled_from([None, 2, 4, "\t"]),
    st.booleans(),
)
def test_json_values_are_replaced_where_they_stand(value, indent, ascii_only):
    import json

    from traductor_client.files import Job, read

    data = json.dumps(value, indent=indent, ensure_ascii=ascii_only).encode()
    document = read("en.json", data)
    job = Job(document)
    filled = job.finish({(f, t): ("T " + t, "") for f, texts in job.requests.items() for t in texts})
    out = document.render(filled)

    def translated(v):
        if isinstance(v, str):
            return "T " + v if v.strip() else v
        if isinstance(v, list):
            return [translated(x) for x in v]
        return {k: translated(x) for k, x in v.items()} if isinstance(v, dict) else v

    assert json.loads(out) == translated(value)
    assert out == json.dumps(translated(value), indent=indent, ensure_ascii=ascii_only).encode()  # the same layout
