"""``benchmarks/label_agreement.py`` end to end as a relay player would run it: a
separate process, the real SDK, ANTHROPIC_BASE_URL pointing at a scripted endpoint on
loopback, one pair chosen with ``--pairs``; a second run answers from the cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from claude_server import ClaudeServer
from judge_endpoint import JudgeAPI, records_of

ROOT = Path(__file__).resolve().parents[1]
PAIR = "sample-offline"


def _first_with_reasons(body: dict[str, object]) -> dict[str, object]:
    """Best: the first candidate; also: the second, each with a reason."""
    cands = [c["id"] for c in records_of(body)["candidates"]]
    also = [{"id": cands[1], "part": "split part", "reason": "part"}] if len(cands) > 1 else []
    return {"best": cands[0], "reason": "first", "also": also}


def _run(url: str, data_dir: Path, shared: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "relay",
        "ANTHROPIC_BASE_URL": url,
        "DRAFTER_DATA_DIR": str(data_dir),
        "DRAFTER_RETRIES": "0",
    }
    args = [sys.executable, str(ROOT / "benchmarks" / "label_agreement.py"), "--judge-only"]
    args += ["--pairs", PAIR, "--shared", str(shared), "--similarity", "lexical", "--why"]
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, check=False)


def _row(out: str) -> list[str]:
    line = next(x for x in out.splitlines() if x.startswith(PAIR))
    return line.split()


def test_label_agreement_runs_through_an_endpoint(tmp_path: Path) -> None:
    api = JudgeAPI(_first_with_reasons)
    server = ClaudeServer(api)
    shared = tmp_path / "no-shared"
    shared.mkdir()
    try:
        first = _run(server.url, tmp_path / "data", shared)
        assert first.returncode == 0, first.stderr
        asked = len(api.log)
        # the sample reference has 25 records: at most one call each, each bounded
        assert 0 < asked <= 25
        assert all(len(b["tools"][0]["input_schema"]["properties"]) == 3 for b in api.log)
        cells = _row(first.stdout)
        # calls and cached columns: every request asked now, none from the cache
        assert cells[-4:-2] == [str(asked), "0"]
        assert "[judge]" in first.stdout and "[mech]" in first.stdout
        again = _run(server.url, tmp_path / "data", shared)
        assert again.returncode == 0, again.stderr
        assert len(api.log) == asked  # the rerun asks nothing
        assert _row(again.stdout)[-4:-2] == ["0", str(asked)]
        assert _row(again.stdout)[:-4] == cells[:-4]  # the same figures
    finally:
        server.close()


def test_unknown_pair_is_refused(tmp_path: Path) -> None:
    out = _run("http://127.0.0.1:9", tmp_path, tmp_path)
    assert out.returncode == 0  # sanity: the known pair with an unreachable endpoint
    assert "not judged" in out.stdout
    bad = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "label_agreement.py"), "--pairs", "nope"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "DRAFTER_DATA_DIR": str(tmp_path)},
    )
    assert bad.returncode == 1 and "unknown pair(s) nope" in bad.stderr
