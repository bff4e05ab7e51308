"""The commands' progress bars and their stderr console.

Why one module: indexing, surveying, drafting, verifying and evaluating each show a
bar while they work.  The bars differ only in a few choices — the label, whether the
elapsed time shows, whether the bar stays on screen when done, which console it
draws on — and those are the parameters here; the columns are the same everywhere.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from rich.console import Console

# Rich's progress module (with its live display and spinners) is imported when a bar is
# made: a command whose output is piped shows no bar and need not load it
if TYPE_CHECKING:
    from rich.progress import Progress

#: The label of most bars: the task's description as the caller updates it.
DESCRIPTION = "{task.description}"


#: Columns of output written to a pipe or a file.  Rich assumes 80 there, which squeezed
#: tables and split record IDs and paths over two lines; a reader of piped output (a
#: file, ``less -S``, a script) is better served by long lines.  ``$COLUMNS`` wins.
PIPE_WIDTH = 200


def out_console(*, stderr: bool = False) -> Console:
    """The console a command prints its results on: the terminal's width, or
    :data:`PIPE_WIDTH` columns when the output goes to a pipe or a file."""
    console = Console(stderr=stderr)
    # the stream itself, not Rich's is_terminal: FORCE_COLOR styles piped output but
    # the reader is still a pipe or a file, not a window of some width
    stream = sys.stderr if stderr else sys.stdout
    isatty = getattr(stream, "isatty", None)
    if not (isatty is not None and isatty()) and not os.environ.get("COLUMNS"):
        console.width = PIPE_WIDTH
    return console


def err_console() -> Console:
    """A console on stderr: progress and notices never mix into piped stdout (JSON,
    report text).  A new one per call, so it follows ``sys.stderr`` as it is then."""
    return Console(stderr=True)


def progress_bar(
    *,
    label: str = DESCRIPTION,
    elapsed: bool = True,
    console: Console | None = None,
    transient: bool = True,
    enabled: bool = True,
) -> Progress:
    """A bar of ``label``, the bar itself, done/total and (``elapsed``) the time taken.

    ``console``: where it draws (``None``: rich's global console, on stdout);
    ``transient``: the bar disappears when done; ``enabled=False`` draws nothing, so
    callers keep one code path whether or not progress is wanted.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns: list[ProgressColumn] = [TextColumn(label), BarColumn(), MofNCompleteColumn()]
    if elapsed:
        columns.append(TimeElapsedColumn())
    return Progress(*columns, console=console, transient=transient, disable=not enabled)
