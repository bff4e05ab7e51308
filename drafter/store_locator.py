"""Where a draft's review decisions live, named by one string: a locator.

A locator is either
- a path: an SQLite file (one draft's store) or an existing folder (one store per
  draft inside it, named by the draft's review identity), or
- ``postgresql://user@host:port/db`` (or ``postgres://``): a database that holds the
  stores of many drafts, each under its identity; ``…/db#NAME`` names one store.

Why one string: the same address travels through ``--store``, ``$DRAFTER_STORE``, the
redraft subprocess's arguments and the help screen, and a team lead hands analysts one
line.  Passwords in a locator are never printed: :func:`redact` is applied to every
locator shown, and to every server message repeated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from drafter.errors import BadInput

#: Environment variable naming the store locator when --store is not given.
ENV_STORE = "DRAFTER_STORE"

_SCHEMES = ("postgresql://", "postgres://")
_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")
_PASSWORD_KV = re.compile(r"(password\s*=\s*)\S+", re.IGNORECASE)


def is_server(locator: str) -> bool:
    return locator.startswith(_SCHEMES)


def redact(text: str) -> str:
    """``text`` with any password of a URL or ``password=`` pair replaced by ``***``."""
    return _PASSWORD_KV.sub(r"\1***", _PASSWORD.sub(r"\1***@", text))


@dataclass(frozen=True, slots=True)
class ServerStore:
    """A store in a Postgres database: the URL (without fragment) and the store's name."""

    url: str
    name: str

    @property
    def locator(self) -> str:
        return f"{self.url}#{self.name}"


def split_server(locator: str) -> tuple[str, str | None]:
    """(URL, store name or None) of a server locator; BadInput for one that is malformed."""
    url, _, name = locator.partition("#")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError as exc:
        raise BadInput(f"not a usable Postgres locator ({exc})", where=redact(url)) from None
    if not parts.hostname and "host=" not in (parts.query or ""):
        raise BadInput("a Postgres locator needs a host", where=redact(url))
    if not parts.path.strip("/"):
        raise BadInput("a Postgres locator needs a database name (…/DBNAME)", where=redact(url))
    return url, (name or None)


def for_draft(locator: str, identity: str) -> str:
    """The store, on the server ``locator`` names, of the draft with review identity
    ``identity`` (``#NAME`` in the locator names one store instead)."""
    url, name = split_server(locator)
    return ServerStore(url, name or identity).locator
