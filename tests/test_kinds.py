"""The record-kind table is the one source of IDs, section order and lead labels."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from drafter import kinds
from drafter.model import (
    CITED_ID_RE,
    EPISTEMIC_SECTIONS,
    KIND_ORDER,
    LEAD_LABELS,
    RECORD_ID_RE,
    RUNTIME_SECTIONS,
    SECTION_KIND,
)

ROOT = Path(__file__).resolve().parents[1]


def _arch_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arch_check", ROOT / "benchmarks/arch_check.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["arch_check"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_report_format_order_and_sections_come_from_the_table() -> None:
    assert KIND_ORDER == ("CMP", "OBJ", "RTE", "CLM", "BAP")
    assert RUNTIME_SECTIONS == (
        "Components",
        "Operative objects",
        "Routes",
        "Claims",
        "Evidenced absences",
        "Behavioral-authority paths",
    )
    assert EPISTEMIC_SECTIONS == ("Operative objects", "Routes")
    assert SECTION_KIND["Behavioral-authority paths"] == "BAP"
    assert LEAD_LABELS["RTE"] == ("Endpoints/progression", "Endpoints")


def test_every_kind_of_the_table_makes_valid_ids() -> None:
    for kind in kinds.RECORD_KINDS:
        for prefix in kinds.ID_PREFIXES.values():
            rid = f"{prefix}-{kind.code}-some-thing"
            m = RECORD_ID_RE.match(rid)
            assert m and m.group("kind") == kind.code
            assert CITED_ID_RE.findall(f"see {rid}-, then") == [rid]
    assert not RECORD_ID_RE.match("RT-XYZ-a")
    assert kinds.order_of("XYZ") == len(kinds.RECORD_KINDS)


def test_arch_check_reports_a_hand_written_kind_pattern(tmp_path: Path) -> None:
    check = _arch_check()
    (tmp_path / "drafter").mkdir()
    (tmp_path / "drafter" / "kinds.py").write_text(
        (ROOT / "drafter" / "kinds.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "graph").mkdir()
    (tmp_path / "graph" / "mine.py").write_text(
        'import re\n_R = re.compile(r"RT-(?:CMP|OBJ|RTE)-x")\n'
        'ORDER = {"CMP": 0, "OBJ": 1, "RTE": 2, "CLM": 3, "BAP": 4}\n'
        'HINTS = {"CMP": "a", "OBJ": "b", "RTE": "c", "CLM": "d", "BAP": "e"}\n'
        'ONE = "RTE"\n',
        encoding="utf-8",
    )
    found = check.kind_copies(tmp_path, check.project_files(tmp_path))
    assert [(c.path, c.line) for c in found] == [("graph/mine.py", 2), ("graph/mine.py", 3)]


def test_the_project_has_no_hand_written_kind_pattern() -> None:
    check = _arch_check()
    assert check.kind_copies(ROOT, check.project_files(ROOT)) == []
