"""Claims: documented promises about runtime behaviour, each beside the code to check.

What is a runtime claim: a sentence of documentation, an instruction file or a tool
description that promises behaviour (never, always, only, must, by default...).
What is not: setup, installation and platform notes ("supports Python 3.9",
"pip install ..."), headings, and the same sentence said twice (merged, with every
place it is said kept as a fact).  The code a claim bears on is found by hybrid
search over the revision's chunks when the index is available (the chunk that
implements or enforces the claim, quoted by its deciding line), and by the names
the claim shares with survey findings otherwise.
"""

from __future__ import annotations

import re

from drafter.ids import slug
from drafter.model import Block, LineRange, Record, Witness, WitnessBlock
from drafter.text import clip, collapse
from graph.proposer import PlanItem
from graph.proposers.offline.deciding import deciding_quote
from graph.proposers.offline.langs import is_source
from graph.proposers.offline.prose import TextOf, join_names, para, sentence_witness, witness
from graph.proposers.offline.rank import path_class
from graph.proposers.offline.recipe import DraftContext, PlanState
from graph.proposers.offline.sentences import in_example, shows_example, whole_sentence
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

MAX_CLAIMS = 5
_STRONG_CLAIM = re.compile(
    r"\b(never|always|only|must|cannot|can't|no (?:internet|network|access)|guarantee|ensures?|"
    r"persist\w*|sandbox\w*|isolat\w*|automatically|read-only|counts? as|immutable|not saved|"
    r"untrusted|by default)\b",
    re.I,
)
#: Setup, installation and platform notes: true or not, they say nothing about a run.
_SETUP = re.compile(
    r"\b(pip3?|conda|install\w*|requirements?\.txt|python ?3\.\d+|versions? \d|docker build|"
    r"platforms?|linux|mac ?os|windows|gpus?|cuda|nvidia|apt(-get)?|brew|virtualenv|venv|"
    r"api[_ ]?keys?|\w+_API_KEY|export [A-Z_]+|supports? python|compatib\w+|licen[cs]e\w*|"
    r"citation|cite)\b",
    re.I,
)
_STOP = frozenset(
    "which there their these those about would should every always never agent only must cannot "
    "the that with from this when then than into your have been will each what also more most "
    "some such them they were does done make made used uses using file files code default".split()
)
_EFFECTS = (
    Category.GATING,
    Category.PERSISTENCE,
    Category.EXEC_EFFECT,
    Category.TOOL_DISPATCH,
    Category.MODEL_CALL,
    Category.READ_BACK,
)


_SOURCE = {
    "doc_sentence": "documentation",
    "docstring": "a docstring",
    "tool_description": "a tool description",
    "instruction_rule": "a rule in an instruction file",
}


def sentence_of(f: Finding) -> str:
    return f.detail.get("sentence", "")


def _norm(sentence: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", sentence.lower()))


def runtime_claim(f: Finding) -> bool:
    """A strong promise about behaviour, not a heading, list lead-in or setup note."""
    s = sentence_of(f).strip()
    if not _STRONG_CLAIM.search(s) or _SETUP.search(s) or not whole_sentence(s):
        return False
    return not s.endswith(":") and not re.match(r"^\w+(\[[^\]]*\])?\s*:", s)


def said_as_example(f: Finding, text_of: TextOf | None) -> bool:
    """Whether the claim's line sits in a worked example the text shows (a few-shot
    answer in a prompt), or runs from a lead-in into the sample it introduces: either
    way the repository does not assert it."""
    if shows_example(str(f.detail.get("sentence") or "")):
        return True
    text = text_of(f.path) if text_of else None
    return text is not None and in_example(text.splitlines(), f.start_line)


def stems(sentence: str) -> set[str]:
    out = set()
    for w in re.findall(r"[A-Za-z_][A-Za-z0-9_./-]{3,}", sentence):
        w = w.lower().strip("./-_`*")
        for suffix in ("ing", "es", "ed", "s"):
            if len(w) > 5 and w.endswith(suffix):
                w = w[: -len(suffix)]
                break
        if len(w) >= 4 and w not in _STOP:
            out.add(w)
    return out


_IDENT = re.compile(r"`([^`]+)`|\b([A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]*|[\w-]+\.[a-z]{2,5})\b")


def code_names(ix: SurveyIndex) -> set[str]:
    """Names the repository's code uses: function names, Python file names, and
    identifiers with an underscore or a file extension in its Python findings."""
    out = {n.symbol.rsplit(".", 1)[-1] for n in ix.survey.call_graph.functions.values()}
    for node in ix.survey.call_graph.functions:
        path = node.split("::", 1)[0]
        out.update({path, path.rsplit("/", 1)[-1]})
    for f in ix.survey.findings:
        if is_source(f.path) and f.category != Category.CLAIM:
            out.update(
                w
                for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[a-z]{2,5}\b)?", f.snippet)
                if "_" in w.strip("_") or "." in w
            )
    return {n for n in out if len(n) >= 4}


