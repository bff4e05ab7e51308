"""Every command that reads or writes the data dir takes ``--data-dir``, declared once
(drafter.cli_options), meaning what $DRAFTER_DATA_DIR means."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from drafter.cli import cli, main

COMMANDS = [
    "demo", "survey", "review", "eval", "verify", "reverify", "render",
    "draft", "redraft", "index", "search",
]  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS)
def test_every_data_dir_command_has_the_same_option(command: str) -> None:
    got = CliRunner().invoke(cli, [command, "--help"], terminal_width=200)
    assert got.exit_code == 0, got.output
    assert "--data-dir DIRECTORY" in got.output and "$DRAFTER_DATA_DIR" in got.output


def test_demo_writes_into_the_given_data_dir_only(tmp_path: Path, capsys) -> None:
    env_dir = Path(os.environ["DRAFTER_DATA_DIR"])
    given = tmp_path / "mine"
    code = main(["demo", "--no-index", "--data-dir", str(given)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert (given / "demo" / "draft.json").is_file() and any((given / "runs").iterdir())
    assert not (env_dir / "demo").exists() and not (env_dir / "runs").exists()
