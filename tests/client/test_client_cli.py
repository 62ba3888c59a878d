"""The traductor-client command line, called through ``main([...])``."""

from __future__ import annotations

import io
import json

import pytest
from client_fake_server import unused_port
from grpc_health.v1 import health_pb2

from traductor_client.cli import main
from traductor_client.loadtest.runner import Workload
from traductor_client.messages import STREAM_DELAY_MS


def test_translate_argument(server, capsys):
    assert main(["translate", "--target", server.address, "hello big world"]) == 0
    assert capsys.readouterr().out == "world big hello\n"


def test_connection_flags_work_before_the_subcommand(server, capsys):
    assert main(["--target", server.address, "translate", "--max-new-tokens", "1", "a b"]) == 0
    assert capsys.readouterr().out == "b\n"
    assert server.translator.options[-1].max_new_tokens == 1


def test_a_translation_that_did_not_end_normally_says_so_on_stderr(server, capsys):
    """Cut short (length) or with a sentence left as it was (untranslated): the text on stdout, a
    note on stderr, never silently; --json carries finish_reason instead."""
    from traductor_client.translate_cmd import _note

    assert main(["--target", server.address, "translate", "--max-new-tokens", "1", "a b"]) == 0
    out, err = capsys.readouterr()
    assert out == "b\n" and "note: cut short at the token limit (--max-new-tokens) (finish_reason length)" in err
    _note("untranslated")
    assert "a sentence came back with nothing in it; its source was kept" in capsys.readouterr().err
    assert main(["--target", server.address, "translate", "a b"]) == 0
    assert capsys.readouterr().err == ""


def test_target_from_environment(server, capsys, monkeypatch):
    monkeypatch.setenv("TRADUCTOR_TARGET", server.address)
    assert main(["translate", "x y"]) == 0
    assert capsys.readouterr().out == "y x\n"


def test_translate_stdin_lines_keep_blank_lines(server, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("one two\n\nthree four\n"))
    assert main(["translate", "--target", server.address]) == 0
    assert capsys.readouterr().out == "two one\n\nfour three\n"
    assert server.translator.calls["Translate"] == 2


