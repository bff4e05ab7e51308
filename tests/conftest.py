"""Shared fixtures.  An autouse fixture keeps every test out of the user's real
folders and away from any real API key; ``sample`` and ``tiny_repo`` are the
repositories several modules draft, review or score.  Fakes and hand-built drafts are
in ``fakes.py``, repository builders in ``gitrepo.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from eval_material import build_tiny_repo

from drafter.sample import SampleRepo, materialize


def _shared() -> Path:
    """../shared beside the checkout: /work/main/tests -> /work/shared, and from a
    worktree /work/wt/NAME/tests the nearest parent that holds shared/gold."""
    here = Path(__file__).resolve()
    for parent in here.parents[1:]:
        if (parent / "shared" / "gold").is_dir():
            return parent / "shared"
    return here.parents[2] / "shared"


SHARED = _shared()
GOLD_DIR = SHARED / "gold"


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("DRAFTER_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("DRAFTER_MODEL", raising=False)
    # server-mode tests opt in explicitly; ordinary tests use the embedded client
    if "DRAFTER_TEST_CHROMA_URL" in os.environ:
        monkeypatch.delenv("DRAFTER_CHROMA_URL", raising=False)


#: Set by .ci/run: there the shared gold reports must be present, and a test that needs
#: them fails rather than skips.
REQUIRE_SHARED = os.environ.get("DRAFTER_REQUIRE_SHARED") == "1"


@pytest.fixture(scope="session")
def gold_dir() -> Path:
    """The shared gold reports (every test that reads ../shared asks for this fixture):
    skipped with that reason on a fresh clone that has no ../shared beside it."""
    if not GOLD_DIR.is_dir():
        why = f"shared gold reports missing at {GOLD_DIR} (../shared is not beside the checkout)"
        if REQUIRE_SHARED:
            pytest.fail(why)
        pytest.skip(why)
    return GOLD_DIR


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> SampleRepo:
    """The shipped sample repository, materialised once per module: modules that run
    the workflow on it share its index and runs within the module, never across."""
    return materialize(tmp_path_factory.mktemp("sample") / "repo")


@pytest.fixture(scope="module")
def tiny_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """The evaluation tests' two-commit repository: (path, revision 1, revision 2)."""
    return build_tiny_repo(tmp_path_factory.mktemp("tiny"))


