"""``drafter store copy SRC DST``: move a review store between SQLite and Postgres."""

from __future__ import annotations

import click

from drafter.sanitize import markup_safe


@click.group("store")
def store_cmd() -> None:
    """Review stores: copy one between an SQLite file and a Postgres database."""


@click.command("copy")
@click.argument("src")
@click.argument("dst")
def copy_cmd(src: str, dst: str) -> None:
    """Copy every decision of SRC into the empty DST, analysts and times kept.

    SRC and DST are store locators: an SQLite file, or postgresql://USER@HOST/DB#NAME
    (without #NAME, DST takes the name of SRC's file, the draft's review identity).
    """
    from drafter.console import out_console
    from drafter.store_copy import copy_store, destination
    from drafter.store_locator import redact

    res = copy_store(src, dst)
    out_console().print(
        f"copied {res.decisions} decisions, {res.sessions} sessions and {res.settings} "
        f"settings to {markup_safe(redact(destination(src, dst)))}",
        soft_wrap=True,
    )


store_cmd.add_command(copy_cmd)
