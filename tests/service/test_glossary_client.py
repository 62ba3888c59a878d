"""Glossaries from the client (issue 35) against the tiny model's server: the library's
`glossary` (a mapping or pairs) and `glossary_id`, `traductor-client translate --glossary FILE`
(.tsv, .csv, .po), and `translate-file --glossary FILE`."""

from __future__ import annotations

import pytest

from traductor_client import TranslatorClient
from traductor_client.cli import main
from traductor_client.errors import InvalidArgument, NotFound


@pytest.fixture
def client(server):
    with TranslatorClient(server.target) as c:
        yield c


def test_the_library_sends_a_mapping_or_pairs(client):
    assert client.translate("uno dos", glossary={"dos": "DOS"}).text.count("DOS") == 1
    results = client.translate_batch(["uno dos", "tres"], glossary=[("dos", "DOS")])
    assert "DOS" in results[0].text and results[1].text == client.translate("tres").text
    streamed = "".join(e.text for e in client.stream_events("uno dos", glossary={"dos": "DOS"}))
    assert streamed == client.translate("uno dos", glossary={"dos": "DOS"}).text


def test_the_library_refusals(client):
    with pytest.raises(NotFound, match="no-such"):
        client.translate("uno dos", glossary_id="no-such")
    with pytest.raises(InvalidArgument, match="glossary entry 1 \\('dos'\\): target is empty"):
        client.translate("uno dos", glossary={"dos": ""})
    with pytest.raises(TypeError, match="glossary must be"):
        client.translate("uno dos", glossary=[("dos",)])


@pytest.mark.parametrize(
    "name, data",
    [
        ("g.tsv", "dos\tDOS\n"),
        ("g.csv", '"dos","DOS"\n'),
        ("g.po", 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "dos"\nmsgstr "DOS"\n'),
    ],
)
def test_the_cli_reads_a_glossary_file(server, tmp_path, capsys, name, data):
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    assert main(["--target", server.target, "translate", "--glossary", str(path), "uno dos", "tres"]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first.count("DOS") == 1 and "DOS" not in second


def test_the_cli_names_a_bad_glossary_file(server, tmp_path, capsys):
    path = tmp_path / "g.tsv"
    path.write_text("dos\tDOS\ntres\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main(["--target", server.target, "translate", "--glossary", str(path), "uno dos"])
    assert "g.tsv: line 2 is not source<TAB>target" in capsys.readouterr().err


def test_translate_file_takes_a_glossary(server, tmp_path):
    source, out, glossary = tmp_path / "a.txt", tmp_path / "a.es.txt", tmp_path / "g.tsv"
    source.write_text("uno dos\ntres\n", encoding="utf-8")
    glossary.write_text("dos\tDOS\n", encoding="utf-8")
    args = ["--target", server.target, "translate-file", str(source), "-o", str(out), "--glossary", str(glossary)]
    assert main(args) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert "DOS" in lines[0] and "DOS" not in lines[1]
