"""Prompts: natural-language instruction shipped with the code (operative objects).

Prompt files one function selects among or composes are one object; instruction
strings in sibling modules of one directory (one per variant of an agent) are one
object.  A prompt file the code only composes into a program for an outside agent is
left to the artifact it becomes (see the plan's merge pass).
"""

from __future__ import annotations

import re

from drafter.ids import slug
from drafter.model import Block, Record
from graph.proposer import PlanItem
from graph.proposers.offline.langs import is_source
from graph.proposers.offline.promptflow import prompt_consumer
from graph.proposers.offline.prose import TextOf, join_names, para, where
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


def _model_nodes(ix: SurveyIndex) -> set[str]:
    return {f.node for f in ix.category(Category.MODEL_CALL) if f.kind != "client"}


class PromptReach:
    """Answers "is this instruction text sent to a model?" for every prompt of one plan.

    Built once per plan: the files that may name a module-level text (own and supporting
    code), their lines, each file's functions by start line and an identifier-to-files
    index are computed once, and each function's "reaches a model" answer is memoised, so
    the test costs about the size of the repository in all rather than once per prompt.
    """

    def __init__(self, ix: SurveyIndex, text_of: TextOf | None):
        self.ix = ix
        self.text_of = text_of
        self.models = _model_nodes(ix)
        self._reach: dict[str, bool] = {}
        self._lines: dict[str, list[str] | None] = {}
        self._functions: dict[str, list[tuple[int, int, str]]] = {}
        for fn in ix.survey.call_graph.functions.values():
            if not fn.symbol.startswith("<"):
                self._functions.setdefault(fn.path, []).append((fn.start_line, fn.end_line, fn.id))
        self._paths = sorted(
            path for path in self._functions if is_source(path) and path_class(path) < 2
        )
        self._words: dict[str, list[str]] | None = None

    def lines(self, path: str) -> list[str] | None:
        """The lines of ``path`` (None when its text cannot be had), read once."""
        if path not in self._lines:
            text = self.text_of(path) if self.text_of is not None else None
            self._lines[path] = text.splitlines() if isinstance(text, str) else None
        return self._lines[path]

    def enclosing(self, path: str, line: int) -> str | None:
        """The innermost function of ``path`` holding ``line`` (None at module level)."""
        best: tuple[int, str] | None = None
        for start, end, fid in self._functions.get(path, []):
            if start <= line <= end and (best is None or start > best[0]):
                best = (start, fid)
        return best[1] if best else None

    def returns_value(self, node: str) -> bool:
        """Whether a function hands a value back (``return prompt``): only then can the
        text it builds reach a model through its caller."""
        fn = self.ix.survey.call_graph.functions.get(node)
        lines = self.lines(fn.path) if fn is not None else None
        if fn is None or lines is None:
            return False
        body = lines[fn.start_line - 1 : fn.end_line]
        return any(re.match(r"\s*return\s+[^\s#]", line) for line in body)

    def _node_reaches(self, node: str) -> bool:
        if node not in self._reach:
            self._reach[node] = node in self.models or any(
                n in self.models for n in self.ix.reachable(node)
            )
        return self._reach[node]

    def reaches(self, node: str) -> bool:
        """``node`` reaches a model call, or it returns a value and a caller of it does
        (the text built in ``get_prompt()`` is sent by the function that calls it and then
        the model).  A function that only writes the text out (a script to a file) is not
        followed to its callers: what they reach is not where the text goes."""
        nodes = [node]
        if self.returns_value(node):
            nodes += sorted(self.ix.callers.get(node, set()))
        return any(self._node_reaches(n) for n in nodes)

    def _naming(self, name: str) -> list[str]:
        """The candidate files whose text holds ``name``: by the identifier index for a
        plain identifier, by a substring scan otherwise."""
        if re.fullmatch(r"\w+", name):
            if self._words is None:
                self._words = {}
                for path in self._paths:
                    lines = self.lines(path)
                    if lines is not None:
                        for w in set(re.findall(r"\w+", "\n".join(lines))):
                            self._words.setdefault(w, []).append(path)
            return self._words.get(name, [])
        return [p for p in self._paths if name in "\n".join(self.lines(p) or [])]

    def sent(self, f: Finding) -> bool:
        """Whether an instruction string is text the code sends to a model: the function
        it is built in (or that function's caller) reaches a model call, or, for a
        module-level text, a function that names it does.  A shell script or a Dockerfile
        kept in a constant is shipped text too, but no model reads it: it is not a prompt.
        A repository that calls no model itself hands its texts to an outside agent: all
        count."""
        if not self.models or f.kind != "instruction_string":
            return True
        if not f.node.split("::", 1)[-1].startswith("<"):
            return self.reaches(f.node)
        name = str(f.detail.get("name") or "")
        if not name or self.text_of is None:
            return True
        word = re.compile(rf"\b{re.escape(name)}\b")
        bounds = str(f.detail.get("string_lines", "")).split("-")
        own = range(int(bounds[0]), int(bounds[-1]) + 1) if bounds[0].isdigit() else range(0)
        for path in self._naming(name):
            for n, line in enumerate(self.lines(path) or [], 1):
                if (path == f.path and n in own) or not word.search(line):
                    continue
                node = self.enclosing(path, n)
                if node is not None and self.reaches(node):
                    return True
        return False


