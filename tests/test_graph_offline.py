"""The offline proposer through the very same graph: a fully verified first draft of
the shipped sample with no model and no key, checkpointed like any other run."""

from __future__ import annotations

import pytest

from drafter.sample import SampleRepo
from graph.configuration import Configuration
from graph.proposers.factory import build_proposer
from graph.runner import run_draft


@pytest.fixture(scope="module")
def offline_run(sample: SampleRepo, tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("data")
    seen: list[str] = []
    result = run_draft(
        str(sample.path),
        sample.sha,
        Configuration(generator="offline"),
        build_proposer,
        data_dir=data,
        system="tinkerbot",
        on_update=lambda node, _u: seen.append(node),
    )
    return sample, result, seen


def test_offline_draft_verifies_fully(offline_run) -> None:
    sample, result, _ = offline_run
    report = result.report
    assert report is not None and report.meta.generator == "offline"
    assert report.meta.model is None and report.meta.usage == []
    assert report.source.revision == sample.sha
    kinds = {r.kind for r in report.records}
    assert kinds == {"CMP", "OBJ", "RTE", "CLM", "BAP"}
    assert report.witnesses and all(w.verified for w in report.witnesses)
    ids = [r.id for r in report.records]
    assert len(ids) == len(set(ids))


def test_offline_run_goes_through_every_node(offline_run) -> None:
    _, result, seen = offline_run
    plan_items = result.state["plan"]["items"]
    assert seen.count("draft_record") == len(plan_items)  # one Send per planned record
    for node in (
        "resolve_snapshot",
        "ensure_index",
        "survey",
        "plan",
        "verify",
        "account",
        "assemble",
    ):
        assert node in seen
    assert result.checkpoint.exists()
    assert result.state["index_info"]["used"] is True
