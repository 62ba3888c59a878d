"""`traductor-client translate` line by line (issue 53): a text refused for what it holds, or not
valid UTF-8, is printed as it was and named on stderr with its number and the problem; the others
are translated and printed in order; the exit status is 1. Against the fake server, then against
a real in-process server (its limits, its batch refusal naming the item)."""

from __future__ import annotations

import io

import pytest
from server_harness import ServerThread, make_settings

from traductor_client.cli import main


def stdin_bytes(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_a_refused_line_is_printed_as_it_was_and_named(server, monkeypatch, capsysbinary):
    stdin_bytes(monkeypatch, b"one two\n!invalid\nthree \xff four\n\nfive six\n")
    assert main(["translate", "--target", server.address]) == 1
    out, err = capsysbinary.readouterr()
    assert out == b"two one\n!invalid\nthree \xff four\n\nsix five\n"
    assert err.decode().splitlines() == [
        "traductor-client: line 2: INVALID_ARGUMENT: text is empty or invalid; printed as it was",
        "traductor-client: line 3: not valid UTF-8 (byte 0xFF at byte 6 of the line, counted from 0); "
        "printed as it was",
        "traductor-client: 2 texts not translated",
    ]
    assert server.translator.calls["Translate"] == 3  # the line that is not UTF-8 is never sent


@pytest.mark.parametrize("flag", ["--stream", "--batch", "--json"])
def test_arguments_are_named_by_number_in_every_mode(server, capsys, flag):
    assert main(["translate", "--target", server.address, flag, "a b", "!invalid", "c d"]) == 1
    out, err = capsys.readouterr()
    assert "argument 2: INVALID_ARGUMENT: text is empty or invalid" in err
    if flag == "--json":
        assert '{"argument": 2, "error": "INVALID_ARGUMENT: text is empty or invalid", "source": "!invalid"}' in out
    else:
        assert out == "b a\n!invalid\nd c\n"


def test_a_refusal_of_the_call_still_stops_at_once(server, monkeypatch, capsys):
    """A bad option is every line's: one line on stderr, nothing printed, no line numbers."""
    stdin_bytes(monkeypatch, b"a b\nc d\n")
    assert main(["translate", "--target", server.address, "--beam", "9"]) == 1
    assert capsys.readouterr() == ("", "traductor-client: INVALID_ARGUMENT: beam_size must be in [1, 4]\n")


@pytest.fixture(scope="module")
def real(tiny_bundle):
    s = ServerThread(make_settings(tiny_bundle, max_input_chars=30))
    yield s
    s.close()


@pytest.mark.parametrize("flag", [[], ["--batch"]])
def test_a_real_servers_refusals_name_the_line(real, monkeypatch, capsys, flag):
    """Its control-character and --max-input-chars refusals, one call a line or in one batch
    (sent again without the text it names)."""
    long = "uno dos " * 5
    stdin_bytes(monkeypatch, f"uno dos\nuno \x01 dos\n{long}\ntres\n".encode())
    assert main(["translate", "--target", real.target, *flag]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[1:3] == ["uno \x01 dos", long] and lines[0] != "uno dos" and len(lines) == 4
    assert "line 2: INVALID_ARGUMENT: text holds the control character U+0001 at position 4" in err
    assert f"line 3: INVALID_ARGUMENT: text is {len(long)} characters, over the limit of 30 (--max-input-chars)" in err
