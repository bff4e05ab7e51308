"""The review screen: records on the left, the selected record and its witnesses on
the right, progress on top, keys in the footer.

Each decision key writes through the app to the durable store at once; after an
accept or a reject the cursor moves to the next pending record, so a whole draft can
be reviewed with one key per decision.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from textual import getters, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import OptionList, Static, Tree

from drafter.errors import BadInput
from drafter.model import ROUTE_FIELDS, Report
from drafter.providers import has_key
from drafter.review_export import reviewed_report
from drafter.review_store import Action, Mark, editable_fields, field_value
from drafter.sanitize import plain
from tui.deciding import DecidingApp
from tui.export import (
    FORMATS,
    MISMATCH_EXPORT,
    check_export_target,
    default_export_path,
    write_export,
)
from tui.screens.choice import ChoiceScreen, FilterScreen
from tui.screens.editor import EditorScreen
from tui.screens.prompt import PromptScreen
from tui.screens.source import SourceScreen
from tui.session import FILTERS, ReviewSession
from tui.widgets.key_bar import KeyBar
from tui.widgets.progress_line import ProgressLine
from tui.widgets.record_detail import RecordDetail
from tui.widgets.record_tree import RecordTree
from tui.widgets.witness_list import WitnessList

#: Filters whose result changes when a decision is made.
_STATE_FILTERS = {"pending", "accepted", "rejected", "changed"}


class MainScreen(Screen[None]):
    BINDINGS = [
        Binding(
            "a",
            "accept",
            "Accept",
            tooltip="Accept the record, or every marked one (then go to the next pending one)",
        ),
        Binding(
            "r",
            "reject",
            "Reject",
            tooltip="Reject the record (or the marked ones); a reason is optional and "
            "sends it back to the drafter on R",
        ),
        Binding("c", "annotate", "Note", tooltip="Annotate the record"),
        Binding(
            "e",
            "edit",
            "Edit",
            tooltip="Edit a field in place (label, part-of, route fields, paragraphs)",
        ),
        Binding("w", "accept_witness", "Witness ✓", tooltip="Accept the highlighted witness"),
        Binding("W", "reject_witness", "Witness ✗", tooltip="Reject the highlighted witness"),
        Binding("s", "source", "Source", tooltip="Show the witness's file at the pinned revision"),
        Binding("n", "next_pending", "Next", tooltip="Next pending record"),
        Binding("p", "prev_pending", "Prev", tooltip="Previous pending record"),
        Binding(
            "f",
            "filter",
            "Filter",
            tooltip="Filter: pending, accepted, rejected, changed, unverified witnesses, by kind",
        ),
        Binding(
            "slash", "search", "Search", tooltip="Filter by text in IDs, labels, bodies, quotes"
        ),
        Binding(
            "space",
            "mark",
            "Mark",
            tooltip="Mark or unmark the record for a bulk accept or reject (the cursor stays)",
            priority=True,  # the record tree would otherwise fold its section
        ),
        Binding(
            "v",
            "mark_range",
            "Range",
            tooltip="Mark every record from the last one marked with space (or v) to the cursor",
        ),
        Binding("escape", "clear_marks", "Unmark", show=False, tooltip="Clear all marks"),
        Binding(
            "x", "export", "Export", tooltip="Export accepted records as text, Markdown or JSON"
        ),
        # not in the key bar (runtime drafts have no tables); listed by "?" help
        Binding("t", "tables", "Tables", show=False, tooltip="Epistemic tables, cited files"),
        Binding(
            "R",
            "redraft",
            "Redraft",
            tooltip="Redraft the records rejected with a reason (drafter redraft); "
            "records rejected without one are only left out",
        ),
    ]

    #: The app, typed: decisions go through it (see tui.deciding).
    app = getters.app(DecidingApp)

    def __init__(self, session: ReviewSession):
        super().__init__()
        self.session = session
        self.current_id: str | None = None
        self._anchor: str | None = None  # where the last mark was set, for v

    def compose(self) -> ComposeResult:
        if self.session.mismatch:
            # stays on screen: every decision made here is about another repository or rev
            yield Static(
                plain(f"⚠ NOT THE DRAFT'S REPOSITORY OR REVISION — {self.session.mismatch}"),
                id="mismatch",
            )
        # shown while the review's database is unreachable (decisions are kept locally)
        yield Static("", id="offline")
        yield ProgressLine(id="progress")
        with Horizontal(id="panes"):
            yield RecordTree(self.session, id="records")
            with Vertical(id="right"):
                yield RecordDetail(id="detail")
                yield Static("Witnesses", id="witness-title")
                yield WitnessList(id="witnesses")
        yield KeyBar([*self.BINDINGS, *type(self.app).BINDINGS], id="keys")

    def on_mount(self) -> None:
        tree = self.query_one(RecordTree)
        # reopening a review returns to the record the analyst was on, else the first
        # record still to decide
        ids = self.session.visible_ids()
        last = self.session.last_record()
        pending = self.session.next_pending(None)
        self.current_id = last if last in ids else (pending or (ids[0] if ids else None))
        tree.rebuild(keep=self.current_id)
        tree.focus()
        self.refresh_view()

    # -- view ------------------------------------------------------------------------

    def view_label(self) -> str:
        parts = []
        if self.session.filter != "all":
            parts.append(f"filter: {self.session.filter}")
        if self.session.query:
            parts.append(f"search: {self.session.query!r}")
        return " · ".join(parts)

    def refresh_view(self, rebuild: bool = False) -> None:
        """Redraw everything that depends on decisions; cheap enough to call per key."""
        s = self.session
        s.refresh_states()
        tree = self.query_one(RecordTree)
        if rebuild:
            ids = s.visible_ids()
            if self.current_id not in ids:
                self.current_id = ids[0] if ids else None
            tree.rebuild(keep=self.current_id)
        else:
            tree.refresh_labels()
        self.refresh_progress()
        self.show_record()

    def show_offline(self, why: str | None, queued: int) -> None:
        """The banner of a review whose database went away, or none."""
        banner = self.query_one("#offline", Static)
        banner.set_class(why is not None, "shown")
        if why is not None:
            banner.update(
                plain(
                    f"⚠ REVIEW STORE UNREACHABLE — {queued} decision(s) kept on this machine, "
                    f"sent when it is back. {why}"
                )
            )

    def refresh_progress(self) -> None:
        s = self.session
        self.query_one(ProgressLine).show(s.store.progress(s.report.records), self.view_label())

    def show_record(self) -> None:
        rid = self.current_id
        r = self.session.shown(rid) if rid else None
        st = self.session.state(rid) if rid else None
        prev = self.session.previous(rid) if rid else None
        self.query_one(RecordDetail).show(r, st, prev)
        self.query_one(WitnessList).show(r, st)
        self.session.remember(rid)
        n = len(r.witnesses) if r else 0
        self.query_one("#witness-title", Static).update(
            f"Witnesses ({n}) — Enter/s: source, w/W: accept/reject"
        )

    def go_to(self, record_id: str | None) -> None:
        if record_id is None:
            return
        self.current_id = record_id
        self.query_one(RecordTree).select_record(record_id)
        self.show_record()

    @on(Tree.NodeHighlighted, "#records")
    def _record_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        rid = event.node.data
        if rid and rid != self.current_id:
            self.current_id = rid
            self.query_one(WitnessList).highlighted = None
            self.show_record()

    @on(OptionList.OptionSelected, "#witnesses")
    def _witness_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_source()

    # -- helpers ---------------------------------------------------------------------

    def _catch_up(self) -> None:
        """Take the record under the list's cursor as current before a key acts on it.

        The current record follows the cursor through the tree's highlight message,
        which is queued behind keys already typed: "down down v" typed fast (or pasted)
        marked a range ending one record early.  With the list focused its cursor is
        the truth.
        """
        tree = self.query_one(RecordTree)
        rid = tree.current_id
        if tree.has_focus and rid and rid != self.current_id:
            self.current_id = rid
            self.show_record()

    def _witness_index(self) -> int | None:
        self._catch_up()
        if self.current_id is None:
            return None
        idx = self.query_one(WitnessList).index
        if idx is None:
            self.notify("This record has no witnesses.", severity="warning")
        return idx

    def after_decision(self, advance: bool) -> None:
        rid = self.current_id
        self.refresh_view(rebuild=bool(self.session.filters & _STATE_FILTERS))
        if advance and rid is not None:
            nxt = self.session.next_pending(rid)
            if nxt is not None:
                self.go_to(nxt)
            elif self.session.visible_ids():
                self.notify("No pending records left in this view.")

    # -- actions -----------------------------------------------------------------------

    def _targets(self) -> list[str]:
        """The marked records in list order, else the current one."""
        self._catch_up()
        marked = [rid for rid in self.session.visible_ids() if rid in self.session.marked]
        return marked or ([self.current_id] if self.current_id else [])

    def _decide_all(self, ids: list[str], action: Action, text: str | None = None) -> None:
        done = [rid for rid in ids if self.app.decide(rid, action, text=text)]
        if self.session.marked:
            self.session.marked.clear()
            self.notify(f"{action.capitalize()}ed {len(done)} of {len(ids)} marked records.")
        if done:
            self.after_decision(advance=True)

    def action_accept(self) -> None:
        self._decide_all(self._targets(), Action.accept)

    def action_reject(self) -> None:
        ids = self._targets()
        if not ids:
            return
        what = ids[0] if len(ids) == 1 else f"{len(ids)} marked records"

        def done(reason: str | None) -> None:
            if reason is not None:
                self._decide_all(ids, Action.reject, reason)

        self.app.push_screen(
            PromptScreen(
                f"Reject {what} — reason (optional)",
                allow_empty=True,
                placeholder="reason",
                hint="With a reason, R sends the record back to the drafter; left empty, "
                "the record is just left out.",
            ),
            done,
        )

    def action_mark(self) -> None:
        """Mark or unmark the current record; the cursor stays on it.

        It once moved on to the next record, which no key or help said: an analyst who
        then walked to the end of a range and pressed ``v`` marked one record too many.
        """
        self._catch_up()
        rid = self.current_id
        if rid is None:
            return
        self.session.marked.symmetric_difference_update({rid})
        self._anchor = rid
        self.refresh_view()

    def action_mark_range(self) -> None:
        self._catch_up()
        ids = self.session.visible_ids()
        rid = self.current_id
        if rid not in ids:
            return
        anchor = getattr(self, "_anchor", None)
        a = ids.index(anchor) if anchor in ids else ids.index(rid)
        b = ids.index(rid)
        self.session.marked.update(ids[min(a, b) : max(a, b) + 1])
        self._anchor = rid
        self.refresh_view()
        self.notify(f"{len(self.session.marked)} records marked.")

    def action_clear_marks(self) -> None:
        if self.session.marked:
            self.session.marked.clear()
            self.refresh_view()

    def action_annotate(self) -> None:
        self._catch_up()
        rid = self.current_id
        if rid is None:
            return

        def done(text: str | None) -> None:
            if text is not None and self.app.decide(rid, Action.annotate, text=text):
                self.after_decision(advance=False)

        self.app.push_screen(PromptScreen(f"Note on {rid}"), done)

    def action_edit(self) -> None:
        self._catch_up()
        rid = self.current_id
        if rid is None:
            return
        r = self.session.shown(rid)
        options = [(f, f"{f}: {field_value(r, f)[:50]}") for f in editable_fields(r)]
        if r.kind == "RTE":
            have = {f for f, _ in options}
            options += [(f, f"{f}: (missing — add)") for f in ROUTE_FIELDS if f not in have]

        def chosen(name: str | None) -> None:
            if name is None:
                return

            def done(value: str | None) -> None:
                if value is not None and self.app.decide(rid, Action.edit, field=name, text=value):
                    self.after_decision(advance=False)

            title = f"Edit {name} of {rid}"
            if name.startswith("Paragraph "):
                self.app.push_screen(EditorScreen(title, field_value(r, name)), done)
            else:
                self.app.push_screen(PromptScreen(title, field_value(r, name)), done)

        self.app.push_screen(ChoiceScreen(f"Edit which field of {rid}?", options), chosen)

    def action_accept_witness(self) -> None:
        idx = self._witness_index()
        if (
            idx is not None
            and self.current_id
            and self.app.decide_witness(self.current_id, idx, True)
        ):
            self.after_decision(advance=False)

    def action_reject_witness(self) -> None:
        idx = self._witness_index()
        rid = self.current_id
        if idx is None or rid is None:
            return

        def done(reason: str | None) -> None:
            if reason is not None and self.app.decide_witness(rid, idx, False, reason or None):
                self.after_decision(advance=False)

        self.app.push_screen(
            PromptScreen("Reject witness — reason (optional)", allow_empty=True), done
        )

    def action_source(self) -> None:
        idx = self._witness_index()
        if idx is None or self.current_id is None:
            return
        self.app.push_screen(
            SourceScreen(self.session, self.current_id, idx), lambda _: self.refresh_view()
        )

    def action_scroll_detail(self, direction: int) -> None:
        detail = self.query_one(RecordDetail)
        step = direction * max(1, detail.size.height - 2)
        detail.scroll_to(y=detail.scroll_y + step, animate=False)

    def action_next_pending(self) -> None:
        self._step_pending(1)

    def action_prev_pending(self) -> None:
        self._step_pending(-1)

    def _step_pending(self, step: int) -> None:
        nxt = self.session.next_pending(self.current_id, step)
        if nxt is None:
            self.notify("No other pending record in this view.")
        else:
            self.go_to(nxt)

    def action_filter(self) -> None:
        def done(keys: list[str] | None) -> None:
            if keys is not None:
                self.session.filters = {k for k in keys if k != "all"}
                self.refresh_view(rebuild=True)

        options = [(k, d) for k, d in FILTERS if k != "all"]
        self.app.push_screen(
            FilterScreen("Show records that are… (filters combine)", options, self.session.filters),
            done,
        )

    def action_search(self) -> None:
        def done(text: str | None) -> None:
            if text is not None:
                self.session.query = text.strip()
                self.refresh_view(rebuild=True)
                if not self.session.visible_ids():
                    self.notify(f"No record matches {text!r}.", severity="warning")

        now = f"now: {self.session.query!r}; " if self.session.query else ""
        self.app.push_screen(
            PromptScreen(
                "Filter by text in ID, label, body and quotes",
                allow_empty=True,
                placeholder=f"{now}empty clears",
            ),
            done,
        )

    def action_export(self) -> None:
        draft = self.session.draft_path
        if self.session.mismatch:
            self.notify(MISMATCH_EXPORT.capitalize() + ".", severity="error")
            return

        def fmt_chosen(fmt: str | None) -> None:
            if fmt is None:
                return

            default = default_export_path(draft, fmt)

            def path_given(path: str | None) -> None:
                if path is None:
                    return
                out = Path(path.strip() or default).expanduser()
                try:
                    check_export_target(out, draft, self.session.store.path)
                    accepted = reviewed_report(
                        self.session.store, self.session.report, self.session.resolve
                    )
                except BadInput as exc:
                    self.notify(f"Export refused: {exc}", severity="error")
                    return
                self.run_export(accepted, fmt, out)

            self.app.push_screen(
                PromptScreen(
                    f"Export accepted records as {fmt} to",
                    allow_empty=True,
                    placeholder=f"{default} (Enter for this)",
                ),
                path_given,
            )

        self.app.push_screen(
            ChoiceScreen("Export accepted records as", [(f, f) for f in FORMATS]), fmt_chosen
        )

    @work(thread=True, exclusive=True, group="export")
    def run_export(self, accepted: Report, fmt: str, out: Path) -> None:
        try:
            n = write_export(accepted, fmt, out)
        except BadInput as exc:
            self.app.call_from_thread(self.notify, f"Export failed: {exc}", severity="error")
            return
        self.app.call_from_thread(self.notify, f"Exported {n} accepted records to {out}")

    def action_tables(self) -> None:
        from tui.screens.tables import TablesScreen, report_tables

        if not report_tables(self.session):
            self.notify("This draft has no tables.", severity="warning")
            return
        self.app.push_screen(TablesScreen(self.session), self.go_to)

    def action_redraft(self) -> None:
        s = self.session
        if s.mismatch:
            # the redraft would draft from the repository shown, which is not the draft's
            self.notify(
                "No redraft from a review at another repository or revision.", severity="error"
            )
            return
        rejected = [s.state(r.id) for r in s.report.records]
        rejected = [st for st in rejected if st.mark == Mark.rejected]
        n = sum(1 for st in rejected if (st.reason or "").strip())
        if not n:
            m = len(rejected)
            self.notify(
                "No record rejected with a reason: only those are redrafted "
                f"({m} rejected without one {'is' if m == 1 else 'are'} left out of the export).",
                severity="warning",
            )
            return
        out = s.draft_path.with_name(f"{s.draft_path.stem}.redraft.json")
        ids = [st.record_id for st in rejected if (st.reason or "").strip()]
        shown = ", ".join(ids[:6]) + (f" and {len(ids) - 6} more" if len(ids) > 6 else "")

        def confirmed(key: str | None) -> None:
            if key != "go":
                self.notify("Redraft cancelled; nothing was run.")
                return
            self.notify(f"Redrafting {n} rejected record(s) into {out.name}…")
            self.run_redraft(out)

        # a redraft may spend model calls and writes a new draft file: asked first
        self.app.push_screen(
            ChoiceScreen(
                f"Redraft {n} record(s) rejected with a reason ({shown}) into {out.name}?",
                [("go", "Redraft them"), ("cancel", "Cancel")],
                current="go",
            ),
            confirmed,
        )

    @work(thread=True, exclusive=True, group="redraft")
    def run_redraft(self, out: Path) -> None:
        """``drafter redraft`` in a child process: the app never imports the drafting
        workflow (tui does not depend on graph), and a long model run cannot freeze it."""
        s = self.session
        # a server locator goes by environment, so its password is in no argument list
        env = {**os.environ, "DRAFTER_STORE": s.store.locator, "DRAFTER_ANALYST": s.store.analyst}
        args = ["redraft", str(s.draft_path), "--out", str(out)]
        if s.store.path is not None:
            args += ["--store", str(s.store.path)]
        args += ["--repo", s.snapshot.repo]
        if not has_key():  # the default provider, as the redraft command picks it
            # offline the rules replace records from the survey; no retrieval index needed
            args += ["--offline", "--no-index"]
        code = "import sys; from drafter.cli import main; sys.exit(main(sys.argv[1:]))"
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
        if done.returncode == 0:
            self.app.call_from_thread(self.redrafted, out)
        else:
            err = (done.stderr.strip().splitlines() or ["failed"])[-1]
            self.app.call_from_thread(self.notify, f"Redraft: {err}", severity="error")

    def redrafted(self, out: Path) -> None:
        """Offer the new draft: open it now (this app exits, the CLI opens it), or stay
        and be told exactly what to run later: the whole command, ``--repo`` included."""
        s = self.session
        command = review_command(out, s.snapshot.repo)
        replaced = redraft_changes(s.report, out)

        def chosen(key: str | None) -> None:
            if key == "open":
                self.app.next_draft = out
                self.app.exit()
            else:
                self.notify(f"Redraft written. Review it later with: {command}", timeout=30)

        self.app.push_screen(
            ChoiceScreen(
                f"Redraft written to {out}: {replaced}",
                [
                    ("open", "Open it now (this review's decisions are saved)"),
                    ("stay", f"Stay here; later run: {command}"),
                ],
            ),
            chosen,
        )


def redraft_changes(before: Report, out: Path) -> str:
    """Which records the redraft took out, which it wrote again under the same ID, and
    which are new, in one line (a new draft that does not load says so, nothing more)."""
    try:
        after = Report.from_json(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "its records could not be read back"
    old = {r.id: r for r in before.records}
    new = {r.id: r for r in after.records}
    gone = sorted(set(old) - set(new))
    rewritten = sorted(i for i in set(old) & set(new) if old[i] != new[i])
    added = sorted(set(new) - set(old))
    parts = [
        f"{what} {', '.join(ids)}"
        for what, ids in (("replaced", gone), ("rewritten", rewritten), ("new", added))
        if ids
    ]
    return "; ".join(parts) or "no record changed"


def review_command(draft: Path, repo: str) -> str:
    """The exact shell command that reviews ``draft`` (paths quoted for a shell)."""
    return f"drafter review {shlex.quote(str(draft))} --repo {shlex.quote(repo)}"
