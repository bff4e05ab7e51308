"""How ``adas-2702bee.json`` was made (kept for provenance; the tests never run it).

    python tests/data/replay/make_replay.py TRANSCRIPT.jsonl ADAS_REPO > adas-2702bee.json

From the relay transcript of a real ADAS 2702bee run (a reasoner answering as the
model, ``../shared/tools/relay/transcripts/adas-2702bee/``) it keeps four whole
conversations — the plan, two records and the account — as the model answered them,
turn by turn, and trims one thing: the plan's ``submit_plan`` keeps only the items of
the two kept records (the others' conversations are not replayed).

The repository the replay runs against is a sparse copy of ADAS at 2702bee: the files
the kept answers quote, each as long as the real file, holding the real text only on
the lines the kept quotes cover, the spans of the survey findings the kept plan items
cite, the import lines, and the header lines of the blocks around them; every other
line is empty.  So every quote the model copied is at its true line, every fact ID it
cited exists, and nothing else of ADAS is committed.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

from drafter.model import LineRange
from drafter.snapshot import Snapshot
from drafter.verify import Verifier
from retrieval.survey import run_survey

REV = "2702bee"
#: transcript rows (0-based) of the kept conversations
KEEP = {
    "plan": range(0, 6),
    "record:RT-CMP-meta-agent-model": range(13, 16),
    "record:RT-CLM-untrusted-code-warning": range(37, 40),
    "account": range(43, 45),
}
KEPT_ITEMS = ("RT-CMP-meta-agent-model", "RT-CLM-untrusted-code-warning")
WHOLE = ("README.md",)  # prose: kept whole (the survey reads its claims by section)


def quotes(content: list[dict]) -> list[tuple[str, str, LineRange | None]]:
    out = []
    for b in content:
        if b.get("type") != "tool_use":
            continue
        inp = b["input"]
        items = [*inp.get("witnesses", [])]
        for s in inp.get("sections", []):
            items += [{**i, "quote": i["text"]} for i in s["items"] if i["type"] == "witness"]
        for w in items:
            a = w.get("start_line")
            hint = LineRange(start=a, end=w.get("end_line") or a) if a else None
            out.append((w["path"], w["quote"], hint))
    return out


def headers(tree: ast.AST, line: int) -> set[int]:
    """Header lines of every block around ``line``, and the whole innermost statement."""
    keep: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or not (node.lineno <= line <= node.end_lineno):
            continue
        body = getattr(node, "body", None)
        if body and isinstance(body, list) and body[0].lineno > line:
            keep.update(range(node.lineno, node.end_lineno + 1))
        elif body and isinstance(body, list):
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            keep.update(range(first, body[0].lineno))
        elif node.end_lineno - node.lineno < 15:
            keep.update(range(node.lineno, node.end_lineno + 1))
    return keep


def main() -> None:
    rows = [json.loads(x) for x in Path(sys.argv[1]).read_text().splitlines()]
    convs: dict[str, list[dict]] = {}
    for key, idx in KEEP.items():
        turns = []
        for i in idx:
            a = rows[i]["answer"]
            content = json.loads(json.dumps(a["content"]))
            for b in content:
                if b.get("type") == "tool_use" and b["name"] == "submit_plan":
                    b["input"]["items"] = [
                        it for it in b["input"]["items"] if it["id"] in KEPT_ITEMS
                    ]
            turns.append({"content": content, "stop_reason": a["stop_reason"]})
        convs[key] = turns
    facts = [
        f
        for t in convs["plan"]
        for b in t["content"]
        if b.get("name") == "submit_plan"
        for it in b["input"]["items"]
        for f in it.get("facts", [])
    ]
    snap = Snapshot(sys.argv[2], REV)
    ver = Verifier(snap)
    need: dict[str, set[int]] = {}
    for t in [t for ts in convs.values() for t in ts]:
        for path, q, hint in quotes(t["content"]):
            v = ver.check(q, path, hint)
            assert v.ok, (path, q, v.message)
            need.setdefault(path, set()).update(range(v.lines.start, v.lines.end + 1))
    survey = {f.id: f for f in run_survey(snap).findings}
    for fid in facts:
        f = survey[fid]
        need.setdefault(f.path, set()).update(range(f.start_line, f.end_line + 1))
    files = {}
    for path, lines in sorted(need.items()):
        text = snap.read_text(path).text.split("\n")
        if path in WHOLE:
            keep = set(range(1, len(text) + 1))
        else:
            tree = ast.parse("\n".join(text))
            keep = set(lines)
            for n in lines:
                keep |= headers(tree, n)
            for node in tree.body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    keep.update(range(node.lineno, node.end_lineno + 1))
        files[path] = {
            "line_count": len(text),
            "lines": {str(n): text[n - 1] for n in sorted(keep) if n <= len(text)},
        }
    out = {
        "source": "../shared/tools/relay/transcripts/adas-2702bee/transcript.jsonl (rows "
        + ", ".join(f"{k}: {r.start + 1}-{r.stop}" for k, r in KEEP.items())
        + ")",
        "revision": f"ShengranHu/ADAS {REV} (Apache-2.0); a sparse copy, see make_replay.py",
        "kept_items": list(KEPT_ITEMS),
        "conversations": convs,
        "files": files,
    }
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
