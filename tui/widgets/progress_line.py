"""One line of progress: reviewed / total, accepted, rejected, changed, time spent."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from drafter.review_store import Progress
from drafter.sanitize import visible


def format_seconds(s: float) -> str:
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def progress_text(p: Progress, view: str) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(f"Reviewed {p.reviewed}/{p.total}", style="bold")
    t.append("  ✔ ")
    t.append(str(p.accepted), style="green")
    t.append("  ✘ ")
    t.append(str(p.rejected), style="red")
    if p.changed:
        t.append(f"  Δ {p.changed}", style="yellow")
    if p.conflicts:
        t.append(f"  ⚡ {p.conflicts} in conflict", style="bold red")
    t.append(f"  ⏱ {format_seconds(p.seconds)}")
    if view:
        t.append(f"  {visible(view, keep_newlines=False)}", style="italic")
    return t


class ProgressLine(Static):
    def show(self, p: Progress, view: str = "") -> None:
        self.update(progress_text(p, view))
