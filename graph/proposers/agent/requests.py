"""The repository data that opens each conversation (orientation, openings, records).

Why separate from the prompts: these builders read the snapshot through the same
tools the model calls (so an opening looks exactly like a ``read_file`` answer, with
its header and continue hint), while :mod:`graph.proposers.agent.prompts` holds the
prompt files and the framing helper every piece of repository data goes through.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from drafter.model import Bullet, Paragraph, Record, WitnessBlock
from graph.proposers.agent import map as code_map
from graph.proposers.agent.map import id_index
from graph.proposers.agent.prompts import data_block
from graph.proposers.agent.tools import ReadFileInput, SnapshotTools, ToolError
from retrieval.survey import Survey

#: Lines of the README the planner opens with; its checkable promises further down are
#: listed with the documented promises (graph.proposers.agent.claims).
README_LINES = 80
_README_NAMES = ("readme.md", "readme.rst", "readme.txt", "readme")


def _page(tools: SnapshotTools, path: str, lines: int) -> str | None:
    """The first ``lines`` lines as ``read_file`` shows them, with one notice when the
    file goes on: ``read_file``'s own (a page cut by its character cap says where to
    continue) or, only when that did not cut it, the opening-only notice."""
    try:
        page = tools.read_file(ReadFileInput(path=path, start_line=1, end_line=lines))
    except ToolError:
        return None
    got = tools.lines_or_reason(path)
    total = len(got) if isinstance(got, list) else 0
    if total > lines and "\n[cut at line " not in page:
        page += (
            f"\n[opening only: lines 1–{lines} of {total}; continue with "
            f'read_file(path="{path}", start_line={lines + 1})]'
        )
    return page


def readme_path(files: list[str]) -> str | None:
    """The top-level README, else the shallowest one (docs/README.md and the like)."""
    readmes = [f for f in files if f.rsplit("/", 1)[-1].lower() in _README_NAMES]
    if not readmes:
        return None
    return min(readmes, key=lambda f: (f.count("/"), len(f), f))


def orientation(tools: SnapshotTools, survey: Survey | None) -> str:
    """What a planner reads first besides the shared map: the README head.

    The entry units, the survey's counts and key findings and the file list are in the
    shared block every call already carries (``shared_context`` in
    :mod:`graph.proposers.agent.prompts`), so they are pointed to, not repeated.
    """
    snap = tools.res.snapshot()
    readme = readme_path(snap.files())
    page = _page(tools, readme, README_LINES) if readme else None
    head = f"README head:\n{page}" if page else "README: none found at this revision"
    n = len(survey.findings) if survey is not None else 0
    return (
        f"{head}\n\nThe entry units, a summary of the {n} survey findings and the file list"
        ' are in the shared context above; `survey(category="entry_point")` lists every'
        " entry finding."
    )


def finding_ids(survey: Survey | None, room: int | None = None) -> str | None:
    """The plan request's index of the finding IDs the shared map does not show (see
    :func:`graph.proposers.agent.map.id_index`), or None when the map shows them all;
    within ``room`` characters when given (four fifths for the system's own code),
    else the index's own allowances.

    Why in the plan request and not the shared map: only the planner cites finding IDs
    (``submit_plan``'s ``facts``), and every other call would re-read the index from
    the cache on each turn; the plan's first turn is itself cached for its later turns.
    """
    if room is None:
        text, missing, files = id_index(survey)
    else:
        core = min(code_map.CORE_ID_BUDGET, max(0, room * 4 // 5))
        rest = min(code_map.ID_INDEX_BUDGET, max(0, room - core))
        text, missing, files = id_index(survey, rest, core)
    if not text and not missing:
        return None
    head = (
        "Finding IDs for `facts`. Besides the findings the shared map shows whole, the"
        " survey's other findings are listed here by file: a row"
        " `path: category 12 40#2; category 7` stands for the IDs `category:path:12`,"
        " `category:path:40#2` (the second finding on line 40) and `category:path:7`."
    )
    body = data_block("finding_ids", text or "(none fit)")
    if not missing:
        return f"{head} Every finding ID is in the map or here.\n{body}"
    return (
        f"{head}\n{body}\n{missing} findings in {files} more file(s) are not listed here:"
        " `survey(path=...)` lists a file's findings with their IDs."
    )


def text_pages(
    file_texts: dict[str, str],
) -> tuple[Callable[[str, int], str], Callable[[str], list[str] | str]]:
    """Page and line readers over texts already in hand (a proposer without bound
    tools), numbered like ``read_file`` pages."""

    def lines_of(path: str) -> list[str] | str:
        text = file_texts.get(path)
        return text.splitlines() if text is not None else "not read for this record"

    def page(path: str, last: int) -> str:
        rows = [f"{i:>5}  {line}" for i, line in enumerate(file_texts[path].splitlines(), 1)]
        return data_block("file_lines", "\n".join(rows[:last]), path=path, lines=f"1-{last}")

    return page, lines_of


#: Characters of a record's lead and of each later paragraph in its account summary.
LEAD_CHARS = 500
PARAGRAPH_CHARS = 240
FIELD_CHARS = 160
QUOTE_CHARS = 160
#: Witnesses an account summary names per record.
SUMMARY_WITNESSES = 4


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def record_text(record: Record, witnesses: int = SUMMARY_WITNESSES) -> str:
    """One record summarised for the account writer: its lead, its fields, the first
    sentence-length of each paragraph and its verified witnesses' paths and quote
    openings.

    Why a summary: the account request carried every record in full plus the map
    (106 KB on a relay run), while the account ties records together by ID, statuses
    and where their evidence lies; a detail it needs is one ``read_file`` away."""
    rows = [f"{record.id}: {record.label}"]
    if record.part_of:
        rows.append(f"part of: {record.part_of}")
    paragraphs = [b for b in record.blocks if isinstance(b, Paragraph)]
    for i, p in enumerate(paragraphs):
        rows.append(_clip(p.text, LEAD_CHARS if i == 0 else PARAGRAPH_CHARS))
    rows.extend(
        f"- {b.name}: {_clip(b.value, FIELD_CHARS)}" for b in record.blocks if isinstance(b, Bullet)
    )
    found = [b.witness for b in record.blocks if isinstance(b, WitnessBlock)]
    for w in found[:witnesses]:
        status = w.verification.status if w.verification else "unchecked"
        where = (
            f"{w.path}:{w.verification.lines.start}"
            if w.verification and w.verification.lines
            else w.path
        )
        quote = json.dumps(_clip(w.quote, QUOTE_CHARS), ensure_ascii=False)
        rows.append(f"witness ({status}) {where}: {quote}")
    if len(found) > witnesses:
        rows.append(f"(and {len(found) - witnesses} more witnesses)")
    rows.extend(f"flag: {f.text}" for f in record.flags)
    return "\n".join(rows)


def account_data(records: list[Record], budget: int | None = None) -> str:
    """The drafted records, summarised (:func:`record_text`) and framed as data (they
    quote repository text).  With ``budget`` (bytes the data may take in the request's
    JSON), the summaries name fewer witnesses until they fit, then the records that do
    not fit are listed by ID only: the account request stays under the ceiling however
    many records there are, and a detail it lacks is one ``read_file`` away."""
    if not records:
        return "(no records were drafted)"

    def joined(n: int) -> str:
        return "\n\n".join(
            data_block("drafted_record", record_text(r, n), id=r.id) for r in records
        )

    for n in range(SUMMARY_WITNESSES, -1, -1):
        text = joined(n)
        if budget is None or _json_bytes(text) <= budget:
            return text
    assert budget is not None
    kept: list[str] = []
    for i, r in enumerate(records):
        block = data_block("drafted_record", record_text(r, 0), id=r.id)
        rest = ", ".join(x.id for x in records[i:])
        tail = f"(not summarised for want of room; read them in the draft's order: {rest})"
        if _json_bytes("\n\n".join([*kept, block, tail])) > budget:
            return "\n\n".join([*kept, tail])
        kept.append(block)
    return "\n\n".join(kept)


def _json_bytes(text: str) -> int:
    return len(json.dumps(text, ensure_ascii=False).encode("utf-8"))
