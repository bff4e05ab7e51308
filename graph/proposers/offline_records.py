"""Record builders of the offline proposer, one per record kind.

Prose is templated but names what the survey found: functions, files, values.  What
a static survey cannot know (whether a run happened, what a model did, whether a file
is read back later) is said to be unknown rather than guessed.  Every witness is cut
from a finding's snippet, i.e. the file's own lines at the pinned revision.
"""

from __future__ import annotations

import re

from drafter.model import Block, Record
from graph.proposer import Plan, PlanItem
from graph.proposers.offline_plan import artifact_key, decisive_rank
from graph.proposers.offline_text import (
    TextOf,
    bullet,
    clip,
    join_names,
    para,
    sentence_witness,
    short_symbol,
    wblock,
    where,
    witness,
)
from retrieval.survey import Finding

EVIDENCE_LIMITS = (
    "static survey of the pinned revision only: no execution trace, no model output; the call "
    "graph is best effort (names resolved inside the repository, external libraries and dynamic "
    "dispatch not followed)"
)


def _witness_blocks(fs: list[Finding], text_of: TextOf | None, limit: int = 6) -> list[Block]:
    out: list[Block] = []
    seen: set[tuple[str, str, str]] = set()
    for f in fs:
        if len(out) >= limit:
            break
        w = witness(f, text_of)
        key = (w.path, w.quote, str(w.lines)) if w is not None else ("", "", "")
        if w is None or key in seen:
            continue
        seen.add(key)
        out.append(wblock(w))
    return out


def _component_of(plan: Plan, f: Finding) -> str | None:
    for it in plan.items:
        if it.kind == "CMP" and f.id in it.facts:
            return it.id
    return None


def _object_of(plan: Plan, f: Finding) -> str | None:
    for it in plan.items:
        if it.kind == "OBJ" and f.id in it.facts:
            return it.id
    return None


# -- components -----------------------------------------------------------------------


def component(item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None) -> Record:
    calls = [f for f in fs if f.category == "model_call" and f.kind != "via_wrapper"]
    via = [f for f in fs if f.kind == "via_wrapper"]
    settings = [f for f in fs if f.category == "config_read"]
    if not calls and not via:
        if any(f.kind == "prompt_file" for f in fs):
            return _external_agent_component(item, fs, text_of)
        return _role_component(item, settings, text_of)
    first = calls[0] if calls else (via[0] if via else fs[0])
    provider = first.detail.get("provider", "model")
    model = first.detail.get("model")
    value = first.detail.get("model_value")
    model_txt = (
        f"model {model}" if model else "model not named at the call (passed through arguments)"
    )
    if value and value != model:
        model_txt += f", which resolves in {first.path} to {value}"
    env = [str(s.detail.get("env")) for s in settings if s.detail.get("env")]
    identity = (
        f"Source-native identity: {provider} call {first.detail.get('call', '')} in "
        f"{where(first)}, "
        f"{model_txt}."
    )
    form = (
        "Representational form: distributed-parametric "
        "(an external model reached over its client or API)."
    )
    storage = (
        "Storage substrate: external provider or model deployment, not repository files; "
        "the survey found no weight update on this path, and provider-side model changes "
        "are unknown."
    )
    variants = sorted({c.path for c in calls if c.kind != "client"})
    if len(variants) > 1:
        identity = (
            f"Source-native identity: one agent model reached from {len(variants)} variants "
            f"of the agent ({join_names(variants, 4)}): "
            + join_names(
                [
                    f"{c.detail.get('provider', 'model')} {c.detail.get('call', '')} in "
                    f"{where(c)} ({_model_named(c)})"
                    for c in calls
                    if c.kind != "client"
                ],
                4,
            )
            + "."
        )
    blocks: list[Block] = [para(f"{identity} {form} {storage}")]
    sites = join_names([where(c) for c in calls if c.kind != "client"], 6)
    extra = []
    model_settings = [
        f"{s.detail.get('name')} = {s.detail.get('value')} ({s.path}:{s.start_line})"
        for s in settings
        if s.kind == "model_setting"
    ]
    if model_settings:
        extra.append(f"Model settings in the source: {join_names(model_settings, 3)}.")
    if env:
        extra.append(f"Configuration read by name: {join_names(env)} (values are not recorded).")
    tools = [str(c.detail["tools"]) for c in calls if c.detail.get("tools")]
    if tools:
        extra.append(f"Tools are passed as {join_names(tools, 2)}.")
    if via:
        wrappers = join_names(sorted({short_symbol(str(v.detail.get("via", ""))) for v in via}), 3)
        extra.append(
            f"Reached through the repository's wrappers ({wrappers}) from "
            f"{join_names([where(v) for v in via], 5)}."
        )
    blocks.append(para(f"Call sites: {sites}. " + " ".join(extra)))
    # settings inside the calling functions first: they say which model a call really uses
    call_nodes = {c.node for c in calls}
    settings = sorted(settings, key=lambda s: (s.node not in call_nodes, s.path, s.start_line))
    blocks += _witness_blocks(calls[:3] + settings[:3] + via[:3], text_of, 9)
    return Record(id=item.id, label=item.label, blocks=blocks)


