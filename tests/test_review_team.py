"""A team on one draft: who decided, conflicts shown and refused on export, other
analysts' decisions arriving live, a database that goes away mid-review, copying a
store between backends, and decisions that follow the records.  The Postgres tests
run against the real server .ci/run starts ($DRAFTER_TEST_PG_URL)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from review_material import tiny_draft
from team_material import Forwarder

from drafter.cli import main
from drafter.model import DraftMeta, Report
from drafter.reportio import load_report
from drafter.review_identity import identity_store_path, legacy_identity
from drafter.review_store import Mark, ReviewStore
from drafter.store_copy import comparable
from tui.app import make_app
from tui.widgets.record_detail import RecordDetail


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def tiny(tmp_path: Path) -> tuple[Path, Path, Report]:
    draft, repo = tiny_draft(tmp_path)
    return draft, repo, load_report(draft)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def team_store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store locator as an analyst would be given it (a server holds every draft's)."""
    if request.param == "sqlite":
        return str(tmp_path / "team.sqlite")
    return str(request.getfixturevalue("pg_url"))


def _disagree(locator: str, draft: Path, report: Report) -> str:
    """ann accepts the first record, then bob rejects it; returns its ID."""
    from drafter.review_identity import resolve_store

    found = resolve_store(locator, draft, report)
    first = report.records[0]
    with ReviewStore(found, analyst="ann") as ann, ReviewStore(found, analyst="bob") as bob:
        ann.accept(first)
        bob.reject(first, "not a component")
    return first.id


def _review(draft: Path, repo: Path, store: str, *args: str) -> int:
    return main(["review", str(draft), "--repo", str(repo), "--store", store, *args])


