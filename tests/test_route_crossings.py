"""Offline routes that cross between languages name the crossing and quote both sides,
on a mixed repository the test builds, through the real survey and offline draft: a
TypeScript command requesting a route its Python server defines and spawning a Python
script; a Python command starting a JavaScript script and a package's program by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import commit, survey_of

from drafter.cli import main
from drafter.model import Record, Report

FILES = {
    "server/routes.py": (
        "from fastapi import APIRouter\n"
        "import anthropic\n"
        "\n"
        'router = APIRouter(prefix="/api/conversations")\n'
        "\n"
        "\n"
        '@router.post("/{conversation_id}/messages")\n'
        "def send(conversation_id: str, text: str):\n"
        "    client = anthropic.Anthropic()\n"
        '    return client.messages.create(model="m", max_tokens=5, messages=[])\n'
    ),
    "scripts/index_repo.py": (
        "import json\nimport sys\n\n\ndef main():\n"
        '    with open("index.json", "w") as f:\n        json.dump(sys.argv, f)\n\n\n'
        'if __name__ == "__main__":\n    main()\n'
    ),
    "export.py": (
        "import subprocess\nimport sys\n\n\ndef export(name):\n"
        '    subprocess.run(["node", "tools/render.mjs", name], check=True)\n'
        '    subprocess.run(["npx", "chat", "--ping"], check=True)\n\n\n'
        'if __name__ == "__main__":\n    export(sys.argv[1])\n'
    ),
    "tools/render.mjs": (
        "import { writeFileSync } from 'node:fs';\n"
        "\n"
        "export function render(name) {\n"
        "  writeFileSync(`out/${name}.html`, `<h1>${name}</h1>`);\n"
        "}\n"
        "\n"
        "render(process.argv[2]);\n"
    ),
    "web/package.json": json.dumps({"name": "web", "bin": {"chat": "src/cli.ts"}}, indent=2),
    "web/src/cli.ts": (
        "#!/usr/bin/env node\n"
        "import { send, reindex } from './api';\n"
        "\n"
        "async function main(): Promise<void> {\n"
        "  await send(process.argv[2], process.argv[3]);\n"
        "  reindex();\n"
        "}\n"
        "\n"
        "main();\n"
    ),
    "web/src/api.ts": (
        "import { spawn } from 'node:child_process';\n"
        "\n"
        "export async function send(id: string, text: string) {\n"
        "  return fetch(`${BASE}/api/conversations/${id}/messages`, {\n"
        "    method: 'POST', body: JSON.stringify({ text }),\n"
        "  });\n"
        "}\n"
        "\n"
        "export function reindex() {\n"
        "  return spawn('python3', ['scripts/index_repo.py', '--all']);\n"
        "}\n"
    ),
    "README.md": "# chat\n\nRun `chat ID TEXT`, or `python export.py NAME`.\n",
}


@pytest.fixture(scope="module")
def draft(tmp_path_factory: pytest.TempPathFactory) -> Report:
    root = tmp_path_factory.mktemp("crossing")
    repo = root / "repo"
    sha = commit(repo, FILES)
    out = root / "d.json"
    args = ["draft", str(repo), "--rev", sha, "--out", str(out), "--offline", "--no-index"]
    assert main(args) == 0
    return Report.from_json(out.read_text())


def _route(report: Report, start: str) -> Record:
    return next(r for r in report.records_of_kind("RTE") if r.label.startswith(start))


def _text(r: Record) -> str:
    return " ".join(getattr(b, "text", "") for b in r.blocks)


def test_a_typescript_route_names_its_http_and_subprocess_crossings(draft: Report) -> None:
    route = _route(draft, "Run package bin chat")
    text = _text(route)
    assert (
        "It crosses an HTTP boundary: POST /api/conversations/*/messages, requested by send() "
        "in web/src/api.ts:4 (TypeScript) → handler send() in server/routes.py:7 (Python)."
    ) in text
    assert (
        "It crosses a subprocess boundary: reindex() in web/src/api.ts:10 (TypeScript) starts "
        "scripts/index_repo.py → scripts/index_repo.py (__main__) at line 10 (Python)."
    ) in text
    # a witness on each side of the first crossing: the request and the route it reaches
    quotes = [(w.path, w.quote) for w in route.witnesses]
    assert any(p == "web/src/api.ts" and q.startswith("return fetch(`${BASE}") for p, q in quotes)
    assert ("server/routes.py", '@router.post("/{conversation_id}/messages") def send(') in [
        (p, q[: len('@router.post("/{conversation_id}/messages") def send(')]) for p, q in quotes
    ]
    # the route continues into the Python side: its model call is the route's
    assert any(p == "server/routes.py" and "messages.create" in q for p, q in quotes)


def test_a_python_route_crosses_into_javascript_and_a_package_program(draft: Report) -> None:
    route = _route(draft, "Run python export.py")
    text = _text(route)
    assert (
        "It crosses a subprocess boundary: export() in export.py:6 (Python) starts "
        "tools/render.mjs → tools/render.mjs (module level) at line 1 (JavaScript)."
    ) in text
    assert (
        "export() in export.py:7 (Python) starts package bin chat → web/src/cli.ts (module "
        "level) at line 1 (TypeScript)."
    ) in text
    assert "It writes at render() in tools/render.mjs:4" in text
    # the crossing whose far side does the most is quoted on both sides: the program
    # started by name, and the file its package builds that program from
    quotes = [(w.path, w.quote) for w in route.witnesses]
    assert ("export.py", 'subprocess.run(["npx", "chat", "--ping"], check=True)') in quotes
    assert ("web/src/cli.ts", "#!/usr/bin/env node") in quotes


def test_every_witness_of_the_crossing_draft_verifies(draft: Report) -> None:
    assert draft.witnesses and all(w.verified for w in draft.witnesses)


def test_a_one_language_survey_keeps_no_crossings_field(tmp_path: Path) -> None:
    files = {k: v for k, v in FILES.items() if k.endswith(".py")}
    survey = survey_of(tmp_path / "repo", files)
    assert survey.call_graph.crossings == []
    assert '"crossings"' not in survey.model_dump_json()


def test_crossings_no_route_takes_are_a_route_of_their_own(tmp_path: Path) -> None:
    """A front end no entry point starts (a browser runs it) still gets its record: the
    requests into one server file, both sides of the crossing quoted."""
    files = {k: v for k, v in FILES.items() if k.startswith(("server/", "web/src/api.ts"))}
    files["server/main.py"] = (
        "import uvicorn\nfrom fastapi import FastAPI\n\nfrom server.routes import router\n\n"
        'app = FastAPI()\napp.include_router(router)\n\nif __name__ == "__main__":\n'
        "    uvicorn.run(app)\n"
    )
    repo = tmp_path / "repo"
    sha = commit(repo, files)
    out = tmp_path / "d.json"
    args = ["draft", str(repo), "--rev", sha, "--out", str(out), "--offline", "--no-index"]
    assert main(args) == 0
    report = Report.from_json(out.read_text())
    route = _route(report, "TypeScript HTTP requests into server/routes.py (Python)")
    text = _text(route)
    assert "No drafted route takes them" in text
    assert "requested by send() in web/src/api.ts:4 (TypeScript) → handler send()" in text
    quotes = [(w.path, w.quote) for w in route.witnesses]
    assert any(p == "web/src/api.ts" and "fetch(" in q for p, q in quotes)
    assert any(p == "server/routes.py" and q.startswith("@router.post(") for p, q in quotes)
    assert all(w.verified for w in report.witnesses)