def _model_named(c: Finding) -> str:
    m = c.detail.get("model")
    return f"model argument {m}" if m else "model not named at the call"


def _external_agent_component(item: PlanItem, fs: list[Finding], text_of: TextOf | None) -> Record:
    """The model behind an agent the repository addresses in a program file but never
    calls: everything about it except the instructions it is given is outside the
    repository."""
    pfile, read, write = fs[0], fs[1], fs[2]
    target = write.detail.get("target_value") or write.detail.get("target") or "a file"
    blocks: list[Block] = [
        para(
            f"Source-native identity: the agent addressed by {pfile.path}, which "
            f"{where(read)} reads and writes out to {target} ({where(write)}); no model call "
            "is reachable from that function, so the model that follows the text runs outside "
            "the repository. Representational form: distributed-parametric for its model, "
            "inside an agent runtime the repository does not contain. Storage substrate, "
            "model and version: uninspected — the repository neither selects nor pins them."
        ),
        para(
            "What the repository supplies is instruction: procedure, edit scope and stopping "
            "rules the agent is asked to follow. Whether it reads them, and how faithfully it "
            "complies, depends on that external runtime and is not enforced by this code."
        ),
    ]
    blocks += _witness_blocks([pfile, read, write], text_of, 3)
    return Record(id=item.id, label=item.label, blocks=blocks)


def _role_component(item: PlanItem, settings: list[Finding], text_of: TextOf | None) -> Record:
    """A model role the repository configures but never calls itself: the setting is
    handed to a framework that makes the calls, so only the naming is evidence."""
    role = item.label.split(" model", 1)[0].lower()
    named = join_names(
        [
            f"{s.detail.get('name')} = {s.detail.get('value')} ({s.path}:{s.start_line})"
            for s in settings
        ],
        4,
    )
    blocks: list[Block] = [
        para(
            f"Source-native identity: the {role} model, named in the code's settings as "
            f"{named}. Representational form: distributed-parametric (an external model). "
            "Storage substrate: external provider or model deployment, not repository files."
        ),
        para(
            "No model call in the repository uses this setting directly: it is passed on to "
            "code outside the repository (a benchmark or agent framework), which makes the "
            "calls. Its default, whether it can equal the agent's model, and whether the "
            "endpoint can change between runs are read from the settings quoted below; "
            "the calls themselves are uninspected."
        ),
    ]
    blocks += _witness_blocks(settings, text_of, 4)
    return Record(id=item.id, label=item.label, blocks=blocks)


# -- operative objects ----------------------------------------------------------------

_FORMS = {
    "json": "JSON document",
    "pickle": "pickled Python objects",
    "torch": "serialised tensors/checkpoint",
    "csv": "CSV/TSV table",
    "parquet": "Parquet table",
    "yaml": "YAML document",
    "sqlite": "SQLite database",
    "git": "git commits and working-tree state",
    "numpy": "NumPy array file",
    "model": "saved model weights",
    "figure": "rendered figure",
}


