"""Environment and configuration reads: which knobs the system takes from outside.

Environment variables are reported by name only; a default written in the source
is kept (it is source text, e.g. a default model name) unless the name looks like a
secret, in which case nothing but the name is recorded.
"""

from __future__ import annotations

import re

from retrieval.languages.python.values import literal
from retrieval.survey.base import Hit, clip
from retrieval.survey.details import ConfigDetail
from retrieval.survey.model import Category, ConfigKind
from retrieval.survey.source import PyFile

_SECRET = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.I)
_ENV_SUBSCRIPT = re.compile(r"""os\.environ\[\s*['"]([A-Za-z0-9_]+)['"]\s*\](\s*=(?!=))?""")
_MODEL_NAME = re.compile(r"(^|[._])(\w*_)?model(_name|_id)?$", re.I)
_CONFIG_LOADS: dict[str, ConfigKind] = {
    "yaml.safe_load": "yaml",
    "yaml.load": "yaml",
    "tomllib.load": "toml",
    "toml.load": "toml",
    "dotenv.load_dotenv": "dotenv",
    "configparser.ConfigParser": "ini",
    "omegaconf.OmegaConf.load": "yaml",
    "hydra.main": "hydra",
}


def config_findings(pf: PyFile) -> list[Hit]:
    hits: list[Hit] = []
    for c in pf.calls:
        if (
            c.full in ("os.environ.get", "os.getenv", "os.environ.setdefault", "os.environ.pop")
            and c.positional
        ):
            name = literal(c.positional[0])
            if not name:
                continue
            detail: ConfigDetail = {"env": name, "access": c.full.rsplit(".", 1)[-1]}
            if len(c.positional) > 1 and not _SECRET.search(name):
                default = literal(c.positional[1])
                if default is not None:
                    detail["default"] = default
            if _SECRET.search(name):
                detail["secret"] = True
            hits.append(
                Hit.at_call(pf, c, category=Category.CONFIG_READ, kind="env", detail=detail)
            )
        elif c.full in _CONFIG_LOADS:
            hits.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.CONFIG_READ,
                    kind=_CONFIG_LOADS[c.full],
                    detail={
                        "call": c.callee,
                        "source": clip(c.positional[0], 80) if c.positional else "",
                    },
                )
            )
    for a in pf.assigns:
        lhs = a.extra.get("lhs", "")
        rhs = a.text.split("=", 1)[1].strip() if "=" in a.text else ""
        if (
            _MODEL_NAME.search(lhs)
            and rhs
            and ("(" not in rhs or re.search(r"environ|getenv", rhs))
        ):
            if a.end_line - a.start_line <= 2:
                hits.append(
                    Hit(
                        category=Category.CONFIG_READ,
                        kind="model_setting",
                        path=pf.path,
                        start_line=a.start_line,
                        end_line=a.end_line,
                        symbol=a.symbol,
                        detail={"name": clip(lhs, 60), "value": clip(rhs, 100)},
                    )
                )
    for i, line in enumerate(pf.lines, 1):
        if "os.environ[" not in line or line.lstrip().startswith("#"):
            continue
        for m in _ENV_SUBSCRIPT.finditer(line):
            name = m.group(1)
            hits.append(
                Hit.at_line(
                    pf.path,
                    i,
                    symbol=_owner(pf, i),
                    category=Category.CONFIG_READ,
                    kind="env_write" if m.group(2) else "env",
                    detail={
                        "env": name,
                        "access": "set" if m.group(2) else "subscript",
                        **({"secret": True} if _SECRET.search(name) else {}),
                    },
                )
            )
    return hits


def _owner(pf: PyFile, line: int) -> str:
    best = None
    for d in pf.defs:
        if (
            d.kind == "function"
            and d.def_line <= line <= d.end_line
            and (best is None or d.def_line >= best.def_line)
        ):
            best = d
    if best:
        return best.symbol
    return (
        "<main>" if pf.main_guard and pf.main_guard[0] <= line <= pf.main_guard[1] else "<module>"
    )
