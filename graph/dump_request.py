"""Write the exact Messages API requests the Claude proposer sends for one record.

So a person can read what the model is asked: the system prompt and cached shared
context, the record's task and repository data, the tools offered (investigation tools
and the submit tool) and their schemas.  The requests are captured from the real
anthropic SDK at the HTTP layer (an ``httpx2.MockTransport`` records each body and
answers with a canned submission), so the file holds the bytes that would go over
the wire, minus the API key header.  The canned answer carries one wrong quote, so
the fix-up turn ``submit_record`` answers it with and the repair request for the same
record (with its own fix-up turn) are captured too.  No network, no key.

    drafter dump-request [REPO --rev REV] [--record ID] [--out FILE] [--no-index]
                         [--context-window N]

With ``--context-window N`` the requests are those of a run against a model with that
window (smaller pages, output limits, and each request cut to fit as
:mod:`graph.context_window` cuts it), so what a local model is sent can be read too.

Use the ``drafter`` command, not ``python -m graph.dump_request``: ``python -m`` puts
the current folder first on ``sys.path``, so run inside an analysed repository that
ships its own ``graph`` package it would import (and run) that package instead.  The
console script's path starts at its own folder, never the current one.

Without REPO the shipped sample is materialised in a temporary folder.  It lives in
``graph`` (a module, not a loose script) because it drives the workflow's own context
builders, so it is installed and tested with them.
"""

from __future__ import annotations

if __name__ == "__main__":
    # ``python -m`` puts the current folder first on sys.path.  Refuse, before any other
    # project import, when that folder holds a package named like one of drafter's: an
    # analysed repository's code would be imported instead.  (Stdlib only, on purpose.)
    import sys as _sys
    from pathlib import Path as _Path

    _ours, _first = _Path(__file__).resolve().parents[1], _Path(_sys.path[0] or ".").resolve()
    if not _sys.flags.safe_path and _first != _ours:
        for _name in ("drafter", "graph", "evals", "retrieval", "tui", "prompts"):
            if (_first / _name / "__init__.py").is_file() or (_first / f"{_name}.py").is_file():
                print(
                    f"drafter: error: {_first} holds a {_name!r} package that python -m would "
                    "import instead of drafter's; run `drafter dump-request` instead",
                    file=_sys.stderr,
                )
                _sys.exit(2)

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from graph.jsontypes import JsonDict

# the workflow, the SDK and httpx2 are imported once the arguments parsed: ``drafter
# --help`` loads every command module, and ``dump-request --help`` needs none of them
if TYPE_CHECKING:
    import httpx2

    from graph.proposer import Plan, PlanItem

CANNED_USAGE = {"input_tokens": 0, "output_tokens": 0}


def _capture(log: list[JsonDict], answer: JsonDict) -> httpx2.MockTransport:
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        headers = {
            k: v
            for k, v in request.headers.items()
            if k.lower() not in ("x-api-key", "authorization")
        }
        log.append(
            {"url": str(request.url), "headers": headers, "body": json.loads(request.content)}
        )
        body = log[-1]["body"]
        return httpx2.Response(
            200,
            json={
                "id": "msg_dump",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_dump",
                        "name": next(
                            t["name"] for t in body["tools"] if t["name"].startswith("submit_")
                        ),
                        "input": answer,
                    }
                ],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": CANNED_USAGE,
            },
        )

    return httpx2.MockTransport(handler)


def _arguments(argv: list[str] | None, prog: str) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog=prog, description=(__doc__ or "").splitlines()[0])
    ap.add_argument("repo", nargs="?")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument(
        "--record", help="plan item ID (default: the first planned route, else the first item)"
    )
    ap.add_argument("--out", default="request-dump.json")
    ap.add_argument("--no-index", action="store_true")
    ap.add_argument("--context-window", type=int, default=None)
    return ap.parse_args(argv)


