"""The endpoint options of ``draft`` and ``redraft`` as one value.

Both commands take ``--price-in``, ``--price-out``, ``--max-tokens-total`` and
``--context-window`` (:func:`drafter.cli_options.endpoint`) with one meaning; this
decorator hands them to the command as one :class:`graph.configuration.EndpointOptions`
named ``endpoint``, so neither command threads the four values by hand.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from drafter import cli_options

_F = TypeVar("_F", bound=Callable[..., Any])


def endpoint_options(f: _F) -> _F:
    """Add the four options to command ``f``, which receives them as ``endpoint``."""

    @functools.wraps(f)
    def command(
        *args: object,
        price_in: float | None,
        price_out: float | None,
        max_tokens_total: int | None,
        context_window: int | None,
        **kwargs: object,
    ) -> object:
        # the settings module loads when the command runs, not with ``drafter --help``
        from graph.configuration import EndpointOptions

        given = EndpointOptions(price_in, price_out, max_tokens_total, context_window)
        return f(*args, endpoint=given, **kwargs)

    return cli_options.endpoint(command)  # type: ignore[return-value]


def chosen_model(
    offline: bool, model: str | None, provider: str, *, estimate_only: bool = False
) -> tuple[str, str]:
    """(generator, model) of a new ``draft`` or ``redraft`` run: the factory's choice
    (said on stderr when it falls back to offline), and the model named, else the
    default one.  A provider other than the default has no default model to fall back
    on, so it needs ``--model`` (one line, exit 2)."""
    import click

    from drafter.errors import BadInput
    from drafter.providers import DEFAULT
    from graph.configuration import resolve_model
    from graph.proposers.factory import choose

    if provider != DEFAULT and model is None and not offline:
        raise BadInput(f"--provider {provider} needs --model NAME (drafter knows no default)")
    # an estimate sends nothing, so needs no key
    choice = choose(offline, keyless=estimate_only, provider=provider)
    if choice.notice:
        click.echo(choice.notice, err=True)
    return choice.generator, resolve_model(model)
