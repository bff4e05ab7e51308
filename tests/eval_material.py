"""The tiny two-commit repository and gold records the evaluation tests score against.

Shared by the metric tests and the ``drafter eval`` command tests (the ``tiny_repo``
fixture in ``conftest`` builds it once per module); every expected figure in those
tests is computed by hand from what is written here.
"""

from __future__ import annotations

from pathlib import Path

from fakes import make_record
from gitrepo import git

from drafter.model import Record

AGENT = """\
import json


def run(task):
    reply = call_model(task)
    return reply


def call_model(prompt):
    return client.messages.create(model="small-model", messages=[prompt])


def save(result):
    with open("results.json", "w") as f:
        json.dump(result, f)
"""

TOOLS = """\
import subprocess


def shell(cmd):
    return subprocess.run(cmd, shell=True, capture_output=True)


def read(path):
    with open(path) as f:
        return f.read()
"""

README = """\
# tiny agent

The agent never touches the network except to reach the model.
"""

LATER = '\n\ndef cleanup():\n    os.remove("results.json")\n'

# witnesses (quote, path) at revision 1; line numbers noted for the reader
W_MODEL = (  # line 10
    'return client.messages.create(model="small-model", messages=[prompt])',
    "agent.py",
)
W_SAVE = ("json.dump(result, f)", "agent.py")  # 15
W_RUN = ("reply = call_model(task)", "agent.py")  # 5
W_SHELL = ("return subprocess.run(cmd, shell=True, capture_output=True)", "tools.py")  # 5
W_READ = ("with open(path) as f: return f.read()", "tools.py")  # 9-10
W_README = ("The agent never touches the network except to reach the model.", "README.md")
W_LATER = ('os.remove("results.json")', "agent.py")  # only in revision 2

ROUTE_BULLETS = [
    ("implementation conclusion status", "wired"),
    ("operation conclusion status", "uninspected"),
    ("Immediate return", "the completed process."),
    ("Later read-back", "none."),
    ("Delegated visibility", "the shell sees the whole host."),
    ("Selection predicate", "the model names the tool."),
    ("Invalidation or expiry", "none."),
    ("Activation or effect", "runs a shell command."),
    ("Evidence limits", "no trace supplied."),
]


def build_tiny_repo(repo: Path) -> tuple[Path, str, str]:
    """A two-commit repository: rev1 is evaluated; rev2 adds a line gold may quote."""
    git(repo, "init", "-q")
    (repo / "agent.py").write_text(AGENT)
    (repo / "tools.py").write_text(TOOLS)
    (repo / "README.md").write_text(README)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    rev1 = git(repo, "rev-parse", "HEAD")
    (repo / "agent.py").write_text(AGENT + LATER)
    git(repo, "commit", "-q", "-am", "two")
    rev2 = git(repo, "rev-parse", "HEAD")
    return repo, rev1, rev2


def gold_records() -> list[Record]:
    return [
        make_record(
            "RT-CMP-model",
            "Hosted chat model",
            "Source-native identity: client.messages.create with model small-model. "
            "Representational form: distributed-parametric. Storage substrate: provider.",
            [W_MODEL],
        ),
        make_record(
            "RT-OBJ-results",
            "Saved results file",
            "Source-native identity: results.json written by save with json.dump. "
            "Representational form: JSON. Storage substrate: local file.",
            [W_SAVE],
        ),
        make_record(
            "RT-RTE-shell",
            "Shell command execution",
            "Endpoints/progression: model → shell tool → subprocess.run with shell=True.",
            [W_SHELL],
            ROUTE_BULLETS,
        ),
        make_record(
            "RT-RTE-read",
            "File reading tool",
            "Endpoints/progression: model → read tool → open the path and return its text.",
            [W_READ],
            ROUTE_BULLETS,
        ),
    ]
