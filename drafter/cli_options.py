"""Command-line options that several commands declare with one meaning.

Why one home: ``draft`` and ``redraft`` both take a model, a cost cap, the endpoint
options (prices, token cap, context window), repair rounds, an index switch and a data
dir, and ``parse`` and ``render`` both take ``--quiet``.  Declared once, the flag, its
type, default and help text cannot drift apart between commands.  An option
that only looks alike (``--store``, ``--out``: each command documents its own default)
stays with its command.

Each name is a click decorator; click builds a fresh ``Option`` every time one is
applied, so one decorator serves any number of commands.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from drafter import defaults
from drafter.config import ENV_DATA_DIR

_F = TypeVar("_F", bound=Callable[..., Any])

#: Silence the parser's warnings on stderr.
quiet = click.option("--quiet", "-q", is_flag=True, help="Do not print warnings.")

#: The model of a run; None lets the run configuration resolve it.
model = click.option(
    "--model",
    default=None,
    help="Claude model, or any model an Anthropic-compatible endpoint ($ANTHROPIC_BASE_URL) "
    "serves (default: $DRAFTER_MODEL or built-in).",
)

#: How many verify-and-repair rounds a draft gets.
repair_rounds = click.option(
    "--repair-rounds",
    type=int,
    default=defaults.REPAIR_ROUNDS,
    show_default=True,
    help="Rounds in which records with witnesses that did not verify are sent back to the "
    "drafter with the nearest real lines (0: drop such witnesses at once).",
)

#: Draft without the Chroma index.
no_index = click.option(
    "--no-index", is_flag=True, help="Skip the Chroma index (no retrieval hits)."
)


def usd_amount(_ctx: click.Context, _param: click.Parameter, value: float | None) -> float | None:
    """A ``--max-cost`` callback: a cap must be a finite amount of at least 0.  Python's
    float() reads "nan" and "inf", and a NaN cap compares false with every amount spent,
    so the run would never stop at it while the estimate printed "stops at $nan"."""
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise click.BadParameter(f"{value} is not an amount of USD (a number, 0 or more)")
    return value


#: The USD cap of a model run: a Claude run is capped at the default unless told
#: otherwise; a model without a price refuses a cap it could not measure.
max_cost = click.option(
    "--max-cost",
    type=float,
    default=None,
    callback=usd_amount,
    help=f"Stop with a partial draft after USD spent (default ${defaults.MAX_COST_USD:g} with "
    "Claude; refused for a model without a price unless --price-in/--price-out are given).",
)


def _use_data_dir(_ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    """Make ``--data-dir`` what $DRAFTER_DATA_DIR is for the rest of this process.

    Why through the environment: the data dir is read deep down (review stores, the
    survey cache, run checkpoints, the index) through :func:`drafter.config.data_dir`,
    which already honours the variable; the option then means the same on every
    command without threading a path through each of those layers."""
    if value is not None:
        os.environ[ENV_DATA_DIR] = str(value)
    return value


_DATA_DIR_HELP = (
    "Folder for runs, indexes, review stores and caches (default: $DRAFTER_DATA_DIR, "
    "else the user data dir)."
)

#: Where runs, indexes and stores live (default: $DRAFTER_DATA_DIR or the user data
#: dir), for a command that passes the folder on itself.
data_dir = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    callback=_use_data_dir,
    help=_DATA_DIR_HELP,
)

#: The same option for a command whose data-dir readers all go through
#: drafter.config.data_dir (the value is not passed to the command function).
data_dir_env = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    callback=_use_data_dir,
    expose_value=False,
    help=_DATA_DIR_HELP,
)

# -- any Anthropic-compatible endpoint (local models) ----------------------------------

#: What a model outside the Claude price table costs; both or neither.
price_in = click.option(
    "--price-in",
    type=float,
    default=None,
    help="USD per million input tokens (with --price-out): a model drafter has no price "
    "for, or your own price for any.",
)
price_out = click.option(
    "--price-out",
    type=float,
    default=None,
    help="USD per million output tokens (with --price-in).",
)

#: A cap that works without a price.
max_tokens_total = click.option(
    "--max-tokens-total",
    type=int,
    default=None,
    help="Stop with a partial draft after this many tokens (any model, priced or not).",
)

#: The endpoint's context window; requests and data shrink to fit it.
context_window = click.option(
    "--context-window",
    type=int,
    default=None,
    help="Context window of the model in tokens (e.g. 32768 for a local server); "
    "tool pages and request data shrink to fit and no request is sent that would not.",
)


def endpoint(f: _F) -> _F:
    """The four options above, in this order: what a model run on any
    Anthropic-compatible endpoint needs to be priced, capped and fitted."""
    for option in (context_window, max_tokens_total, price_out, price_in):
        f = option(f)
    return f


#: Go on with two inputs of different systems or revisions (drafter.provenance), warned.
allow_mismatch = click.option(
    "--allow-mismatch",
    is_flag=True,
    help="Go on (warned on stderr) when the inputs record different systems or revisions; "
    "refused otherwise (exit 2).",
)


#: The team's Chroma server instead of the embedded store (index, search, draft, redraft).
chroma = click.option(
    "--chroma",
    "--chroma-url",
    "chroma_url",
    default=None,
    help="Index on the Chroma server at http://HOST:PORT, shared by a team "
    "(default: $DRAFTER_CHROMA_URL, else the embedded store in the data dir).",
)

#: A shared checkpointer for a run (draft, redraft).
checkpoint = click.option(
    "--checkpoint",
    "checkpoint",
    default=None,
    help="Shared checkpointer for runs: postgresql://USER@HOST:PORT/DB keeps checkpoints "
    "and the journal of paid calls there, so --resume THREAD works from any machine "
    "(default: $DRAFTER_CHECKPOINT for runtime drafts, else an SQLite file per run in "
    "the data dir).",
)

#: The model provider, by its registered name (graph.proposers.providers).
provider = click.option(
    "--provider",
    default="anthropic",
    show_default=True,
    help="Model provider, by its registered name (drafter.providers): anthropic, or "
    "openai for any OpenAI-compatible server (Chat Completions; key $OPENAI_API_KEY).",
)

#: The provider's endpoint.
base_url = click.option(
    "--base-url",
    default=None,
    help="The provider's endpoint (default: $ANTHROPIC_BASE_URL / $OPENAI_BASE_URL, "
    "else the provider's own).",
)


def out_path(help: str, *, dest: str = "out", folder: bool = False) -> Callable[[_F], _F]:
    """``--out``: the file (or, with ``folder``, the folder) a command writes."""
    kind = click.Path(file_okay=not folder, dir_okay=folder, path_type=Path)
    return click.option("--out", dest, type=kind, default=None, help=help)


def review_store(help: str) -> Callable[[_F], _F]:
    """``--store``: a review store's locator (a file, a database URL or a draft's path)."""
    return click.option("--store", "store_path", type=str, default=None, help=help)