def sent_to_model(ix: SurveyIndex, f: Finding, text_of: TextOf | None) -> bool:
    """Whether one instruction string is sent to a model (see :class:`PromptReach`)."""
    return PromptReach(ix, text_of).sent(f)


def _chars(ix: SurveyIndex, groups: dict[str, list[Finding]], keys: list[str]) -> int:
    """How much instruction text a family holds (a prompt file by its lines)."""
    heads = [groups[k][0] for k in keys]
    return sum(
        int(h.detail.get("chars") or 0) or 40 * int(h.detail.get("lines") or 0) for h in heads
    )


def _sent_at(st: PlanState, heads: list[Finding]) -> str:
    """Where the text of prompt files the code reads is sent to a model (empty when the
    code shows no such use): see :mod:`graph.proposers.offline.promptflow`."""
    files = {h.path for h in heads}
    reads = [
        f
        for f in st.ix.category(Category.PROMPT)
        if f.kind == "prompt_read" and f.detail.get("file") in files
    ]
    consumer = prompt_consumer(st.ix, reads, st.text_of) if reads else None
    return consumer.where() if consumer else ""


class Prompts:
    name = "prompt"
    kind = "OBJ"

    def plan(self, st: PlanState) -> list[PlanItem]:
        groups = prompt_groups(st.ix)
        # only text the code sends to a model is a prompt
        reach = PromptReach(st.ix, st.text_of)
        groups = {k: v for k, v in groups.items() if reach.sent(v[0])}
        families = prompt_families(st.ix, groups)
        # own code first, then the families holding the most instruction text
        ranked = sorted(
            families.items(), key=lambda kv: (kv[0][:4], -_chars(st.ix, groups, kv[1]), kv[0])
        )
        items = []
        for _fam, keys in ranked:
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
            sent = _sent_at(st, heads) if f.kind == "prompt_file" else ""
            items.append(
                st.item(
                    self,
                    s,
                    label,
                    heads + rules[:6],
                    "Natural-language instruction shipped with the code.",
                    {"heads": [h.id for h in heads], "sent": sent},
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
        sent = str(ctx.item.hints.get("sent") or "")
        consumer = (
            "It is delivered to a model where the code passes it in messages or as a system "
            "prompt; compliance is requested, not enforced."
            if heads[0].kind != "prompt_file"
            else f"The code reads it and sends it to a model: {sent} uses the text read and "
            "calls a model; compliance is requested, not enforced."
            if sent
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
