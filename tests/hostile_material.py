"""Payloads and small hostile repositories shared by the ``test_hostile_*`` suites.

Everything is generated here, in the test's temporary folder: no real repository is
needed.  ``RAW_CONTROL`` is what must never appear in terminal or report output.
"""

from __future__ import annotations

import re
from pathlib import Path

from gitrepo import commit

#: Escape sequences an attacker would put in a repository file or model answer.
ESCAPES = {
    "osc52_clipboard": "\x1b]52;c;ZXZpbCBjb21tYW5k\x07",
    "clear_screen": "\x1b[2J\x1b[H",
    "window_title": "\x1b]0;owned\x07",
    "osc8_hyperlink": "\x1b]8;;file:///etc/passwd\x1b\\click\x1b]8;;\x1b\\",
    "c1_csi": "\x9b31mred",
    "c1_osc": "\x9d0;title\x9c",
    "bell_backspace": "ok\x07\x08\x08XX",
    "carriage_return": "safe\roverwritten",
    "delete": "a\x7fb",
    "nel_separator": "a\x85b\u2028c",
    "nul_vt_ff": "a\x00b\x0bc\x0cd",
}
#: Rich markup an attacker would put in a repository file.
MARKUP = {
    "bold_red": "[bold red]ALERT[/]",
    "link": "[link=file:///etc/passwd]click me[/link]",
    "blink": "[blink reverse]x[/blink reverse]",
}

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def no_raw_control(text: str) -> bool:
    return RAW_CONTROL.search(text) is None


def hostile_repo(root: Path) -> tuple[Path, str]:
    """A tiny repository whose code carries every payload in names, strings and paths."""
    lines = ["import subprocess", ""]
    for i, (name, payload) in enumerate({**ESCAPES, **MARKUP}.items()):
        lit = payload.replace("\x00", "")  # git keeps NUL, but then the file is binary
        lines.append(f"def tool_{name}():")
        lines.append(f"    subprocess.run(['echo', {lit!r}])  # {lit}")
        lines.append(f"    return {i}")
        lines.append("")
    files = {
        "agent.py": "\n".join(lines) + "\n",
        "[bold]odd[/bold].py": "import os\nos.system('ls')  # [link=file:///x]y[/link]\n",
        "evil\x1b]0;t\x07name.py": "import os\nos.system('pwd')\n",
    }
    repo = root / "hostile"
    sha = commit(repo, files)
    return repo, sha
