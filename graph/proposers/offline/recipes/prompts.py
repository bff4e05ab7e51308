"""Prompts: natural-language instruction shipped with the code (operative objects).

Prompt files one function selects among or composes are one object; instruction
strings in sibling modules of one directory (one per variant of an agent) are one
object.  A prompt file the code only composes into a program for an outside agent is
left to the artifact it becomes (see the plan's merge pass).
"""

from __future__ import annotations

from drafter.ids import slug
from drafter.model import Block, Record
from graph.proposer import PlanItem
from graph.proposers.offline.prose import join_names, para, where
from graph.proposers.offline.rank import dir_of, path_class
from graph.proposers.offline.recipe import DraftContext, PlanState, file_stem
from graph.proposers.offline.sentences import in_example
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

MAX_PROMPTS = 4


def common_dir(paths: list[str]) -> str:
    parts = [p.split("/")[:-1] for p in paths]
    common: list[str] = []
    for level in zip(*parts, strict=False):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) + "/" if common else "the repository root"


def prompt_groups(ix: SurveyIndex) -> dict[str, list[Finding]]:
    """One group per prompt file or named instruction string, with its rules."""
    groups: dict[str, list[Finding]] = {}
    for f in ix.category(Category.PROMPT):
        if f.kind == "prompt_file":
            groups.setdefault(f"file:{f.path}", []).append(f)
        elif f.kind == "instruction_string":
            name = str(f.detail.get("name") or f"{f.symbol}:{f.start_line}")
            groups.setdefault(f"str:{f.path}:{name}", []).append(f)
    for f in ix.category(Category.PROMPT):
        if f.kind == "prompt_rule" and str(f.detail.get("of")) in groups:
            groups[str(f.detail["of"])].append(f)
    return groups


def prompt_families(ix: SurveyIndex, groups: dict[str, list[Finding]]) -> dict[str, list[str]]:
    """Groups an analyst reviews together, keyed by a sortable family name."""
    loader: dict[str, str] = {}
    for f in ix.category(Category.PROMPT):
        if f.kind in ("prompt_load", "prompt_read") and f.detail.get("file"):
            loader.setdefault(f"file:{f.detail['file']}", f.node)
    by_loader: dict[str, list[str]] = {}
    for key in groups:
        if key in loader:
            by_loader.setdefault(loader[key], []).append(key)
    fam: dict[str, list[str]] = {}
    for key, fs in groups.items():
        cls = path_class(fs[0].path)
        if key.startswith("file:"):
            node = loader.get(key)
            shared = node is not None and len(by_loader[node]) > 1
            fam.setdefault(f"{cls}:1:{node if shared else key}", []).append(key)
        else:
            fam.setdefault(f"{cls}:0:{dir_of(fs[0].path)}", []).append(key)
    return {k: sorted(v) for k, v in fam.items()}


def _example(f: Finding, ctx: DraftContext) -> bool:
    """A rule line inside a worked example the prompt shows (a few-shot answer): the
    prompt's words, but not a rule it states."""
    text = ctx.text_of(f.path) if ctx.text_of else None
    return text is not None and in_example(text.splitlines(), f.start_line)


def _names(heads: list[Finding]) -> str:
    """The named texts, then how many unnamed strings (never ``<module>:106``)."""
    named = [_name(h) for h in heads if h.kind == "prompt_file" or h.detail.get("name")]
    unnamed = len(heads) - len(named)
    if unnamed:
        named.append(f"{unnamed} unnamed string{'s' if unnamed > 1 else ''}")
    return join_names(named, 4)


def _name(f: Finding) -> str:
    if f.kind == "prompt_file":
        return f.path.rsplit("/", 1)[-1]
    return str(f.detail.get("name") or f"{f.symbol}:{f.start_line}")


class Prompts:
    name = "prompt"
    kind = "OBJ"

    def plan(self, st: PlanState) -> list[PlanItem]:
        groups = prompt_groups(st.ix)
        items = []
        for _fam, keys in sorted(prompt_families(st.ix, groups).items()):
            heads = [groups[k][0] for k in keys]
            rules = [f for k in keys for f in groups[k][1:]]
            f = heads[0]
            if len(keys) > 1:
                where_ = common_dir([h.path for h in heads])
                noun = "prompt files" if f.kind == "prompt_file" else "instructions"
                label = f"Shipped {noun} in {where_}: {_names(heads)}"
                s = slug("prompts", where_.rstrip("/").rsplit("/", 1)[-1] or "root")
                names = [_name(h) for h in heads]
                if len(set(names)) < len(names):
                    label += f" ({len(names)} definitions in {len({h.path for h in heads})} files)"
            elif f.kind == "prompt_file":
                label = f"Shipped prompt file: {f.path}"
                s = slug("prompt", file_stem(f.path))
            else:
                label, s = f"Shipped instruction: {_name(f)} in {f.path}", slug("prompt", _name(f))
            items.append(
                st.item(
                    self,
                    s,
                    label,
                    heads + rules[:6],
                    "Natural-language instruction shipped with the code.",
                    {"heads": [h.id for h in heads]},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        head_ids = set(ctx.item.hints.get("heads", []))
        heads = [f for f in ctx.findings if f.id in head_ids] or ctx.findings[:1]
        rules = [f for f in ctx.findings if f not in heads and not _example(f, ctx)]
        described = join_names(
            [
                f"{h.path} ({h.detail.get('lines', '?')} lines)"
                if h.kind == "prompt_file"
                else f"{h.detail.get('name') or 'an unnamed string'} in {where(h)}"
                for h in heads
            ],
            5,
        )
        if len(heads) > 1:
            described = f"{len(heads)} instruction texts reviewed together: {described}"
        consumer = (
            "It is delivered to a model where the code passes it in messages or as a system "
            "prompt; compliance is requested, not enforced."
            if heads[0].kind != "prompt_file"
            else "Which process reads it is established by the authority paths that name it."
        )
        blocks: list[Block] = [
            para(
                f"Source-native identity: {described}. Representational form: natural-language "
                "instruction. Storage substrate: repository file at the pinned revision."
            ),
            para(consumer),
        ]
        # the text's opening, then the rule sentences it states
        return ctx.record(blocks, heads[:1] + rules[:2] + heads[1:] + rules[2:])
