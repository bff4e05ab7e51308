"""Behavioral-authority paths: how text, state or code comes to govern behaviour.

Recipes: ``prompt_to_model`` (shipped instruction strings placed in a model's
request), ``prompt_file`` (a prompt file read at run time, and who rewrites it),
``state_gate`` (persisted results read back where the code decides), ``loaded_code``
(repository or plugin code imported or executed at run time) and
``self_modification`` (what a run produces becomes the code, prompt or state the next
run obeys: a write whose target the system later loads, reads as instruction or
decides from).
"""

from __future__ import annotations

import re

from drafter.ids import slug
from drafter.model import Record
from drafter.text import clip
from graph.proposer import PlanItem
from graph.proposers.offline.promptflow import prompt_consumer
from graph.proposers.offline.prose import join_names, para, short_symbol, where
from graph.proposers.offline.rank import decisive_rank, path_class
from graph.proposers.offline.recipe import DraftContext, PlanState, file_stem
from retrieval.survey import Finding
from retrieval.survey.model import Category

MAX_LOADED = 2
_DYNAMIC_KINDS = {
    "import_module",
    "exec_module",
    "spec_from_file",
    "module_from_spec",
    "run_path",
    "plugin_scan",
    "entry_points",
    "reload",
}


def _bap(ctx: DraftContext, lead: str, wit: list[Finding]) -> Record:
    return ctx.record([para(lead)], wit)


class PromptToModel:
    name = "prompt_to_model"
    kind = "BAP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        items = []
        for it in st.of_recipe("endpoint"):
            files = set(it.files)
            prompts = [
                p
                for p in st.ix.category(Category.PROMPT)
                if p.path in files and p.kind in ("instruction_string", "system_message")
            ]
            calls = [
                f
                for f in st.ix.findings(it.facts)
                if f.category == Category.MODEL_CALL and f.kind != "client"
            ]
            if prompts and calls:
                items.append(
                    st.item(
                        self,
                        slug("prompt-to", it.id.split("-", 2)[2]),
                        f"Shipped instructions to the model of {it.id}",
                        prompts[:3] + calls[:1],
                        f"Instructions reach the model of {it.id}.",
                        {"component": it.id},
                    )
                )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        prompts = [f for f in ctx.findings if f.category == Category.PROMPT]
        calls = [f for f in ctx.findings if f.category == Category.MODEL_CALL]
        if not prompts or not calls:
            return None
        names = join_names(
            [str(p.detail.get("name") or p.detail.get("content") or p.kind) for p in prompts], 3
        )
        # the component is named only when the budget kept it: a record may not cite a
        # record the draft does not hold
        component = str(ctx.item.hints.get("component") or "")
        kept = any(i.id == component for i in ctx.plan.items)
        cite = f" ({component})" if kept else ""
        lead = (
            f"Consumer: the model called at {where(calls[0])}{cite}. "
            f"Channel: instruction text {names} placed in the request. Force: requested "
            "behaviour; compliance is not enforced by the code. Horizon: every call made by "
            f"{short_symbol(calls[0].node)} while the text stays as it is."
        )
        record = _bap(ctx, lead, calls[:1] + prompts)
        if not kept and component and component in record.label:  # the plan's label names it
            label = f"Shipped instructions to the model called in {short_symbol(calls[0].node)}"
            record = record.model_copy(update={"label": label})
        return record


