"""The keyword arguments every Textual widget takes, for widgets that pass them on.

Why a TypedDict: our widgets add their own positional arguments and hand the rest to
Textual (``RecordTree(session, id="records")``); typed as ``**kw: object`` the call to
``super().__init__`` could not be checked.
"""

from __future__ import annotations

from typing import TypedDict


class WidgetOptions(TypedDict, total=False):
    """``name``, ``id``, ``classes`` and ``disabled``, as ``Widget.__init__`` spells them."""

    name: str | None
    id: str | None
    classes: str | None
    disabled: bool