def _form_of(key: str, fs: list[Finding]) -> str:
    kinds = [f.kind for f in fs]
    for k in kinds:
        if k in _FORMS:
            return _FORMS[k]
    ext = key.rsplit(".", 1)[-1].lower() if "." in key.rsplit("/", 1)[-1] else ""
    return {
        "json": "JSON document",
        "jsonl": "JSON lines",
        "tsv": "TSV table",
        "csv": "CSV table",
        "md": "Markdown text",
        "txt": "plain text",
        "log": "log text",
        "py": "executable Python source",
        "yaml": "YAML document",
        "yml": "YAML document",
        "pkl": "pickled Python objects",
    }.get(ext, "file content (format not determined statically)")


def artifact(item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None) -> Record:
    writes = [f for f in fs if f.category == "persistence"]
    reads = [f for f in fs if f.category == "read_back"]
    keys = list(dict.fromkeys(artifact_key(f) for f in writes))
    key = keys[0] if len(keys) == 1 else join_names(keys, 5)
    modes = sorted({str(f.detail.get("mode") or f.kind) for f in writes})
    writers = join_names([where(f) for f in writes], 5)
    names = sorted({str(f.detail.get("target")) for f in writes if f.detail.get("target")})
    ident = f"Source-native identity: {key}"
    if names and names != keys:
        ident += f" (named in code as {join_names(names, 3)})"
    if len(keys) > 1:
        ident += f"; {len(keys)} artifacts reviewed together because they are kept side by side"
    substrate = (
        "the repository's git history"
        if any(f.kind == "git" for f in writes)
        else (
            "local file system, relative to the process's working directory unless the "
            "path is absolute"
        )
    )
    forms = join_names(
        list(dict.fromkeys(_form_of(k, [f for f in writes if artifact_key(f) == k]) for k in keys)),
        4,
    )
    if reads:
        readers = join_names([where(f) for f in reads], 4)
        later = (
            f"Later read-back: {readers} open the same path again, so what one run writes "
            "decides what a later step reads; whether anything checks its provenance is "
            "not established by the survey."
        )
    else:
        later = (
            "Later read-back: none found by the survey (it matches reads that name the same "
            "constant, literal path or file name; reads through other computed paths are not "
            "followed)."
        )
    blocks: list[Block] = [
        para(f"{ident}. Representational form: {forms}. Storage substrate: {substrate}."),
        para(
            f"Written by {writers} ({join_names(modes)}). "
            + ("Appends accumulate across runs. " if "a" in modes or "append" in modes else "")
            + ("Deletions are among the writes. " if "delete" in modes else "")
            + later
        ),
    ]
    sources = [f for f in fs if f.category == "prompt" and f.kind == "prompt_file"]
    if sources:
        blocks.append(
            para(
                "Composed from the shipped prompt files "
                f"{join_names([f.path for f in sources], 4)}: the code reads them and writes the "
                "result out without sending it to a model of its own, so the text is "
                "instruction for an agent outside the repository. Representational form of "
                "the content: natural language, including commands that agent is asked to run."
            )
        )
    blocks += _witness_blocks(writes, text_of, 4 if reads else 5)
    blocks += _witness_blocks(reads, text_of, 2)
    # the program's own rules, round-robin over its source files
    rules = [f for f in fs if f.category == "prompt" and f.kind == "prompt_rule"]
    by_file: dict[str, list[Finding]] = {}
    for r in rules:
        by_file.setdefault(r.path, []).append(r)
    spread = [r for i in range(3) for rs in by_file.values() if i < len(rs) for r in [rs[i]]]
    blocks += _witness_blocks(sources[:4] + spread, text_of, 6)
    return Record(id=item.id, label=item.label, blocks=blocks)


