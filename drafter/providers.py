"""Whether this process holds a model provider's key, asked of the provider registry.

The registry (the entry-point group ``drafter.providers``, read by
:mod:`graph.proposers.providers`) names each provider's key variable.  The core reads
it through the entry point, as :mod:`drafter.cli` finds its commands, so a caller that
must not import the drafting package (the review app) never names a variable itself.
"""

from __future__ import annotations

import os
from importlib.metadata import entry_points

#: The entry-point group providers are registered under.
GROUP = "drafter.providers"
#: The provider a run uses when it names none.
DEFAULT = "anthropic"


def key_env(name: str = DEFAULT) -> str | None:
    """The environment variable holding provider ``name``'s key; None when no provider
    of that name is registered."""
    for ep in entry_points(group=GROUP):
        if ep.name == name:
            return str(getattr(ep.load(), "key_env", "")) or None
    return None


def has_key(name: str = DEFAULT) -> bool:
    """Whether provider ``name``'s key is set (and not empty) in this process."""
    env = key_env(name)
    return bool(env and os.environ.get(env))
