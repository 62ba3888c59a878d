"""Round trips of real-looking files whose texts hypothesis fills with each format's inline markup
(issue 37), through the file layer and a hostile service: the service's own text layer
(traductor.text: segments, markers, stand-ins, markup restored) around a fake model that
upper-cases, reverses, drops tags and placeholders, adds Markdown characters or answers nothing.

Whatever the model does, the output reads with the format's reader and its structure is the
input's: the same units, keys, cues and blocks; in every unit the same tags in the same order,
the same kept elements (<code>, <pre>, <xliff:g>), the same placeholders; Markdown parses to the
same tree but for its words; a unit reported rejected or skipped is byte for byte as it was."""

from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from traductor.model import placeholders
from traductor.text import plan
from traductor_client import markup
from traductor_client.files import Job, outcome, read
from traductor_client.files.markdown_inline import shape
from traductor_client.files.placeholders import TAG

MODES = ["upper", "reverse", "drop tags", "drop placeholders", "markdown junk", "nothing"]
_PLACEHOLDER = re.compile(r"%(?:\d+\$)?[sd]|%L?\d|%n|\{\{?\w+\}\}?|`[^`]+`")


def model(text: str, mode: str) -> str:
    """A fake model's translation of one segment: placeholders masked as the tokenizer masks them
    (<ph0>...), the masked text mangled by `mode`, the placeholders put back (what the engine
    returns, before the text layer restores the markup)."""
    masked = placeholders.mask(text)
    return placeholders.unmask(_mangle(masked.text, mode), masked.values)


def _mangle(text: str, mode: str) -> str:
    if mode == "upper":
        return re.sub(r"(<[^>]*>)|([^<]+)", lambda m: m.group(1) or m.group(2).upper(), text)
    if mode == "reverse":
        return " ".join(reversed(text.split(" ")))
    if mode == "drop tags":
        return re.sub(r"<[^>]*>", "", text).upper()
    if mode == "drop placeholders":
        return re.sub(r"<ph\d+>", "", text).upper()
    if mode == "markdown junk":
        return "** " + text.upper() + " _ [x <y & z"
    return ""


def service(fmt: str, text: str, mode: str):
    """The service's answer to one text, as an Outcome (the text layer around the fake model)."""
    p = plan(text, fmt)
    outs = [model(s.text, mode) for s in p.segments]
    return outcome(p.assemble(outs), "untranslated" if p.untranslated(outs) else "eos")


def round_trip(name: str, data: bytes, mode: str):
    document = read(name, data)
    job = Job(document)
    outcomes = {(f, t): service(f, t, mode) for f, texts in job.requests.items() for t in texts}
    out = document.render(job.finish(outcomes))
    return out, job.report


def skeleton(text: str) -> tuple:
    """What a unit's text must keep: its tags in order, its kept elements, its placeholders."""
    return TAG.findall(text), markup.verbatim(text), sorted(_PLACEHOLDER.findall(text))


WORDS = st.sampled_from(["Save", "the file", "now.", "Open it", "and", "quit!", "Tom & Jerry", "e.g.", "42"])
FUZZ = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def inline(pieces: list) -> st.SearchStrategy:
    """Texts of words and the given markup pieces ("{w}" takes a word)."""
    part = st.one_of(WORDS, st.sampled_from(pieces).flatmap(lambda p: WORDS.map(lambda w: p.replace("{w}", w))))
    return st.lists(part, min_size=1, max_size=6).map(" ".join)


ANDROID_PIECES = ["<b>{w}</b>", '<xliff:g id="n">%1$s</xliff:g>', "%1$s", "<i>{w}</i>", "\\'{w}\\'"]


@FUZZ
@given(st.lists(inline(ANDROID_PIECES), min_size=1, max_size=4), st.booleans(), st.sampled_from(MODES))
def test_android(texts, cdata, mode):
    from translate.storage import aresource

    body = "".join(
        f'    <string name="s{i}">{t.replace("&", "&amp;") if not cdata else f"<![CDATA[{t}]]>"}</string>\n'
        for i, t in enumerate(texts)
    )
    data = f'<?xml version="1.0" encoding="utf-8"?>\n<resources xmlns:xliff="urn:x">\n{body}</resources>\n'.encode()
    out, report = round_trip("strings.xml", data, mode)
    before = aresource.AndroidResourceFile.parsestring(data).units
    after = aresource.AndroidResourceFile.parsestring(out).units
    assert [u.getid() for u in after] == [u.getid() for u in before]
    for old, new in zip(before, after):
        assert skeleton(new.target) == skeleton(old.source), (old.source, new.target)
    left = {unit.where.split('"')[1] for unit, _ in report.rejected + report.skipped}
    for old, new in zip(before, after):
        assert old.getid() not in left or new.target == old.source  # not filled: as it was