def prompt_object(item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None) -> Record:
    f = fs[0]
    if f.kind == "prompt_file":
        nlines = f.detail.get("lines", "?")
        ident = f"Source-native identity: {f.path} ({nlines} lines), shipped in the repository"
        consumer = (
            "Which process reads it (the system's own code or an external agent) is not "
            "established "
            "by the survey unless a route below names it."
        )
    else:
        name = f.detail.get("name") or "an unnamed string"
        ident = (
            f"Source-native identity: {name}, a {f.detail.get('chars', '?')}-character "
            "string literal in "
            f"{where(f)} (lines {f.detail.get('string_lines', '?')})"
        )
        consumer = (
            "It is delivered to a model where the code passes it in messages or as a "
            "system prompt; "
            "compliance is requested, not enforced."
        )
    heads = [h for h in fs if h.kind in ("prompt_file", "instruction_string")]
    if len(heads) > 1:  # a family: variants of one instruction, reviewed together
        ident = (
            f"Source-native identity: {len(heads)} instruction texts reviewed together: "
            + join_names(
                [
                    f"{h.path} ({h.detail.get('lines', '?')} lines)"
                    if h.kind == "prompt_file"
                    else f"{h.detail.get('name') or 'an unnamed string'} in {h.path} "
                    f"(lines {h.detail.get('string_lines', '?')})"
                    for h in heads
                ],
                5,
            )
        )
    blocks: list[Block] = [
        para(
            f"{ident}. Representational form: natural-language instruction. "
            f"Storage substrate: repository file at the pinned revision."
        ),
        para(consumer),
    ]
    # each text's opening line, then the rules they state
    rules = [r for r in fs if r not in heads]
    blocks += _witness_blocks(heads + rules, text_of, 6 if len(heads) > 1 else 4)
    return Record(id=item.id, label=item.label, blocks=blocks)


def registry_object(
    item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None
) -> Record:
    path = fs[0].path
    names: list[str] = []
    for f in fs:
        for key in ("callables", "tool", "callee", "name_expr"):
            if f.detail.get(key):
                names.append(str(f.detail[key]))
    kinds = join_names(sorted({f.kind.replace("_", " ") for f in fs}))
    blocks: list[Block] = [
        para(
            f"Source-native identity: tools and dispatch in {path} ({kinds}): "
            f"{join_names(names, 6)}. "
            "Representational form: symbolic (Python callables and JSON tool schemas). "
            "Storage substrate: repository source, loaded into process memory."
        ),
        para(
            "A model's tool choice selects among these by name; which names are offered "
            "on each call and "
            "what guards the dispatch beyond the lookup is not established by the survey."
        ),
    ]
    blocks += _witness_blocks(fs, text_of, 4)
    return Record(id=item.id, label=item.label, blocks=blocks)


def score_object(item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None) -> Record:
    paths = sorted({f.path for f in fs})
    path = paths[0] if len(paths) == 1 else f"{len(paths)} files ({join_names(paths, 3)})"
    kinds = {
        "answer_extraction": "answer extraction from model output",
        "reference_def": "reference-answer keys",
        "answer_check": "comparisons with reference answers",
        "grading_scale": "grading scales",
        "score_report": "reported metrics",
        "threshold": "threshold comparisons",
        "selection": "max/min/sorted choices",
        "score_aggregate": "score aggregations",
    }
    found = join_names(sorted({kinds.get(f.kind, f.kind) for f in fs}))
    shown = join_names([f"{clip(f.snippet, 60)} (line {f.start_line}, {f.symbol})" for f in fs], 3)
    blocks: list[Block] = [
        para(
            f"Source-native identity: numbers computed and compared in {path}: {found}. "
            "Representational form: symbolic numeric values in code. Storage substrate: "
            "process memory "
            "unless a write elsewhere persists them."
        ),
        para(
            f"Found: {shown}. What these numbers gate (admission, reporting, promotion) "
            "follows from the "
            "routes that reach them; their validity as measures is not assessed by the survey."
        ),
    ]
    blocks += _witness_blocks(fs, text_of, 6)
    return Record(id=item.id, label=item.label, blocks=blocks)


