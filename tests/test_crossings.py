"""Routes that cross between languages at a named boundary, on a mixed repository the
test builds: a TypeScript front end requesting a route its Python server defines, and a
TypeScript process spawning a Python script of the repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import survey_of

from graph.proposers.offline.prose import short_symbol
from retrieval.survey import Survey

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
        "\n"
        "\n"
        '@router.get("/{conversation_id}/messages")\n'
        "def history(conversation_id: str):\n"
        "    return []\n"
    ),
    "scripts/index_repo.py": (
        "import sys\n\n\ndef main():\n    print(sys.argv)\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
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
        "export const mocks = [http.post('/api/conversations/:id/messages', async () => ok)];\n"
        "\n"
        "export function reindex() {\n"
        "  return spawn('python3', ['scripts/index_repo.py', '--all']);\n"
        "}\n"
    ),
}


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Survey:
    return survey_of(tmp_path_factory.mktemp("cross") / "repo", FILES)


def test_a_request_crosses_into_the_route_its_server_defines(survey: Survey) -> None:
    boundary = "server/routes.py::<HTTP POST /api/conversations/*/messages>"
    # the method picks the handler: the GET route of the same path is not reached
    assert survey.call_graph.callees("web/src/api.ts::send") == [boundary]
    # a mock server's handler for the same route is no request
    assert boundary not in survey.call_graph.callees("web/src/api.ts::<module>")
    assert survey.call_graph.callees(boundary) == ["server/routes.py::send"]
    reach = survey.reachable("web/src/api.ts::send")
    calls = [f for f in survey.findings if f.category == "model_call" and f.kind != "client"]
    assert calls and calls[0].node in reach
    assert short_symbol(boundary) == (
        "[HTTP POST /api/conversations/*/messages, boundary into server/routes.py]"
    )


def test_a_spawned_script_of_another_language_is_a_boundary(survey: Survey) -> None:
    boundary = "scripts/index_repo.py::<subprocess scripts/index_repo.py>"
    assert survey.call_graph.callees("web/src/api.ts::reindex") == [boundary]
    assert survey.call_graph.callees(boundary) == ["scripts/index_repo.py::<main>"]


def test_no_boundary_within_one_language(tmp_path: Path) -> None:
    files = {k: v for k, v in FILES.items() if k.endswith(".py")}
    files["client.py"] = (
        "import requests, subprocess\n\n\ndef go():\n"
        '    requests.post("/api/conversations/1/messages")\n'
        '    subprocess.run(["python", "scripts/index_repo.py"])\n'
    )
    sv = survey_of(tmp_path / "repo", files)
    assert not [n for n in sv.call_graph.functions if "<HTTP" in n or "<subprocess" in n]