def test_translate_batch_and_json(server, capsys):
    assert main(["translate", "--target", server.address, "--batch", "--json", "a b", "c"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["text"] for line in lines] == ["b a", "c"]
    assert lines[0]["usage"] == {"input_tokens": 3, "output_tokens": 2}
    assert server.translator.calls["TranslateBatch"] == 1


def test_translate_stream(server, capsys):
    assert main(["translate", "--target", server.address, "--stream", "--beam", "2", "to be or"]) == 0
    assert capsys.readouterr().out == "or be to\n"
    assert server.translator.calls["TranslateStream"] == 1
    assert server.translator.options[-1].beam_size == 2


def test_scores_flag(server, capsys):
    assert main(["translate", "--target", server.address, "--scores", "a b"]) == 0
    assert capsys.readouterr().out == "b a\t-1.0000\n"


def test_error_is_one_line_and_nonzero(server, capsys):
    assert main(["translate", "--target", server.address, "--beam", "9", "x"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "traductor-client: INVALID_ARGUMENT: beam_size must be in [1, 4]\n"


def test_unreachable_server_is_unavailable(capsys):
    target = f"127.0.0.1:{unused_port()}"
    assert main(["health", "--target", target, "--timeout", "5"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("traductor-client: UNAVAILABLE: ") and err.count("\n") == 1


def test_token_flag_and_env(server, capsys, monkeypatch):
    server.translator.required_token = "abc"
    assert main(["translate", "--target", server.address, "x"]) == 1
    assert "UNAUTHENTICATED" in capsys.readouterr().err
    assert main(["translate", "--target", server.address, "--token", "abc", "x"]) == 0
    monkeypatch.setenv("TRADUCTOR_TOKEN", "abc")
    assert main(["translate", "--target", server.address, "y"]) == 0
    assert capsys.readouterr().out == "x\ny\n"
    assert server.translator.metadata[-1]["authorization"] == "Bearer abc"


def test_health_exit_status(server, capsys):
    assert main(["health", "--target", server.address]) == 0
    assert capsys.readouterr().out == "SERVING\n"
    server.health.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert main(["health", "--target", server.address]) == 1
    assert capsys.readouterr().out == "NOT_SERVING\n"


def test_info(server, capsys):
    assert main(["info", "--target", server.address, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["name"] == "fake-reverse" and info["max_beam_size"] == 4
    assert main(["info", "--target", server.address]) == 0
    out = capsys.readouterr().out
    assert "target_language   es" in out
    assert "languages         en->es\n" in out and "(('en'" not in out  # not a Python tuple


def test_a_reader_that_goes_away_ends_the_command_quietly(server):
    """`traductor-client translate ... | head -1`: status 141 (as SIGPIPE), no traceback, no
    "Broken pipe" message."""
    import subprocess
    import sys

    command = [sys.executable, "-m", "traductor_client.cli", "--target", server.address, "translate"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader is gone before the first line
    _, err = process.communicate(b"one two\n" * 20, timeout=60)
    assert (process.returncode, err) == (141, b"")


def test_usage_errors(capsys, tmp_path):
    assert main(["translate", "--cert", str(tmp_path / "c.pem"), "x"]) == 2
    assert "--cert and --key" in capsys.readouterr().err
    assert main(["translate", "--ca", str(tmp_path / "missing.pem"), "x"]) == 1
    assert "missing.pem" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:
        main(["translate", "--beam", "many", "x"])
    assert caught.value.code == 2


# -- loadtest ---------------------------------------------------------------------------------
def _input(tmp_path, lines):
    path = tmp_path / "input.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_loadtest_closed_sweep_counts_and_errors(server, capsys, tmp_path):
    source = _input(tmp_path, ["the red fox\tel zorro rojo", "!invalid\tx"])
    out = tmp_path / "report.json"
    assert (
        main(
            [
                "loadtest",
                "--target",
                server.address,
                "--input",
                source,
                "--requests",
                "20",
                "--concurrency",
                "1,4",
                "--stream-fraction",
                "0.5",
                "--warmup",
                "2",
                "--max-new-tokens",
                "2",
                "--json-out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    table = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["mode"] == "closed" and report["level_name"] == "concurrency"
    assert report["config"]["options"] == {"max_new_tokens": 2}
    assert [level["level"] for level in report["levels"]] == [1, 4]
    plan = Workload(["the red fox", "!invalid"], stream_fraction=0.5).plan
    ok_streams = sum(1 for i in range(2, 22) if plan(i) == ("the red fox", True))
    assert 0 < ok_streams < 10
    for level in report["levels"]:
        assert level["requests"] == 20 and level["warmup_requests"] == 2
        # texts alternate, so half the requests hit "!invalid"
        assert level["ok"] == 10 and level["errors"] == {"INVALID_ARGUMENT": 10}
        assert level["streams"] == 10
        assert level["output_tokens"] == 10 * 2  # max_new_tokens=2 truncates "fox red the"
        assert level["latency_seconds"]["count"] == 10
        assert 0 < level["latency_seconds"]["p50"] <= level["latency_seconds"]["p99"] <= level["latency_seconds"]["max"]
        # time to first token is over successful streams, as planned by the workload
        assert level["ttft_seconds"]["count"] == ok_streams
        assert level["requests_per_second"] == pytest.approx(10 / level["elapsed_seconds"])
    assert server.translator.calls["Translate"] + server.translator.calls["TranslateStream"] == 2 * 22
    assert "concurrency" in table and "errors at concurrency 4: INVALID_ARGUMENT=10" in table


@pytest.mark.parametrize(
    ("flags", "sent"),
    [([], (True, STREAM_DELAY_MS)), (["--stream-delay-ms", "0"], (True, 0)), (["--no-stream-groups"], (False, 0))],
)
def test_loadtest_streams_ask_for_groups_as_the_library_does(server, tmp_path, flags, sent):
    source = _input(tmp_path, ["the red fox"])
    server.translator.stream_options.clear()
    command = ["loadtest", "--target", server.address, "--input", source, "--requests", "3", "--warmup", "0"]
    assert main([*command, "--stream-fraction", "1", "--no-progress", "--json", *flags]) == 0
    assert {(o.group_tokens, o.max_delay_ms) for o in server.translator.stream_options} == {sent}


def test_loadtest_refuses_a_stream_delay_out_of_range(server, capsys):
    assert main(["loadtest", "--target", server.address, "--requests", "1", "--stream-delay-ms", "1001"]) == 2
    assert "--stream-delay-ms must be within [0, 1000]" in capsys.readouterr().err


def test_loadtest_open_loop_json_stdout(server, capsys, tmp_path):
    source = _input(tmp_path, ["a b c"])
    assert (
        main(
            [
                "loadtest",
                "--target",
                server.address,
                "--input",
                source,
                "--rate",
                "400",
                "--requests",
                "15",
                "--json",
                "--no-progress",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "open" and report["levels"][0]["level"] == 400
    level = report["levels"][0]
    assert (level["requests"], level["ok"], level["errors"]) == (15, 15, {})
    assert level["output_tokens"] == 45 and level["streams"] == 0


def test_loadtest_duration_stops_by_itself(server, capsys, tmp_path):
    source = _input(tmp_path, ["x y"])
    assert (
        main(
            [
                "loadtest",
                "--target",
                server.address,
                "--input",
                source,
                "--duration",
                "0.3",
                "--concurrency",
                "2",
                "--json",
                "--no-progress",
            ]
        )
        == 0
    )
    level = json.loads(capsys.readouterr().out)["levels"][0]
    assert level["requests"] > 0 and level["ok"] == level["requests"]
    assert 0.25 < level["elapsed_seconds"] < 5


def test_loadtest_counts_unreachable_server_by_code(capsys):
    target = f"127.0.0.1:{unused_port()}"
    assert main(["loadtest", "--target", target, "--requests", "3", "--json", "--timeout", "5", "--no-progress"]) == 0
    level = json.loads(capsys.readouterr().out)["levels"][0]
    assert level["errors"] == {"UNAVAILABLE": 3} and level["ok"] == 0
    assert level["requests_per_second"] == 0.0 and level["latency_seconds"]["p50"] is None


def test_loadtest_plot(server, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "sweep.png"
    assert (
        main(
            [
                "loadtest",
                "--target",
                server.address,
                "--requests",
                "4",
                "--concurrency",
                "1,2",
                "--plot",
                str(png),
                "--no-progress",
            ]
        )
        == 0
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_loadtest_plot_without_matplotlib(capsys, monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)  # import now fails
    assert main(["loadtest", "--requests", "1", "--concurrency", "1,2", "--plot", "x.png"]) == 2
    assert "needs matplotlib" in capsys.readouterr().err


def test_loadtest_plot_needs_a_sweep(capsys):
    assert main(["loadtest", "--requests", "1", "--plot", "x.png"]) == 2
    assert "at least two levels" in capsys.readouterr().err