def claim_identifiers(sentence: str, names: set[str]) -> list[str]:
    """Names a claim mentions that the code also uses (``val_score``, ``results.tsv``)."""
    found: list[str] = []
    for m in _IDENT.finditer(sentence):
        raw = (m.group(1) or m.group(2) or "").strip()
        for cand in (raw, raw.rstrip("/").rsplit("/", 1)[-1]):
            if cand in names and cand not in found:
                found.append(cand)
                break
    return found


def related_findings(
    ctx_findings: list[Finding], sentence: str, idents: list[str], limit: int = 2
) -> list[Finding]:
    """Effect findings sharing distinctive words with the claim (each identifier the
    claim names and the finding's line uses counts three), most shared first."""
    want = stems(sentence)
    scored = []
    for f in ctx_findings:
        if f.category not in _EFFECTS or f.path.endswith(".md"):
            continue
        own = " ".join([f.snippet, f.symbol, *(str(v) for v in f.detail.values())])
        hit = sum(1 for s in want if s in own.lower())
        hit += 3 * sum(1 for n in idents if re.search(rf"(?<![\w.]){re.escape(n)}\b", own))
        if hit >= 2:
            scored.append((-hit, path_class(f.path), f.path, f.start_line, f))
    scored.sort(key=lambda t: t[:4])
    return [t[4] for t in scored[:limit]]