def _exit_of(entry: Finding) -> str:
    if entry.kind == "console_script":
        return (
            f"exit status of console script {entry.detail.get('script')} "
            f"({entry.detail.get('target_module')}:{entry.detail.get('target_function')})"
        )
    if entry.kind in ("shell", "dockerfile"):
        return f"exit status of {entry.path} line {entry.start_line}"
    return f"process exit of python {entry.path}"


# -- routes ---------------------------------------------------------------------------


def route(
    item: PlanItem,
    fs: list[Finding],
    plan: Plan,
    text_of: TextOf | None,
    progression: list[str] | None = None,
) -> Record:
    entry = fs[0]
    loop = entry.category != "entry_point"  # a model loop driven from outside the repository
    if loop:
        entry = next((f for f in fs if f.category in ("model_loop", "model_call")), entry)
    reached = [f for f in (fs if loop else fs[1:]) if f.category != "entry_point"]
    by = {
        c: [f for f in reached if f.category == c]
        for c in (
            "model_call",
            "model_loop",
            "exec_effect",
            "persistence",
            "gating",
            "tool_dispatch",
            "prompt",
        )
    }
    by["model_setting"] = [f for f in reached if f.kind == "model_setting"]
    by["model_call"] = [f for f in by["model_call"] if f.kind != "client"]
    tail_nodes: set[str] = set()
    if progression is None:
        m = re.search(r"progression: (.*)\.$", item.rationale)
        progression = m.group(1).split(" → ") if m else [short_symbol(entry.node)]
    else:
        tail_nodes = {progression[-1]}
        progression = [short_symbol(n) for n in progression]
    caller = {
        "console_script": "console script caller",
        "shell": "shell caller",
        "dockerfile": "container start",
    }.get(entry.kind, "caller")
    if loop:
        caller, tail_nodes = "external caller (framework or importer)", {"<none>"}
    chain = [caller, *progression]
    at_end = [f for f in reached if f.node in tail_nodes]
    tail = (
        [f for f in at_end if f.category == "model_call"][:1]
        or [f for f in at_end if f.category in ("exec_effect", "persistence")][:1]
        or (
            []
            if tail_nodes
            else by["model_call"][:1] or by["exec_effect"][:1] or by["persistence"][:1]
        )
    )
    if tail:
        t = tail[0]
        chain.append(f"{t.detail.get('call') or t.kind} ({t.category.replace('_', ' ')})")
    argparse = [f for f in fs if f.kind == "argparse"]
    lead = f"Endpoints/progression: {' → '.join(chain)}."
    intro = (
        f" The route starts at {where(entry)}"
        if not loop
        else f" No entry point of the repository reaches {short_symbol(entry.node)} through the "
        "call graph; it is invoked from outside (a benchmark framework, a plugin host or an "
        "importer), which the survey cannot see"
    )
    if argparse and argparse[0].detail.get("description"):
        intro += f' (argparse: "{argparse[0].detail["description"]}")'
    intro += "."
    comps = sorted({c for c in (_component_of(plan, f) for f in by["model_call"]) if c})
    para2 = []
    if by["model_call"]:
        para2.append(
            f"It reaches model calls at {join_names([where(f) for f in by['model_call']], 4)}"
            + (f" ({', '.join(comps)})" if comps else "")
            + "."
        )
    loops = [f for f in by["model_loop"] if f.kind != "loop_step"]
    steps = [f for f in by["model_loop"] if f.kind == "loop_step"]
    if loops:
        para2.append(f"A loop repeats model calls at {join_names([where(f) for f in loops], 3)}.")
    if steps:
        para2.append(
            "Inside the loop the repository's own code runs "
            f"{join_names([str(f.detail.get('call')) + '()' for f in steps], 4)} "
            "between model calls; what these do to the next model input is not traced."
        )
    if by["exec_effect"]:
        para2.append(
            "It runs external commands or code at "
            f"{join_names([where(f) for f in by['exec_effect']], 4)}."
        )
    if by["tool_dispatch"]:
        para2.append(
            "Dispatch/dynamic loading occurs at "
            f"{join_names([where(f) for f in by['tool_dispatch']], 3)}."
        )
    if not reached:
        para2.append(
            "The survey found no model call, execution effect or write reachable from it "
            "through the repository's own functions."
        )

    objs = sorted({o for o in (_object_of(plan, f) for f in by["persistence"]) if o})
    targets = join_names(
        [
            str(f.detail.get("target_value") or f.detail.get("target") or f.kind)
            for f in by["persistence"]
        ],
        4,
        empty="",
    )
    gates = join_names(
        [
            f"{' '.join(f.snippet.split())[:70]} ({f.path}:{f.start_line})"
            for f in sorted(by["gating"], key=lambda f: (decisive_rank(f), f.path, f.start_line))
        ],
        3,
        empty="",
    )
    overwrites = [f for f in by["persistence"] if f.kind in ("write", "delete", "move", "git")]
    # read-backs the plan attached to the objects this route writes (IDs carry path:line)
    read_sites = list(
        dict.fromkeys(
            fid.split(":", 1)[1].split("#", 1)[0]
            for it in plan.items
            if it.id in objs
            for fid in it.facts
            if fid.startswith("read_back:")
        )
    )
    fields = [
        bullet("implementation conclusion status", "wired" if reached else "uninspected"),
        bullet("operation conclusion status", "uninspected"),
        bullet(
            "Immediate return",
            _exit_of(entry) + "; printed output and return values are not traced by the survey"
            if entry.kind in ("main_guard", "argparse", "shell", "dockerfile", "console_script")
            else f"return value of {entry.symbol}() to its caller (not traced by the survey)",
        ),
        bullet(
            "Later read-back",
            f"writes {targets}"
            + (f" ({', '.join(objs)})" if objs else "")
            + (
                f"; read back at {join_names(read_sites, 4)} (survey match by the same name)"
                if read_sites
                else "; whether later runs read them back is unknown"
            )
            if targets
            else "no persisted output found on this route; read-back unknown",
        ),
        bullet(
            "Delegated visibility",
            (
                "model calls receive messages built in "
                + join_names([short_symbol(f.node) for f in by["model_call"]], 3)
                if by["model_call"]
                else "no model call reached"
            )
            + (
                "; commands go to "
                + join_names([str(f.detail.get("call", f.kind)) for f in by["exec_effect"]], 3)
                if by["exec_effect"]
                else ""
            )
            + (
                "; system text "
                + join_names(
                    [
                        str(p.detail.get("content") or p.detail.get("name") or p.kind)
                        for p in by["prompt"]
                    ],
                    2,
                )
                if by["prompt"]
                else ""
            )
            + (
                "; model named by "
                + join_names([str(s.detail.get("value")) for s in by["model_setting"]], 2)
                if by["model_setting"]
                else ""
            )
            + "; exact context contents are unknown",
        ),
        bullet(
            "Selection predicate",
            f"comparisons found: {gates}"
            if gates
            else "no score/threshold comparison found on this route; selection is unknown",
        ),
        bullet(
            "Invalidation or expiry",
            f"overwrites or removes state at {join_names([where(f) for f in overwrites], 3)}"
            if overwrites
            else "none found statically; expiry unknown",
        ),
        bullet(
            "Activation or effect",
            join_names(
                [
                    f"{f.detail.get('call') or f.kind} in {short_symbol(f.node)}"
                    for f in by["exec_effect"] + by["persistence"]
                ],
                4,
                empty="no execution effect or write found",
            )
            + " (static reachability, not observed)",
        ),
        bullet("Evidence limits", EVIDENCE_LIMITS),
    ]
    blocks: list[Block] = [para(lead + intro), *([para(" ".join(para2))] if para2 else []), *fields]
    wit_src = [] if loop else [entry, *[f for f in fs[1:] if f.category == "entry_point"][:3]]
    caps = {
        "model_loop": 3,
        "model_call": 3,
        "exec_effect": 4,
        "persistence": 3,
        "gating": 2,
        "tool_dispatch": 1,
        "model_setting": 2,
    }
    for cat, cap in caps.items():
        found = [f for f in by[cat] if f.kind != "client"]
        if cat == "gating":  # the lines that decide come first: promotion, named thresholds
            found.sort(key=lambda f: (decisive_rank(f), f.path, f.start_line))
        wit_src += found[:cap]
    blocks += _witness_blocks(wit_src, text_of, 14)
    return Record(id=item.id, label=item.label, blocks=blocks)


