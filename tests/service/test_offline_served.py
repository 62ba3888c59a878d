"""`traductor translate` and a served call run one text pipeline (issue 53, item 1): the same
stages over the same bundle, so a text with placeholders, protected spans, inline markup, HTML or
a glossary's terms comes back the same offline (offline.py, service/engine_inline.py) as from
gRPC Translate, and a segment the verifier flags is flagged by both."""

from __future__ import annotations

import io

from service_harness import WAIT, translate_request

from traductor.cli import main
from traductor.engine.translator import OnnxTranslator
from traductor.glossary import Glossary
from traductor.offline import translate_texts
from traductor_client.v1 import translator_pb2 as pb

TEXTS = [
    "uno dos tres %s",  # a placeholder
    "uno {name} dos. tres cuatro!",  # another kind, two sentences
    "cinco https://example.com/a_b?x=1 seis siete",  # a URL
    "ocho /usr/local/bin nueve.",  # a path
    "uno <b>dos tres</b> cuatro.",  # an inline pair: its words decoded alone too
    "uno\u00a0dos tres",  # a no-break space
    "seis %APPDATA% siete #ff0000 ocho",  # spans protected by what they are
    "42",  # nothing to translate
]
HTML = ['<p><b>uno</b> dos. <a href="x">tres</a> cuatro.</p>', "<ul><li>cinco seis</li><li>siete</li></ul>"]
GLOSSED = ["uno dos tres", "dos. cuatro dos cinco", "seis siete"]


def offline(bundle, monkeypatch, capsys, lines: list[str], *flags: str) -> tuple[list[str], str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))
    assert main(["translate", "--model", str(bundle), "--threads", "1", *flags]) == 0
    out, err = capsys.readouterr()
    return out[:-1].split("\n"), err


def served(server, text: str, format=pb.FORMAT_TEXT, **options) -> pb.TranslateResponse:
    request = translate_request(text, **options)
    request.format = format
    return server.stub.Translate(request, timeout=WAIT)


def test_placeholders_spans_and_markup_come_back_as_served(server, tiny_bundle, monkeypatch, capsys):
    out, err = offline(tiny_bundle, monkeypatch, capsys, TEXTS)
    responses = [served(server, text) for text in TEXTS]
    assert out == [r.text for r in responses]
    flagged = [i + 1 for i, r in enumerate(responses) if any(s.failed_checks for s in r.segments)]
    named = sorted(
        {int(line.split(": line ")[1].split(":")[0]) for line in err.splitlines() if "failed the checks" in line}
    )
    assert named == flagged


def test_html_lines_come_back_as_served(server, tiny_bundle, monkeypatch, capsys):
    out, _ = offline(tiny_bundle, monkeypatch, capsys, HTML, "--format", "html")
    assert out == [served(server, text, pb.FORMAT_HTML).text for text in HTML]


def test_a_beam_comes_back_as_served(server, tiny_bundle, monkeypatch, capsys):
    out, _ = offline(tiny_bundle, monkeypatch, capsys, TEXTS[:3], "--beam", "3")
    assert out == [served(server, text, beam_size=3).text for text in TEXTS[:3]]


def test_a_glossary_is_applied_as_served(server, tiny_bundle):
    translator = OnnxTranslator.load(tiny_bundle, threads=1)
    glossary = Glossary.from_pairs(translator.source_language, translator.target, [("dos", "DOS"), ("siete", "Siete")])
    got = translate_texts(translator, GLOSSED, 1, 32, glossary=glossary)
    want = []
    for text in GLOSSED:
        request = translate_request(text)
        request.glossary.extend(pb.GlossaryEntry(source=s, target=t) for s, t in glossary.entries)
        want.append(server.stub.Translate(request, timeout=WAIT).text)
    assert got == want
    assert [t.count("DOS") for t in got] == [1, 2, 0] and "Siete" in got[2]
