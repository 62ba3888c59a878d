"""The `traductor` command's error contract, shared by the CLI tests: status 2, one line, no traceback."""

from __future__ import annotations

from traductor.cli import main


def run_error(argv, capsys, *fragments: str) -> str:
    """Exit status 2 and exactly one line on stderr, `traductor <command>: error: ...`, containing
    every fragment (so no traceback)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"traductor {argv[0]}: error: "), err
    for fragment in fragments:
        assert fragment in err, err
    return err