class PromptFile:
    name = "prompt_file"
    kind = "BAP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        items = []
        prompts = st.ix.category(Category.PROMPT)
        for pfile in [f for f in prompts if f.kind == "prompt_file"]:
            reads = [
                f for f in prompts if f.kind == "prompt_read" and f.detail.get("file") == pfile.path
            ]
            if not reads:
                continue
            loads = [
                f for f in prompts if f.kind == "prompt_load" and f.detail.get("file") == pfile.path
            ]
            # a caller in tests or examples builds the reader to try it: its model is not
            # where the shipped text goes
            near = {r.node for r in reads} | {
                c
                for r in reads
                for c in st.ix.callers.get(r.node, set())
                if path_class(c.split("::", 1)[0]) <= path_class(pfile.path)
            }
            calls = [
                f
                for f in st.ix.category(Category.MODEL_CALL)
                if f.node in near and f.kind != "client"
            ]
            consumer = None if calls else prompt_consumer(st.ix, reads, st.text_of)
            via = {str(r.detail.get("via")) for r in reads}
            writers = [
                f
                for f in st.ix.category(Category.PERSISTENCE)
                if any(v and v in f.detail.get("target", "") for v in via)
            ]
            base = file_stem(pfile.path)
            items.append(
                st.item(
                    self,
                    slug("prompt-file", base),
                    f"Prompt file {pfile.path} to the model"
                    if calls or consumer
                    else f"Prompt file {pfile.path} read by code",
                    [pfile, *reads[:2], *calls[:1], *writers[:2], *loads[:1]],
                    "Shipped instruction text read at run time.",
                    {
                        "file": pfile.id,
                        "reads": [r.id for r in reads[:2]],
                        "calls": [c.id for c in calls[:1]],
                        "writers": [w.id for w in writers[:2]],
                        "loads": [x.id for x in loads[:1]],
                        "consumer": consumer.where() if consumer else "",
                    },
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        h = ctx.item.hints
        by_id = {f.id: f for f in ctx.findings}
        pfile = by_id.get(str(h.get("file")))
        reads = [by_id[i] for i in h.get("reads", []) if i in by_id]
        calls = [by_id[i] for i in h.get("calls", []) if i in by_id]
        writers = [by_id[i] for i in h.get("writers", []) if i in by_id]
        loads = [by_id[i] for i in h.get("loads", []) if i in by_id]
        if pfile is None or not reads:
            return None
        followed = str(h.get("consumer") or "")
        consumer = (
            f"the model called at {where(calls[0])}"
            if calls
            else f"the model called in {followed}, which uses the text read here"
            if followed
            else "whatever receives the text read at " + join_names([where(r) for r in reads], 2)
        )
        horizon = (
            "every read after the file changes; the file is also rewritten by "
            + join_names([where(w) for w in writers], 2)
            + ", so the system's own output can change its later instructions"
            if writers
            else "every read after the file changes; edits take effect without code changes"
        )
        lead = (
            f"Consumer: {consumer}. Channel: {pfile.path} read at run time by "
            f"{join_names([where(r) for r in reads], 2)}. Force: natural-language instruction; "
            f"compliance is not enforced by the code. Horizon: {horizon}."
        )
        return _bap(ctx, lead, [*reads[:1], *writers[:1], *calls[:1], *loads, *reads[1:]])


class StateGate:
    name = "state_gate"
    kind = "BAP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        gate_nodes = {f.node for f in st.ix.category(Category.GATING) if decisive_rank(f) <= 1}
        found: dict[str, list[Finding]] = {}
        for it in st.of_recipe("artifact"):
            for r in st.ix.findings(it.facts):
                if r.category != Category.READ_BACK:
                    continue
                deciders = [r.node] if r.node in gate_nodes else []
                deciders += sorted(c for c in st.ix.callers.get(r.node, set()) if c in gate_nodes)
                # an analysis script or a test deciding from the state steers no run
                for d in [d for d in deciders if path_class(d.split("::")[0]) == 0][:1]:
                    found.setdefault(d, []).append(r)
        items = []
        for node, reads in sorted(found.items(), key=lambda kv: (path_class(kv[0]), kv[0]))[:2]:
            gates = sorted(
                (f for f in st.ix.at(node) if f.category == Category.GATING),
                key=lambda f: (decisive_rank(f), f.start_line),
            )
            items.append(
                st.item(
                    self,
                    slug("state-to", short_symbol(node).rstrip("()")),
                    f"Retained state to the gate in {short_symbol(node)}",
                    [*reads[:2], *gates[:2]],
                    "Persisted results read back where the code decides.",
                    {"node": node},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        reads = [f for f in ctx.findings if f.category == Category.READ_BACK]
        gates = [f for f in ctx.findings if f.category == Category.GATING]
        if not reads:
            return None
        node = str(ctx.item.hints.get("node") or reads[0].node)
        files = join_names(
            [
                str(
                    r.detail.get("target_value")
                    or r.detail.get("written_value")
                    or r.detail.get("file")
                    or r.detail.get("target")
                )
                for r in reads
            ],
            3,
        )
        lead = (
            f"Consumer: {short_symbol(node)} in {node.split('::')[0]}. Channel: symbolic files "
            f"read back ({files}) at {join_names([where(r) for r in reads], 3)}. Force: fixed "
            "predicates in code decide from what was read"
            + (
                f" ({join_names([clip(g.snippet, 60, at_word=True) for g in gates], 2)})"
                if gates
                else ""
            )
            + "; the files are trusted as written. Horizon: every later run while the files "
            "persist."
        )
        return _bap(ctx, lead, gates[:1] + reads[:1] + gates[1:] + reads[1:])


_LOAD_STEPS = {
    "spec_from_file": "a module spec made from a file",
    "module_from_spec": "a module made from the spec",
    "exec_module": "the module executed",
    "import_module": "a module imported by name",
    "run_path": "a file run as a script",
    "reload": "a module reloaded",
    "plugin_scan": "plugins found by scanning",
    "entry_points": "installed entry points",
    "exec_eval": "text run with exec/eval",
}
#: Kinds whose target names the code itself (the later steps only pass objects on).
_NAMES_CODE = ("spec_from_file", "import_module", "run_path", "exec_eval", "plugin_scan")


def _load_channel(fs: list[Finding]) -> str:
    """How the code is loaded, step by step, and what names it: ``a module spec made
    from a file, a module made from the spec, then the module executed; the code is named
    by `path`` -- never the intermediate objects (``spec``, ``module``) as targets."""
    steps = list(dict.fromkeys(_LOAD_STEPS.get(x.kind, x.kind.replace("_", " ")) for x in fs))
    how = steps[0] if len(steps) == 1 else ", ".join(steps[:-1]) + ", then " + steps[-1]
    named = next((x for x in fs if x.kind in _NAMES_CODE), None)
    target = str(named.detail.get("target") or named.detail.get("command") or "") if named else ""
    return how + (f"; the code is named by `{clip(target, 60, at_word=True)}`" if target else "")


class LoadedCode:
    name = "loaded_code"
    kind = "BAP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        dyn: dict[str, list[Finding]] = {}
        for f in st.ix.category(Category.TOOL_DISPATCH) + st.ix.category(Category.EXEC_EFFECT):
            if f.kind not in _DYNAMIC_KINDS and f.kind != "exec_eval":
                continue
            lit = re.fullmatch(r"""['"]([\w.]+)['"]""", f.detail.get("target", "").strip())
            if lit and lit.group(1) not in st.repo_modules:
                continue  # a fixed external library import: no repository-controlled code
            dyn.setdefault(f.node, []).append(f)
        items = []
        for node, fs in sorted(dyn.items(), key=lambda kv: (path_class(kv[0]), kv[0])):
            items.append(
                st.item(
                    self,
                    slug("code-to", short_symbol(node).rstrip("()")),
                    f"Loaded code to {short_symbol(node)}",
                    fs[:4],
                    "Repository or plugin code gains authority by being imported or executed.",
                    {"node": node},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        fs = ctx.findings
        if not fs:
            return None
        f = fs[0]
        lead = (
            f"Consumer: {short_symbol(f.node)} in {f.path}. Channel: {_load_channel(fs)}. "
            "Force: the loaded code runs with the full authority of the importing process; the "
            "survey shows no sandbox or allow-list at this point. "
            f"Horizon: each call of {short_symbol(f.node)}; "
            "edits to the loaded files take effect at the next load."
        )
        return _bap(ctx, lead, fs)