def _pick_item(plan: Plan, record_id: str | None) -> PlanItem:
    """The plan item named by ``--record``, else the first route, else the first item."""
    from drafter.errors import BadInput

    items = {i.id: i for i in plan.items}
    item = (
        items.get(record_id)
        if record_id
        else next((i for i in plan.items if i.kind == "RTE"), plan.items[0] if plan.items else None)
    )
    if item is None:
        more = f" and {len(items) - 12} more" if len(items) > 12 else ""
        shown = ", ".join(list(items)[:12]) + more
        raise BadInput(f"no plan item {record_id!r}; planned: {shown}")
    return item


def _canned_answer(item: PlanItem) -> JsonDict:
    """A record answer whose one witness cannot verify, so a repair request follows."""
    return {
        "label": item.label,
        "lead": "Endpoints/progression: (canned answer for the dump)",
        "witnesses": [
            {
                "quote": "a quote that is not in the file",
                "path": item.files[0] if item.files else "README.md",
            }
        ],
    }


def main(argv: list[str] | None = None, prog: str = "python -m graph.dump_request") -> None:
    args = _arguments(argv, prog)

    import httpx2

    from drafter.sample import materialize
    from graph.configuration import Configuration, RunContext
    from graph.context_window import sizes_for, window_settings
    from graph.nodes.common import plan_context
    from graph.nodes.draft_record import build_record_context
    from graph.proposer import Miss, RunHandles
    from graph.proposers.claude import ClaudeProposer
    from graph.proposers.offline import OfflineProposer
    from graph.resources import Resources

    tmp = None
    if args.repo is None:
        tmp = tempfile.TemporaryDirectory()
        sample = materialize(Path(tmp.name) / "sample")
        repo, rev = str(sample.path), sample.sha
    else:
        repo, rev = args.repo, args.rev
    res = Resources(
        repo=repo, rev=rev, use_index=not args.no_index, data_dir=Path(tmp.name) if tmp else None
    )
    try:
        config = Configuration(generator="claude", **window_settings(args.context_window))
    except ValueError as exc:
        raise SystemExit(str(exc)) from exc
    pctx = plan_context(
        RunContext(proposer=OfflineProposer(), config=config, resources=res),
        res.snapshot().identity.rstrip("/").rsplit("/", 1)[-1],
    )
    plan = OfflineProposer(snapshot=res.snapshot()).plan(pctx)
    item = _pick_item(plan, args.record)
    log: list[JsonDict] = []
    prop = ClaudeProposer(
        config.model,
        api_key="dump",
        http_client=httpx2.Client(transport=_capture(log, _canned_answer(item))),
        window=sizes_for(config.context_window) if config.context_window else None,
    )
    ctx = RunContext(proposer=prop, config=config, resources=res)
    prop.start(RunHandles(res))
    prop.prepare(pctx)
    rctx = build_record_context(ctx, plan, item)
    record = prop.draft_record(rctx)
    if record is None:
        raise SystemExit(f"the canned answer for {item.id} was rejected; nothing to repair")
    w = record.witnesses[0]
    v = res.verify(w)
    prop.repair_record(rctx, record, [Miss(witness=w, status=str(v.status), nearest=v.nearest)])
    out = Path(args.out)
    out.write_text(
        json.dumps({"record": item.id, "requests": log}, indent=2, ensure_ascii=False) + "\n"
    )
    sizes = ", ".join(f"{len(json.dumps(r['body']))} bytes" for r in log)
    print(f"{len(log)} requests for {item.id} written to {out} ({sizes})")
    res.close()
    if tmp is not None:
        tmp.cleanup()


@click.command(
    "dump-request",
    context_settings={"ignore_unknown_options": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def dump_request_cmd(args: tuple[str, ...]) -> None:
    """Write the exact Claude requests for one record to a file (no network, no key)."""
    main(list(args), prog="drafter dump-request")


if __name__ == "__main__":
    from drafter.errors import DrafterError

    try:
        main()
    except DrafterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
