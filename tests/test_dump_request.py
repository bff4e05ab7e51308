"""``python -m graph.dump_request``: the exact requests for one record, written to a file.

Run as a person would, in a child process on the shipped sample, and the file read
back: it must show what the model is asked (system prompt, cached shared context, the
tools, the record's repository data as numbered opening pages) and the repair request.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from drafter.sample import SampleRepo
from drafter.snapshot import Snapshot
from graph.proposers.agent.prompts import load_prompt
from graph.proposers.agent.tools import TOOL_NAMES


@pytest.fixture(scope="module")
def dump(sample: SampleRepo, tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dump")
    out = tmp / "requests.json"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "graph.dump_request",
            str(sample.path),
            "--rev",
            sample.sha,
            "--no-index",
            "--out",
            str(out),
        ],
        cwd=tmp,  # not the project folder: the module is found as installed
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DRAFTER_DATA_DIR": str(tmp / "data")},
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return sample, json.loads(out.read_text()), p.stdout


def test_dump_shows_prompt_cache_markers_and_forced_tool(dump) -> None:
    _, data, stdout = dump
    requests = data["requests"]
    assert len(requests) == 2  # the record, then its repair after the canned wrong quote
    assert f"2 requests for {data['record']} written to" in stdout
    system = load_prompt("system")
    for r in requests:
        assert r["url"].endswith("/v1/messages")
        assert "x-api-key" not in {k.lower() for k in r["headers"]}
        body = r["body"]
        assert body["system"][0]["text"] == system
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert "survey_summary" in body["system"][-1]["text"]  # the cached map
        tool = body["tools"][-1]  # the terminal tool comes after the investigation tools
        assert body["tool_choice"] == {"type": "any"}
        # the dump runs with --no-index: search is not offered at all
        assert [t["name"] for t in body["tools"][:-1]] == [n for n in TOOL_NAMES if n != "search"]
        assert tool["name"] == "submit_record" and tool["input_schema"]["type"] == "object"
    repair_text = " ".join(c["text"] for c in requests[1]["body"]["messages"][0]["content"])
    assert "a quote that is not in the file" in repair_text
    assert "Nearest real passages" in repair_text


def test_dump_carries_the_records_repository_data(dump) -> None:
    sample, data, _ = dump
    assert data["record"].startswith("RT-RTE-")  # the first planned route by default
    texts = [c["text"] for c in data["requests"][0]["body"]["messages"][0]["content"]]
    assert f"record {data['record']}" in texts[0]
    repo_data = texts[-1]
    files = [
        line.split('path="', 1)[1].split('"', 1)[0]
        for line in repo_data.splitlines()
        if line.startswith('<repository_data kind="file_lines"')
    ]
    assert files, repo_data[:500]
    with Snapshot(sample.path, sample.sha) as snap:
        for path in files:
            first_code_line = next(ln for ln in snap.read_str(path).splitlines() if ln.strip())
            assert first_code_line in repo_data


def test_dump_with_a_context_window_shows_the_cut_requests(sample, tmp_path) -> None:
    """``--context-window`` dumps what a run against a small model sends: output limits
    from the window, and every request within it."""
    from graph.context_window import input_budget, request_tokens, sizes_for

    out = tmp_path / "requests.json"
    args = [str(sample.path), "--rev", sample.sha, "--no-index", "--out", str(out)]
    p = subprocess.run(
        [sys.executable, "-m", "graph.dump_request", *args, "--context-window", "16384"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "DRAFTER_DATA_DIR": str(tmp_path / "data")},
    )
    assert p.returncode == 0, p.stderr[-3000:]
    requests = [r["body"] for r in json.loads(out.read_text())["requests"]]
    assert len(requests) == 2
    for body in requests:
        assert body["max_tokens"] == sizes_for(16_384).max_tokens == 4_096
        assert request_tokens(body) <= input_budget(body, 16_384)
    # The record's data turn is held to the window's record budget (a quarter of what the
    # old fixed 6,000-token opening took), so the request fits without a cut notice.
    data_turn = requests[1]["messages"][0]["content"][-1]["text"]
    assert len(data_turn.encode()) <= sizes_for(16_384).record_context_bytes + 2_048