# -- retrieval (helper D): a real Chroma server for the server-mode index/search tests --


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _chroma_alive(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def chroma_server_url(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """$DRAFTER_TEST_CHROMA_URL if CI started a server, else a `chroma run` of our own on
    a free localhost port, stopped when the session ends."""
    import subprocess
    import sys
    import time

    given = os.environ.get("DRAFTER_TEST_CHROMA_URL")
    if given:
        yield given.rstrip("/")
        return
    chroma = Path(sys.executable).parent / "chroma"
    if not chroma.exists():
        pytest.fail(f"no chroma CLI next to {sys.executable}")
    path = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = open(path / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [
            str(chroma),
            "run",
            "--path",
            str(path / "db"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while not _chroma_alive(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chroma server did not start; see {path / 'server.log'}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


#: Tests of 3 s and more on a loaded 2-core machine (``--durations`` of a whole run),
#: marked ``slow``: ``pytest -m "not slow"`` is the quick selection the README names.
#: Kept here, once, by test ID (parameters aside), rather than as decorators spread
#: over the files.
SLOW = {
    "test_claude_shared_map.py::test_entry_points_are_always_listed_with_what_they_reach",
    "test_cli_claude_e2e.py::test_bad_retry_base_is_bad_input",
    "test_cli_claude_e2e.py::test_claude_draft_through_the_cli",
    "test_cli_claude_e2e.py::test_investigation_over_http",
    "test_cli_claude_e2e.py::test_rejected_key_is_one_line_exit_2_and_the_run_resumes",
    "test_cli_claude_e2e.py::test_sigkill_then_resume_through_the_cli",
    "test_cli_local_e2e.py::test_a_server_slower_than_the_timeout_is_retried_as_set_then_exit_1",
    "test_cli_local_e2e.py::test_bad_settings_are_bad_input",
    "test_cli_local_e2e.py::test_local_model_drafts_through_the_cli",
    "test_cli_local_e2e.py::test_max_cost_without_a_price_is_one_line_and_nothing_is_sent",
    "test_cli_local_e2e.py::test_token_cap_gives_a_partial_draft_and_exit_1",
    "test_cli_redraft_endpoint.py::test_bad_endpoint_options_are_one_line_and_nothing_is_sent",
    "test_cli_redraft_endpoint.py::test_redraft_on_a_local_endpoint_sized_and_priced",
    "test_cli_redraft_endpoint.py::test_token_cap_stops_the_redraft_partial_exit_1",
    "test_cold_start.py::test_claude_draft_requests_records_before_the_index_is_complete",
    "test_ctrl_c.py::test_a_paid_call_in_flight_is_said_and_waited_for",
    "test_ctrl_c.py::test_ctrl_c_during_the_records_stops_within_seconds",
    "test_dump_request.py::test_dump_shows_prompt_cache_markers_and_forced_tool",
    "test_dump_request.py::test_dump_with_a_context_window_shows_the_cut_requests",
    "test_eval_cli.py::test_eval_reports_alignment_against_hand_labels",
    "test_eval_sample.py::test_offline_draft_of_sample_meets_floor",
    "test_graph_resume.py::test_kill_and_resume_repeats_no_completed_call",
    "test_graph_resume.py::test_resuming_a_finished_run_asks_nothing",
    "test_graph_resume.py::test_sigkill_mid_run_then_resume",
    "test_hostile_batches.py::test_killed_3000_line_batch_rerun_leaves_exactly_3000_rows",
    "test_hostile_framing.py::test_drafter_dump_request_never_imports_it",
    "test_hostile_hangs.py::test_survey_cli_on_deep_nesting_finishes_fast",
    "test_hostile_properties.py::test_visible_then_unescape_is_the_identity",
    "test_hostile_review.py::test_huge_lines_stay_responsive_and_decidable",
    "test_index.py::test_collection_reopens_in_a_fresh_process",
    "test_index.py::test_killed_process_then_rerun_completes",
    "test_offline_index_stable.py::test_a_complete_index_is_used_and_said",
    "test_offline_index_stable.py::test_two_fill_levels_give_the_same_offline_draft",
    "test_resume_hint.py::test_a_run_without_a_recorded_request_still_says_nothing_to_resume",
    "test_resume_hint.py::test_an_epistemic_run_says_how_to_resume_once_saved",
    "test_resume_hint.py::test_killed_after_the_first_step_the_hint_holds",
    "test_resume_hint.py::test_killed_before_anything_is_saved_no_hint",
    "test_review_crash.py::test_sigkill_during_app_review_loses_no_decision",
    "test_review_crash.py::test_sigkill_while_writing_to_the_store",
    "test_review_friction.py::test_app_export_onto_the_draft_is_refused",
    "test_review_friction.py::test_redraft_offers_the_new_draft_and_opens_it",
    "test_review_friction.py::test_reject_without_a_reason_is_not_sent_back",
    "test_schema_v1.py::test_eval_of_a_v1_draft_scores_as_before",
    "test_search.py::test_sample_is_the_pinned_revision",
    "test_small_friction.py::test_a_resumed_run_counts_its_records_from_the_plan",
    "test_survey_registry.py::test_the_registry_lists_every_rule_and_nothing_calls_one_around_it",
    "test_tui_app.py::test_filters_search_and_pending_navigation",
    "test_tui_app.py::test_keys_persist_reopen_and_export",
    "test_tui_app.py::test_source_view_marks_and_scrolls_to_the_quote",
    "test_tui_keys.py::test_shift_r_sends_rejected_records_to_redraft",
    "test_tui_snapshots.py::test_detail",
    "test_tui_snapshots.py::test_help_screen",
    "test_tui_snapshots.py::test_main_screen",
    "test_tui_snapshots.py::test_source_view",
    "test_verify_huge_quote.py::test_a_five_megabyte_quote_is_answered_at_once",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.fspath)).name
        name = item.name.split("[", 1)[0]
        if f"{path}::{name}" in SLOW:
            item.add_marker(pytest.mark.slow)


# -- a real PostgreSQL server for the team (shared review store) tests ---------------

PG_URL_ENV = "DRAFTER_TEST_PG_URL"


@pytest.fixture(autouse=True)
def _no_team_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's own store and checkpointer locators and analyst name must not steer
    the tests."""
    monkeypatch.delenv("DRAFTER_STORE", raising=False)
    monkeypatch.delenv("DRAFTER_ANALYST", raising=False)
    monkeypatch.delenv("DRAFTER_CHECKPOINT", raising=False)


def pg_database_url(base: str, name: str) -> str:
    """``base`` (a server URL) naming database ``name`` instead of its own."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture
def pg_url():  # type: ignore[no-untyped-def]
    """A fresh, empty database on the PostgreSQL server .ci/run starts
    ($DRAFTER_TEST_PG_URL), dropped afterwards; the test is skipped without one."""
    import uuid

    base = os.environ.get(PG_URL_ENV)
    if not base:
        pytest.skip(f"no PostgreSQL server: ${PG_URL_ENV} is not set (.ci/run starts one)")
    import psycopg

    name = f"drafter_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    try:
        yield pg_database_url(base, name)
    finally:
        with psycopg.connect(base, autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