# -- claims ---------------------------------------------------------------------------


def claim(item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None) -> Record:
    c = fs[0]
    sentence = str(c.detail.get("sentence", ""))
    src = {
        "doc_sentence": "documentation",
        "docstring": "a docstring",
        "tool_description": "a tool description",
        "instruction_rule": "a rule in an instruction file",
    }
    blocks: list[Block] = [
        para(
            f"Claimed operation: {sentence} Source: {src.get(c.kind, 'text')} in "
            f"{c.path}:{c.start_line}."
        )
    ]
    w = (
        sentence_witness(c, sentence, text_of)
        if c.kind in ("doc_sentence", "instruction_rule")
        else witness(c, text_of)
    )
    if w is not None:
        blocks.append(wblock(w))
    related = fs[1:]
    shared = [
        n
        for n in re.findall(r"`([^`]+)`", sentence)
        if n.rstrip("/").rsplit("/", 1)[-1]
        and any(
            n.rstrip("/").rsplit("/", 1)[-1]
            in " ".join([f.snippet, f.symbol, *map(str, f.detail.values())])
            for f in related
        )
    ]
    if related:
        blocks.append(
            para(
                f"Code the claim bears on: {join_names([where(f) for f in related], 3)}"
                + (
                    f", found by the names it shares with the claim ({join_names(shared, 3)})"
                    if shared
                    else ""
                )
                + ". Whether this code implements the claim, narrows it or contradicts it on "
                "every path is not established by the offline survey; the quotes below are "
                "the lines to compare."
            )
        )
        blocks += _witness_blocks(related, text_of, 2)
    else:
        blocks.append(
            para(
                "The survey found no code that obviously implements or contradicts it; "
                "implementation scope is unknown."
            )
        )
    return Record(id=item.id, label=item.label, blocks=blocks)