@FUZZ
@given(
    st.lists(inline(["&lt;b&gt;{w}&lt;/b&gt;", "{0}", "%s", '<g id="1">{w}</g>']), min_size=1, max_size=4),
    st.sampled_from(MODES),
)
def test_xliff(texts, mode):
    from translate.storage import xliff

    units = "".join(
        f'<trans-unit id="u{i}"><source>{t.replace(" & ", " &amp; ")}</source></trans-unit>\n'
        for i, t in enumerate(texts)
    )
    head = '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a" datatype="x">'
    data = f"{head}<body>\n{units}</body></file></xliff>\n".encode()
    out, report = round_trip("app.xlf", data, mode)
    store = xliff.xlifffile.parsestring(out)
    assert [u.xmlelement.get("id") for u in store.units] == [f"u{i}" for i in range(len(texts))]
    for unit in store.units:
        if unit.target is not None:
            assert skeleton(unit.target) == skeleton(unit.source)
            assert not len(unit.getlanguageNode(lang=None, index=0))  # never a unit with <g>


@FUZZ
@given(
    st.lists(inline(["<b>{w}</b>", "%1", "<i>{w}</i>", "%n"]), min_size=1, max_size=4),
    st.booleans(),
    st.sampled_from(MODES),
)
def test_qt_ts(texts, rich, mode):
    from translate.storage import ts2

    wrap = (lambda t: f"<html><head/><body><p>{t}</p></body></html>") if rich else (lambda t: t)
    escape = lambda t: wrap(t).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")  # noqa: E731
    messages = "".join(
        f'<message><source>{escape(t)}</source><translation type="unfinished"/></message>\n' for t in texts
    )
    data = f'<?xml version="1.0"?>\n<TS version="2.1"><context><name>A</name>\n{messages}</context></TS>\n'
    out, _ = round_trip("app.ts", data.encode(), mode)
    units = ts2.tsfile.parsestring(out).units
    assert [u.source for u in units] == [wrap(t) for t in texts]
    for unit in units:
        assert not unit.target or skeleton(unit.target) == skeleton(unit.source)


@FUZZ
@given(
    st.lists(inline(["<b>{w}</b>", "{{name}}", "<1>{w}</1>", "{count}"]), min_size=1, max_size=4),
    st.sampled_from(MODES),
)
def test_json(texts, mode):
    data = json.dumps({f"k{i}": {"v": t} for i, t in enumerate(texts)}, indent=2).encode()
    out, _ = round_trip("en.json", data, mode)
    before, after = json.loads(data), json.loads(out)
    assert list(after) == list(before)
    for key in before:
        assert skeleton(after[key]["v"]) == skeleton(before[key]["v"])


HTML_PIECES = ["<b>{w}</b>", "<code>make install</code>", '<a href="x.html">{w}</a>', "<kbd>Ctrl</kbd>", "&amp;"]


@FUZZ
@given(st.lists(inline(HTML_PIECES), min_size=1, max_size=3), st.sampled_from(MODES))
def test_html(texts, mode):
    blocks = "".join(f"<p>{t.replace(' & ', ' &amp; ')}</p>\n<pre>keep {i}</pre>\n" for i, t in enumerate(texts))
    data = f'<html lang="en"><body>\n{blocks}<span translate="no">Name</span></body></html>\n'.encode()
    out, _ = round_trip("page.html", data, mode)
    names = lambda s: [(sort, tag) for _, sort, tag, _ in markup.tokens(s) if sort in ("start", "end", "void")]  # noqa: E731
    assert names(out.decode()) == names(data.decode())
    assert markup.verbatim(out.decode()) == markup.verbatim(data.decode())


MD_PIECES = ["**{w}**", "*{w}*", "`make install`", "[{w}](s.md)", "_{w}_", "~~{w}~~"]


@FUZZ
@given(st.lists(inline(MD_PIECES), min_size=1, max_size=4), st.sampled_from(MODES))
def test_markdown(texts, mode):
    data = ("# Title\n\n" + "".join(f"- {t}\n" for t in texts) + "\n```\ncode\n```\n").encode()
    out, report = round_trip("README.md", data, mode)
    assert shape(out.decode()) == shape(data.decode()), out.decode()
    if mode == "upper":
        assert report.filled == len(texts) + 1 - len(report.skipped)


@FUZZ
@given(st.lists(inline(["<i>{w}</i>", "<b>{w}</b>", "%s"]), min_size=1, max_size=4), st.sampled_from(MODES))
def test_subrip(texts, mode):
    from translate.storage import subtitles

    data = "".join(f"{i + 1}\n00:00:0{i},000 --> 00:00:0{i},900\n{t}\n\n" for i, t in enumerate(texts)).encode()
    out, _ = round_trip("movie.srt", data, mode)
    before, after = subtitles.SubRipFile.parsestring(data).units, subtitles.SubRipFile.parsestring(out).units
    assert [u.getid() for u in after] == [u.getid() for u in before]
    assert [skeleton(u.source) for u in after] == [skeleton(u.source) for u in before]


@FUZZ
@given(st.lists(inline(["%s", "%d", "%5.2f"]), min_size=1, max_size=4), st.sampled_from(MODES))
def test_po(texts, mode):
    import polib

    entries = "".join(f'\n#, c-format\nmsgid "{t} {i}"\nmsgstr ""\n' for i, t in enumerate(texts))
    data = ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n' + entries).encode()
    out, _ = round_trip("messages.po", data, mode)
    po = polib.pofile(out.decode())
    assert [e.msgid for e in po] == [f"{t} {i}" for i, t in enumerate(texts)]
    for entry in po:
        assert not entry.msgstr or skeleton(entry.msgstr) == skeleton(entry.msgid)