class Claims:
    name = "claim"
    kind = "CLM"

    def plan(self, st: PlanState) -> list[PlanItem]:
        groups: dict[str, list[Finding]] = {}
        for f in st.ix.category(Category.CLAIM):
            if runtime_claim(f) and not said_as_example(f, st.text_of):
                groups.setdefault(_norm(sentence_of(f)), []).append(f)
        names = code_names(st.ix)
        ranked = sorted(
            groups.values(),
            key=lambda fs: (
                min(path_class(f.path) for f in fs),
                # a rule naming something the code defines can be checked against it
                0 if claim_identifiers(sentence_of(fs[0]), names) else 1,
                {"doc_sentence": 0, "instruction_rule": 0, "tool_description": 1}.get(
                    fs[0].kind, 2
                ),
                fs[0].path.count("/"),
                fs[0].path,
                fs[0].start_line,
            ),
        )
        items: list[PlanItem] = []
        n_rules = 0
        for fs in ranked:
            if len(items) >= MAX_CLAIMS:
                break
            if fs[0].kind == "instruction_rule":  # no more than half from instruction files
                if n_rules >= MAX_CLAIMS // 2:
                    continue
                n_rules += 1
            sentence = sentence_of(fs[0])
            idents = claim_identifiers(sentence, names)
            related = related_findings(
                [x for c in _EFFECTS for x in st.ix.category(c)], sentence, idents
            )
            words = re.findall(r"[A-Za-z]{4,}", sentence)[:4]
            items.append(
                st.item(
                    self,
                    slug(*words),
                    "Claim: " + clip(re.sub(r"[`*]|__", "", sentence), 80, at_word=True),
                    [*fs[:3], *related],
                    f"A sentence in {fs[0].path} that promises behaviour.",
                    {
                        "claim": fs[0].id,
                        "sentence": sentence,
                        "said_at": [f.id for f in fs],
                        "identifiers": idents,
                    },
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        said_ids = ctx.item.hints.get("said_at") or [ctx.findings[0].id]
        said = [f for f in ctx.findings if f.id in said_ids]
        if not said:
            return None
        c, sentence = said[0], str(ctx.item.hints.get("sentence") or sentence_of(said[0]))
        said_text = sentence.strip()
        if not re.search(r"[.!?][\"')”’]*$", said_text):
            said_text += "."  # the next sentence of the template must not run into it
        blocks: list[Block] = [
            para(
                f"Claimed operation: {said_text} Source: {_SOURCE.get(c.kind, 'text')} in "
                f"{c.path}:{c.start_line}"
                + (
                    " (said again at "
                    + join_names([f"{f.path}:{f.start_line}" for f in said[1:]], 3)
                    + ")"
                    if len(said) > 1
                    else ""
                )
                + "."
            )
        ]
        w = (
            sentence_witness(c, sentence, ctx.text_of)
            if c.kind in ("doc_sentence", "instruction_rule")
            else None
        )
        if w is None:
            blocks += ctx.witnesses([c], 1)
        else:
            blocks.append(WitnessBlock(witness=w))
        code = search_code(ctx, sentence) if ctx.search is not None else []
        how = "found by hybrid search over the revision's code for the claim"
        if not code:
            fallback = [f for f in ctx.findings if f not in said]
            code = [b for b in ctx.witnesses(fallback, ctx.limits.witnesses - 1)]
            idents = ctx.item.hints.get("identifiers") or []
            how = (
                f"found by the names it shares with the claim ({join_names(idents, 3)})"
                if idents
                else "found by the words it shares with the claim"
            )
        if code:
            blocks.insert(
                1,
                para(
                    f"Code the claim bears on, {how}: the quotes below are the lines to compare. "
                    "Whether this code implements the claim, narrows it or contradicts it on every "
                    "path is not established by the offline survey."
                ),
            )
            blocks += code[: ctx.limits.witnesses - 1]
        else:
            blocks.insert(
                1,
                para(
                    "No code that implements or contradicts it was found; "
                    "implementation scope is unknown."
                ),
            )
        return Record(id=ctx.item.id, label=ctx.item.label, blocks=blocks)


def search_code(ctx: DraftContext, sentence: str) -> list[Block]:
    """Witnesses for the code chunks hybrid search ranks highest for the claim: in each
    chunk, the survey finding it holds (the gate, the write, the call) or else the line
    sharing most words with the claim."""
    assert ctx.search is not None
    want = stems(sentence)
    own = min(1, path_class(ctx.findings[0].path)) if ctx.findings else 0
    out: list[Block] = []
    for hit in ctx.search(sentence, 8, None):
        path, text = str(hit.get("path") or ""), str(hit.get("text") or "")
        # the system's own code; supporting code only for a claim made about it
        if not is_source(path) or path_class(path) > own or not hit.get("start"):
            continue
        w = _deciding_line(
            ctx, path, int(hit["start"]), int(hit.get("end") or hit["start"]), text, want
        )
        if w is not None and all(
            not isinstance(b, WitnessBlock)
            or b.witness.path != w.path
            or b.witness.quote != w.quote
            for b in out
        ):
            out.append(WitnessBlock(witness=w))
        if len(out) >= 2:
            break
    return out


def _code_line(line: str) -> bool:
    """A line of code, not a comment, docstring or prose (which would quote the claim
    back instead of the code that decides it)."""
    s = line.strip()
    if len(s) < 8 or s.startswith(("#", '"', "'")):
        return False
    return re.search(r"[(=<>\[]", s) is not None


def _deciding_line(
    ctx: DraftContext, path: str, start: int, end: int, text: str, want: set[str]
) -> Witness | None:
    if ctx.ix is not None:
        inside = [
            f
            for f in ctx.ix.by_path.get(path, [])
            if f.category in _EFFECTS and start <= f.start_line <= end
        ]
        for f in sorted(
            inside, key=lambda f: (-sum(s in f.snippet.lower() for s in want), f.start_line)
        ):
            found = witness(f, ctx.text_of)
            if found is not None and deciding_quote(found.quote):
                return found
    best, best_n = None, 0
    in_doc = False
    for i, line in enumerate(text.split("\n")):
        quotes = line.count('"""') + line.count("'''")
        was_doc, in_doc = in_doc, in_doc != (quotes % 2 == 1)
        if was_doc or quotes:  # docstring text would quote the claim back
            continue
        low = line.lower()
        n = sum(1 for s in want if s in low)
        if n > best_n and _code_line(line) and deciding_quote(line):
            best, best_n = (i, line), n
    if best is None or best_n < 2:
        return None
    return Witness(
        quote=collapse(best[1]),
        path=path,
        lines=LineRange(start=start + best[0], end=start + best[0]),
    )