# -- behavioral-authority paths -------------------------------------------------------


def _prompt_file_bap(
    item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None
) -> Record:
    pfile = fs[0]
    loads = [f for f in fs if f.kind == "prompt_load"]
    reads = [f for f in fs if f.kind == "prompt_read"]
    calls = [f for f in fs if f.category == "model_call"]
    vias = {str(r.detail.get("via")) for r in reads}
    writes = [f for f in fs if f.category == "persistence"]
    # writes naming the prompt file rewrite it; other writes next to a read pass its text on
    writers = [f for f in writes if any(v in str(f.detail.get("target", "")) for v in vias)]
    relays = [f for f in writes if f not in writers]
    comp = _component_of(plan, calls[0]) if calls else None
    if calls:
        consumer = f"the model called at {where(calls[0])}" + (f" ({comp})" if comp else "")
    else:
        passed = join_names(
            [str(r.detail.get("target_value") or r.detail.get("target")) for r in relays], 2
        )
        consumer = (
            "whatever receives the text read at "
            + join_names([where(r) for r in reads], 2)
            + " (no model call found next to the read"
            + (
                f"; the reading function writes {passed}, so the text may pass on to a file "
                "another agent reads)"
                if relays
                else ")"
            )
        )
    named = (
        f", named at {where(loads[0])}"
        if loads
        and loads[0].start_line not in {r.start_line for r in reads if r.path == loads[0].path}
        else ""
    )
    horizon = (
        "every read after the file changes; the file is also rewritten by "
        + join_names([where(w) for w in writers], 2)
        + ", so the system's own output can change its later instructions"
        if writers
        else "every read after the file changes; edits take effect without code changes"
    )
    force = (
        "natural-language instruction delivered as model input; compliance is not enforced by "
        "the code"
        if calls
        else "natural-language instruction; whether a model or an external agent follows it is "
        "not established by the survey"
    )
    lead = (
        f"Consumer: {consumer}. Channel: {pfile.path} read at run time by "
        f"{join_names([where(r) for r in reads], 2)}{named}. Force: {force}. Horizon: {horizon}."
    )
    blocks: list[Block] = [para(lead)]
    wit = [*loads[:1], *reads[:2], *calls[:1], *writers[:2], *relays[:1]]
    blocks += _witness_blocks(wit, text_of, 7)
    return Record(id=item.id, label=item.label, blocks=blocks)


