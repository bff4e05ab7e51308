"""Progress of an index build that tells the truth: files by role, chunks, an ETA.

On a terminal it is a rich bar on stderr; without one (a script, CI, output redirected)
it writes one plain line to stderr every few seconds, so a long build is never silent.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import TYPE_CHECKING

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from drafter.console import err_console

if TYPE_CHECKING:
    from retrieval.index_stats import IndexStats

#: Seconds between plain progress lines when stderr is not a terminal.
LINE_EVERY = 5.0


def files_by_role(stats: IndexStats) -> str:
    """``embedding 96 code · 12 docs files; 1,204 lexical only; 310 skipped``."""
    embed: dict[str, int] = {}
    other: dict[str, int] = {}
    for key, n in stats.roles.items():
        role, _, treatment = key.partition(": ")
        if treatment == "embedded":
            embed[role] = embed.get(role, 0) + n
        else:
            other[treatment] = other.get(treatment, 0) + n
    head = " · ".join(f"{n} {r}" for r, n in sorted(embed.items(), key=lambda kv: -kv[1]))
    tail = "; ".join(f"{n:,} {t}" for t, n in sorted(other.items()))
    return f"{head or 'no'} files to embed" + (f"; {tail}" if tail else "")


class IndexProgress:
    """A bar (terminal) or periodic lines (no terminal) over chunks stored."""

    def __init__(self, stats: IndexStats, *, enabled: bool = True):
        self.stats = stats
        self.enabled = enabled
        self.console = err_console()
        self.tty = enabled and self.console.is_terminal
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.total = 0
        self.done = 0
        self.start_done = 0
        self.t0 = time.monotonic()
        self.last_line = 0.0
        self.last_done = -1

    def __enter__(self) -> IndexProgress:
        if self.tty:
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("chunks"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self.console,
                transient=False,
            )
            self.bar.__enter__()
        return self

    def start(self, total: int, done: int) -> None:
        self.total, self.done, self.start_done = total, done, done
        self.t0 = time.monotonic()
        if self.bar is not None:
            self.task = self.bar.add_task(files_by_role(self.stats), total=total, completed=done)
        elif self.enabled:
            self._line(force=True)

    def advance(self, n: int) -> None:
        self.done += n
        if self.bar is not None and self.task is not None:
            self.bar.advance(self.task, n)
        elif self.enabled:
            self._line()

    def eta(self) -> float | None:
        """Seconds left at the rate of this build so far (None before any progress)."""
        made = self.done - self.start_done
        if made <= 0:
            return None
        return (time.monotonic() - self.t0) / made * (self.total - self.done)

    def _line(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_line < LINE_EVERY:
            return
        self.last_line, self.last_done = now, self.done
        eta = self.eta()
        pct = 100 * self.done / self.total if self.total else 100.0
        left = f", ETA {_clock(eta)}" if eta is not None and self.done < self.total else ""
        self.console.print(
            f"index: {self.done:,}/{self.total:,} chunks embedded ({pct:.0f}%){left} — "
            f"{files_by_role(self.stats)}",
            soft_wrap=True,
            highlight=False,
        )

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.bar is not None:
            self.bar.__exit__(exc_type, exc, tb)
        elif self.enabled and exc is None and self.done != self.last_done:
            self._line(force=True)  # the closing line says where the build ended


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"
