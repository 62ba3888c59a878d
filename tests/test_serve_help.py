"""`traductor serve --help` describes every flag in a line of its own, and says the defaults a user
should know (where it listens, where glossaries and documents go); the default address is this
machine's, and the container image, which all stacks run, listens on every interface."""

from __future__ import annotations

import argparse
import re
from dataclasses import fields
from pathlib import Path

import pytest

from traductor.errors import CommandError
from traductor.service import serve_cli
from traductor.service.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def _help() -> str:
    parser = argparse.ArgumentParser(prog="traductor")
    serve_cli.register(parser.add_subparsers())
    return parser._subparsers._group_actions[0].choices["serve"].format_help()


def test_every_setting_has_a_line_of_help():
    missing = [f.name for f in fields(Settings) if not serve_cli.HELP.get(f.name, "").strip()]
    assert not missing, f"settings without a help line in serve_cli.HELP: {missing}"
    parser = argparse.ArgumentParser()
    Settings.add_arguments(parser, serve_cli.HELP)
    for action in parser._actions[1:]:
        assert serve_cli.HELP[action.dest] in action.help, action.dest
        assert f"TRADUCTOR_{action.dest.upper()}" in action.help, action.dest


def test_help_states_the_defaults_a_user_should_know():
    text = " ".join(_help().split())
    assert "it listens on 127.0.0.1 only: --host 0.0.0.0 serves every interface" in text
    assert "$XDG_DATA_HOME/traductor/glossaries" in text and "every server on the machine" in text
    assert re.search(r"--host HOST address .* default '127\.0\.0\.1'", text)


def test_the_default_address_is_this_machines_and_the_image_listens_everywhere():
    assert Settings().host == "127.0.0.1"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^\s*TRADUCTOR_HOST=0\.0\.0\.0\b", dockerfile, re.M), "the stacks reach the image's port"


def test_a_beam_size_past_the_servers_limits_is_refused_before_anything_starts(monkeypatch):
    monkeypatch.delenv("TRADUCTOR_BEAM_SIZE", raising=False)
    parser = argparse.ArgumentParser(prog="traductor")
    serve_cli.register(parser.add_subparsers())
    for flags, limit in ((["--beam-size", "0"], "8"), (["--beam-size", "5", "--max-beam-size", "4"], "4")):
        args = parser.parse_args(["serve", *flags])
        with pytest.raises(CommandError, match=rf"--beam-size .*between 1 and --max-beam-size \({limit}\)"):
            serve_cli.run(args)