def _state_gate_bap(
    item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None
) -> Record:
    """Persisted results read back into a decision: the state a gate trusts."""
    reads = [f for f in fs if f.category == "read_back"]
    gates = [f for f in fs if f.category == "gating"]
    node = gates[0].node if gates else reads[0].node
    objs = sorted({o for o in (_object_of(plan, r) for r in reads) if o})
    files = join_names(
        [
            str(
                r.detail.get("target_value")
                or r.detail.get("written_value")
                or r.detail.get("target")
            )
            for r in reads
        ],
        3,
    )
    lead = (
        f"Consumer: {short_symbol(node)} in {node.split('::')[0]}. "
        f"Channel: symbolic files read back ({files}) at "
        f"{join_names([where(r) for r in reads], 3)}"
        + (f" ({', '.join(objs)})" if objs else "")
        + ". Force: fixed predicates in code decide from what was read "
        + (f"({join_names([clip(g.snippet, 60) for g in gates], 2)}); " if gates else "; ")
        + "the files are trusted as written, and the survey found no check of their "
        "provenance. Horizon: every later run while the files persist."
    )
    blocks: list[Block] = [para(lead)]
    blocks += _witness_blocks(reads[:2] + gates[:2], text_of, 4)
    return Record(id=item.id, label=item.label, blocks=blocks)


def bap(item: PlanItem, fs: list[Finding], plan: Plan, text_of: TextOf | None) -> Record:
    if fs and fs[0].kind == "prompt_file":
        return _prompt_file_bap(item, fs, plan, text_of)
    if fs and fs[0].category == "read_back":
        return _state_gate_bap(item, fs, plan, text_of)
    prompts = [f for f in fs if f.category == "prompt"]
    calls = [f for f in fs if f.category == "model_call"]
    if prompts and calls:
        comp = _component_of(plan, calls[0])
        names = join_names(
            [str(p.detail.get("name") or p.detail.get("content") or p.kind) for p in prompts], 3
        )
        lead = (
            f"Consumer: the model called at {where(calls[0])}{f' ({comp})' if comp else ''}. "
            f"Channel: instruction text {names} placed in the request (system message or "
            "instruction). "
            "Force: requested behaviour; the model's compliance is not enforced by the code. "
            f"Horizon: every call made by {short_symbol(calls[0].node)} while the file "
            "stays as it is."
        )
        blocks: list[Block] = [para(lead)]
        blocks += _witness_blocks(prompts[:3] + calls[:1], text_of, 4)
        return Record(id=item.id, label=item.label, blocks=blocks)
    f = fs[0]
    targets = join_names(
        [str(x.detail.get("target") or x.detail.get("command") or x.kind) for x in fs], 3
    )
    lead = (
        f"Consumer: {short_symbol(f.node)} in {f.path}. "
        f"Channel: {join_names(sorted({x.kind.replace('_', ' ') for x in fs}))} of {targets}. "
        "Force: the loaded code runs with the full authority of the importing process; "
        "nothing in the "
        "survey shows a sandbox or allow-list at this point. "
        f"Horizon: each call of {short_symbol(f.node)}; edits to the loaded files take "
        "effect at the next load."
    )
    blocks = [para(lead)]
    blocks += _witness_blocks(fs, text_of, 4)
    return Record(id=item.id, label=item.label, blocks=blocks)
