"""A ``__main__`` block is judged by what it does, not only by whether others import the
module: a production worker imported for its helpers still starts the system.

Each module below is called from another; only the one whose block merely prints a
sample call, and the one running its doctests, are self-tests.
"""

from __future__ import annotations

from pathlib import Path

from drafter.snapshot import Snapshot
from retrieval.survey.runner import run_survey
from tests.gitrepo import make_repo

WORKERS = {
    "pkg/__init__.py": "",
    "pkg/cli_args.py": (
        "import argparse\n\n\n"
        "def parse_arguments():\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('-t')\n"
        "    return p.parse_args()\n"
    ),
    # parses its command line through a helper of another module, then runs the loop
    "pkg/core.py": (
        "import asyncio\n\n"
        "from pkg.cli_args import parse_arguments\n\n\n"
        "async def run_controller(task):\n"
        "    return task\n\n\n"
        'if __name__ == "__main__":\n'
        "    args = parse_arguments()\n"
        "    asyncio.run(run_controller(args.t))\n"
    ),
    # a server started and kept running
    "pkg/viewer.py": (
        "import threading\n\n\n"
        "def start_viewer(port):\n"
        "    t = threading.Thread(target=print, args=(port,))\n"
        "    t.start()\n"
        "    return t\n\n\n"
        'if __name__ == "__main__":\n'
        "    thread = start_viewer(8000)\n"
        "    thread.join()\n"
    ),
    # a worker configured from the environment
    "pkg/sync.py": (
        "import os\n\n\n"
        "def sync_recent(minutes):\n"
        "    return minutes\n\n\n"
        'if __name__ == "__main__":\n'
        "    sync_recent(int(os.environ.get('SYNC_MINUTES', '60')))\n"
    ),
    # a self-test: a sample call printed
    "pkg/text.py": (
        "def shout(s):\n"
        "    return s.upper()\n\n\n"
        'if __name__ == "__main__":\n'
        "    print(shout('hello'))\n"
    ),
    # a self-test through a test framework, even though it is not imported
    "pkg/maths.py": (
        "def add(a, b):\n"
        '    """>>> add(1, 2)\n    3\n    """\n'
        "    return a + b\n\n\n"
        'if __name__ == "__main__":\n'
        "    import doctest\n\n"
        "    doctest.testmod()\n"
    ),
    "pkg/uses.py": (
        "from pkg.core import run_controller\n"
        "from pkg.viewer import start_viewer\n"
        "from pkg.sync import sync_recent\n"
        "from pkg.text import shout\n\n\n"
        "def use():\n"
        "    return run_controller(1), start_viewer(1), sync_recent(1), shout('x')\n"
    ),
}


def test_workers_are_entries_and_only_self_tests_are_libraries(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", WORKERS)
    with Snapshot(repo) as snap:
        survey = run_survey(snap)
    units = {
        u.primary.path: u for u in survey.index().entry_units if u.primary.kind == "main_guard"
    }
    libraries = sorted(p for p, u in units.items() if u.library)
    assert libraries == ["pkg/maths.py", "pkg/text.py"]
    does = {p: u.primary.detail.get("does") for p, u in units.items()}
    assert does["pkg/core.py"] == ["arguments", "serves"]
    assert does["pkg/viewer.py"] == ["serves"]
    assert does["pkg/sync.py"] == ["environment"]
    assert does["pkg/text.py"] == [] and does["pkg/maths.py"] == ["self_test"]