def test_export_refuses_an_unsettled_conflict_until_told_how(
    tiny: tuple[Path, Path, Report],
    team_store: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    draft, repo, report = tiny
    rid = _disagree(team_store, draft, report)
    out = tmp_path / "out.json"

    def exported() -> set[str]:
        return {r.id for r in load_report(out).records}

    assert _review(draft, repo, team_store, "--export", str(out)) == 2
    err = capsys.readouterr().err
    assert "export refused: 1 record with conflicting decisions" in err
    assert f"{rid}: ann accepted, bob rejected" in err and not out.exists()
    # the latest vote (bob's rejection) leaves it out; ann's keeps it
    assert _review(draft, repo, team_store, "--export", str(out), "--resolve", "latest") == 0
    assert rid not in exported()
    assert _review(draft, repo, team_store, "--export", str(out), "--resolve", "ann") == 0
    assert rid in exported()
    # "mine" for someone who did not vote settles nothing
    args = ("--export", str(out), "--resolve", "mine", "--analyst", "carol")
    assert _review(draft, repo, team_store, *args) == 2
    # a lead's decision settles it for every later export
    dec = tmp_path / "lead.jsonl"
    dec.write_text(f'{{"record": "{rid}", "action": "accept"}}\n')
    lead = ("--decisions", str(dec), "--lead", "--analyst", "lee")
    assert _review(draft, repo, team_store, *lead) == 0
    capsys.readouterr()
    out.unlink()
    assert _review(draft, repo, team_store, "--export", str(out)) == 0
    assert rid in exported()


@pytest.mark.anyio
async def test_the_app_shows_a_conflict_and_who_said_what(
    tiny: tuple[Path, Path, Report], team_store: str
) -> None:
    draft, repo, report = tiny
    rid = _disagree(team_store, draft, report)
    app = make_app(draft, repo, store=team_store, analyst="carol", live_clock=False, poll=None)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.main is not None
        app.main.go_to(rid)
        await pilot.pause()
        shown = str(app.main.query_one(RecordDetail).query_one("#detail-header").render())
        assert "CONFLICT: ann accepted, bob rejected" in shown
        assert "1 in conflict" in str(app.main.query_one("#progress").render())
        from tui.widgets.record_tree import record_label

        assert "⚡" in record_label(app.session, report.records[0]).plain
        assert "⚡" not in record_label(app.session, report.records[1]).plain


@pytest.mark.postgres
@pytest.mark.anyio
async def test_other_analysts_decisions_arrive_without_moving_the_cursor(
    tiny: tuple[Path, Path, Report], pg_url: str
) -> None:
    draft, repo, report = tiny
    app = make_app(draft, repo, store=pg_url, analyst="ann", live_clock=False, poll=None)
    first, third = report.records[0], report.records[2]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.main is not None
        app.main.go_to(third.id)
        with ReviewStore(app.session.store.locator, analyst="bob") as bob:
            bob.accept(first)
        app.poll_store()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.session.state(first.id).mark == Mark.accepted
        assert app.main.current_id == third.id


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_database_gone_mid_review_shows_a_banner_and_loses_nothing(
    tiny: tuple[Path, Path, Report], pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import drafter.review_log_pg as pg

    monkeypatch.setattr(pg, "CONNECT_TIMEOUT", 1.0)
    draft, repo, report = tiny
    parts = urlsplit(pg_url)
    fwd = Forwarder((parts.hostname or "127.0.0.1", parts.port or 5432))
    via = parts._replace(netloc=f"{parts.username}@127.0.0.1:{fwd.port}").geturl()
    app = make_app(draft, repo, store=via, analyst="ann", live_clock=False, poll=None)
    banner = "REVIEW STORE UNREACHABLE"
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            assert app.main is not None
            await pilot.press("a")  # stored on the server
            fwd.cut()
            await pilot.press("a")  # the server is gone: kept locally, shown as made
            await pilot.press("r")
            await pilot.press("enter")  # the reason dialog: no reason
            await pilot.pause()
            app.poll_store()
            await app.workers.wait_for_complete()
            await pilot.pause()
            offline = app.main.query_one("#offline")
            assert banner in str(offline.render()) and offline.has_class("shown")
            marks = [app.session.state(r.id).mark for r in report.records[:3]]
            assert marks == [Mark.accepted, Mark.accepted, Mark.rejected]
            fwd.restore()
            app.poll_store()
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert not offline.has_class("shown")
    finally:
        fwd.cut()
    with ReviewStore(app.session.store.locator.replace(via, pg_url)) as s:
        rows = s.all_rows()
    assert [r.action.value for r in rows] == ["accept", "accept", "reject"]
    assert len({r.uid for r in rows}) == 3


@pytest.mark.postgres
def test_copy_sqlite_to_postgres_and_back_is_identical(
    tiny: tuple[Path, Path, Report], pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draft, _, report = tiny
    src = tmp_path / "abc123.sqlite"
    a, b = report.records[:2]
    now = [50.0]
    with ReviewStore(src, analyst="ann", clock=lambda: now[0]) as s:
        s.start_session()
        s.accept(a, "ok")
        now[0] = 70.0
        s.reject(b, "dup")
        s.undo()
        s.annotate(b, "see the loop")
        s.set_setting("last_record", b.id)
    with ReviewStore(src, analyst="bob", clock=lambda: 90.0) as s:
        s.reject(a)
    assert main(["store", "copy", str(src), pg_url]) == 0
    back = tmp_path / "back.sqlite"
    assert main(["store", "copy", f"{pg_url}#abc123", str(back)]) == 0
    with ReviewStore(src) as one, ReviewStore(back) as two:
        assert comparable(one.all_rows()) == comparable(two.all_rows())
        assert one.log.sessions() == two.log.sessions()
        assert one.log.settings() == two.log.settings()
        assert [r.analyst for r in two.all_rows()] == ["ann", "ann", "ann", "bob"]
        assert one.states(report.records) == two.states(report.records)
    capsys.readouterr()
    assert main(["store", "copy", str(src), pg_url]) == 2  # never merged into a used store
    assert "already holds 4 decisions" in capsys.readouterr().err


@pytest.mark.postgres
def test_a_bad_locator_is_one_line_and_never_shows_the_password(
    tiny: tuple[Path, Path, Report], pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    draft, repo, _ = tiny
    parts = urlsplit(pg_url)
    for bad in (
        f"postgresql://ann:s3cret@127.0.0.1:{parts.port}/no_such_db",
        "postgresql://ann:s3cret@127.0.0.1:1/db",
        "postgresql://ann:s3cret@127.0.0.1:notaport/db",
    ):
        assert _review(draft, repo, bad, "--accept-verified") == 2
        err = capsys.readouterr().err
        assert "s3cret" not in err and len(err.strip().splitlines()) == 1, err
        assert "***" in err


def test_a_remade_identical_draft_finds_its_decisions(tiny: tuple[Path, Path, Report]) -> None:
    draft, _, report = tiny
    report.meta = DraftMeta(generator="offline", created="2026-01-01T00:00:00+00:00")
    draft.write_text(report.to_json())
    first = report.records[0]
    with ReviewStore(identity_store_path(draft, report)) as s:
        s.accept(first)
    again = report.model_copy(deep=True)
    again.meta = DraftMeta(generator="claude", created="2030-01-01T00:00:00+00:00")
    remade = draft.with_name("remade.json")
    remade.write_text(again.to_json())
    assert identity_store_path(remade, again) == identity_store_path(draft, report)
    with ReviewStore(identity_store_path(remade, again)) as s:
        assert s.state(again.records[0]).mark == Mark.accepted


def test_a_store_named_by_the_older_identity_is_still_found(
    tiny: tuple[Path, Path, Report], tmp_path: Path
) -> None:
    draft, _, report = tiny
    report.meta = DraftMeta(generator="offline", created="2026-01-01T00:00:00+00:00")
    root = tmp_path / "reviews"
    root.mkdir()
    old = root / f"{legacy_identity(report)}.sqlite"
    with ReviewStore(old) as s:
        s.accept(report.records[0])
    assert identity_store_path(draft, report, root=root) == old
    assert sqlite3.connect(old).execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 1


@pytest.mark.postgres
def test_decisions_kept_while_away_survive_a_restart_and_are_sent_once(
    tiny: tuple[Path, Path, Report], pg_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import drafter.review_log_pg as pg

    monkeypatch.setattr(pg, "CONNECT_TIMEOUT", 1.0)
    _, _, report = tiny
    a, b = report.records[:2]
    parts = urlsplit(pg_url)
    fwd = Forwarder((parts.hostname or "127.0.0.1", parts.port or 5432))
    via = parts._replace(netloc=f"{parts.username}@127.0.0.1:{fwd.port}").geturl() + "#d1"
    try:
        s = ReviewStore(via, analyst="ann", keep_offline=True, outbox_root=tmp_path)
        s.accept(a)
        fwd.cut()
        s.reject(b, "later")  # the server is away: kept in the outbox file
        assert s.offline is not None and s.outbox is not None and len(s.outbox) == 1
        s.close()  # the analyst quits before it is back
        fwd.restore()
        again = ReviewStore(via, analyst="ann", keep_offline=True, outbox_root=tmp_path)
        assert again.offline is None  # sent when the store was opened again
        again.flush()  # a second send stores nothing twice
        rows = again.all_rows()
        again.close()
    finally:
        fwd.cut()
    assert [(r.record_id, r.action.value) for r in rows] == [(a.id, "accept"), (b.id, "reject")]


@pytest.mark.postgres
def test_a_role_without_rights_is_one_line_not_a_traceback(
    tiny: tuple[Path, Path, Report], pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import uuid

    import psycopg

    role = f"nobody_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f'CREATE ROLE "{role}" LOGIN')
        c.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    parts = urlsplit(pg_url)
    weak = parts._replace(netloc=f"{role}:pw@{parts.hostname}:{parts.port}").geturl()
    draft, repo, _ = tiny
    try:
        assert _review(draft, repo, weak, "--accept-verified") == 2
        err = capsys.readouterr().err.strip()
        assert "review store refused: permission denied" in err
        assert len(err.splitlines()) == 1 and ":pw@" not in err
    finally:
        with psycopg.connect(pg_url, autocommit=True) as c:
            c.execute(f'DROP OWNED BY "{role}"')
            c.execute(f'DROP ROLE "{role}"')
