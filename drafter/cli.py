"""The one ``drafter`` command line.

Subcommands are found through the ``drafter.commands`` entry-point group, so this core
module never imports ``retrieval``, ``graph``, ``tui`` or ``evals`` itself.  Errors the
user can fix (:class:`drafter.errors.BadInput`) become one line on stderr and exit 2.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import EntryPoint, entry_points

import click

from drafter import __version__
from drafter.errors import DrafterError
from drafter.sanitize import visible


class _LazyGroup(click.Group):
    """A group whose subcommands are loaded from entry points on first use."""

    def _eps(self) -> dict[str, EntryPoint]:
        return {ep.name: ep for ep in entry_points(group="drafter.commands")}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._eps()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            return cmd
        ep = self._eps().get(cmd_name)
        if ep is None:
            return None
        # an entry point loads as Any; every drafter.commands entry names a click command
        command: click.Command = ep.load()
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="drafter")
def cli() -> None:
    """Draft, verify, review and score source-grounded reports on agentic systems."""


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point: run the CLI and map errors to exit codes."""
    try:
        rv = cli.main(args=argv, prog_name="drafter", standalone_mode=False)
        # a command ending with click's Exit(n) (e.g. "check failed" = 1) returns n here
        if isinstance(rv, int) and not isinstance(rv, bool):
            return rv
    except DrafterError as exc:
        click.echo(f"drafter: error: {visible(str(exc), keep_newlines=False)}", err=True)
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (``drafter survey | head``): stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:
        # a filesystem failure that no command turned into BadInput: still one line
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        why = exc.strerror or str(exc)
        click.echo(f"drafter: error: {visible(where + why, keep_newlines=False)}", err=True)
        return 2
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("drafter: aborted", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("drafter: interrupted", err=True)
        return 130
    return 0


def run() -> None:  # pragma: no cover - thin wrapper
    sys.exit(main())
