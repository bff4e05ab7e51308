"""Planning for the offline proposer: which records a survey supports.

Groups findings into records deterministically (sorted inputs, stable tie-breaks,
capped counts), so the same survey always yields the same outline and the same
readable IDs.  Each plan item lists, in ``facts``, every finding ID its record needs,
so a record can be drafted from its item and those findings alone (as the LangGraph
fan-out does) without re-planning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graph.proposer import PlanItem
from graph.proposers.offline_text import clip, join_names, short_symbol, slug
from retrieval.survey import Finding, Survey

MAX_COMPONENTS = 8
MAX_ROUTES = 10
MAX_ARTIFACTS = 10
MAX_VAR_FAMILIES = 1
MAX_PROMPTS = 6
MAX_CLAIMS = 8
MAX_BAP_EXEC = 6
MAX_SCORES = 10
_GATE_RANK = {
    "answer_extraction": 0,
    "reference_def": 0,
    "answer_check": 0,
    "grading_scale": 0,
    "threshold": 1,
    "score_aggregate": 2,
    "score_report": 3,
    "selection": 4,
}
MAX_REGISTRIES = 3
_HOUSEKEEPING = {"delete", "move"}
MAX_LOOP_ROUTES = 5

#: Code that supports the system rather than being it: ranked after the main code.
_SECONDARY = re.compile(
    r"(^|/)(baselines?|analysis|plots?|notebooks?|benchmarks?|experiments?|tools?/scripts)/"
)
_TESTY = re.compile(
    r"(^|/)(tests?|testing|examples?|docs?)/|(^|/)test_[^/]*\.py$|_test\.py$|conftest\.py$"
)
_STRONG_CLAIM = re.compile(
    r"\b(never|always|only|must|cannot|can't|no (?:internet|network|access)|guarantee|ensures?|"
    r"persist\w*|sandbox\w*|isolat\w*|automatically|read-only|counts? as|immutable|not saved|"
    r"untrusted|by default)\b",
    re.I,
)
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
_WRITE_RANK = {
    "append": 0,
    "write": 0,
    "json": 1,
    "pickle": 1,
    "torch": 1,
    "csv": 1,
    "parquet": 1,
    "git": 0,
    "copy": 1,
    "sqlite": 0,
    "file": 1,
    "numpy": 2,
    "yaml": 1,
    "model": 2,
    "move": 3,
    "delete": 4,
    "figure": 5,
}


@dataclass
class EntryUnit:
    """One way of starting the system and what it reaches."""

    primary: Finding
    extra: list[Finding] = field(default_factory=list)
    node: str = ""
    chains: list[list[str]] = field(default_factory=list)
    reached: list[Finding] = field(default_factory=list)

    @property
    def score(self) -> tuple[int, int, int, int, int]:
        """Sort key: main code before tests/baselines/analysis, model-reaching first, then
        by how much the entry reaches, then shallower paths (top-level scripts) first."""
        cats = [f.category for f in self.reached]
        path = self.primary.path
        return (
            2 if _TESTY.search(path) else 1 if _SECONDARY.search(path) else 0,
            0 if "model_call" in cats else 1,
            -sum(
                cats.count(c) for c in ("model_call", "exec_effect", "persistence", "tool_dispatch")
            ),
            path.count("/"),
            0,
        )


def entry_units(survey: Survey) -> list[EntryUnit]:
    """Entry points grouped per way of starting (one per script file, command, console script)."""
    units: dict[str, EntryUnit] = {}
    graph_nodes = survey.call_graph.functions
    for f in survey.by_category("entry_point"):
        if f.kind in ("main_guard", "argparse"):
            key = f"file:{f.path}"
        elif f.kind in ("click", "typer"):
            key = f"cmd:{f.path}:{f.symbol}"
        else:
            key = f"decl:{f.path}:{f.start_line}"
        u = units.get(key)
        if u is None:
            units[key] = EntryUnit(primary=f)
        elif f.kind == "main_guard":
            u.extra.append(u.primary)
            u.primary = f
        else:
            u.extra.append(f)
    out: list[EntryUnit] = []
    by_node: dict[str, EntryUnit] = {}
    for u in sorted(
        units.values(),
        key=lambda u: (
            u.primary.kind not in ("main_guard", "argparse"),
            u.primary.path,
            u.primary.start_line,
        ),
    ):
        f = u.primary
        target = f.detail.get("target_node")
        if target:
            u.node = target
        elif f.kind == "main_guard" or f"{f.path}::<main>" in graph_nodes:
            u.node = f"{f.path}::<main>" if f"{f.path}::<main>" in graph_nodes else f.node
        else:
            u.node = f.node
        if u.node in by_node:  # a shell line or script starting an already listed entry
            by_node[u.node].extra.append(u.primary)
            continue
        by_node[u.node] = u
        u.chains = survey.chains_from(u.node)
        reach = set(survey.reachable(u.node))
        u.reached = [
            x
            for x in survey.findings
            if x.node in reach and x.category not in ("entry_point", "claim")
        ]
        out.append(u)
    out.sort(key=lambda u: (u.score, u.primary.path, u.primary.start_line))
    return out


def endpoint_key(f: Finding, survey: Survey | None = None) -> tuple[str, str]:
    """(provider, model) naming one distinct model endpoint; a call through a repository
    wrapper belongs to the endpoint of the direct model call it reaches."""
    if f.kind == "via_wrapper" and survey is not None:
        target = survey.finding(str(f.detail.get("reaches", "")))
        if target is not None and target.kind != "via_wrapper":
            return endpoint_key(target)
    provider = str(f.detail.get("provider", "model"))
    model = str(f.detail.get("model_value") or f.detail.get("model") or "")
    if not model:
        model = f"{f.symbol} in {f.path}"
    return provider, model


def artifact_key(f: Finding) -> str:
    if f.kind == "git":
        return "git repository state"
    v = f.detail.get("target_value")
    if v and not str(v).startswith("env "):
        return str(v)
    t = str(f.detail.get("target", ""))
    lits = [x for x in re.findall(r"""['"]([^'"{}]+)['"]""", t) if re.search(r"[./]", x)]
    if lits:
        return max(lits, key=len)
    return t or f"{f.path}:{f.start_line}"


def _item(kind: str, ident: str, label: str, facts: list[Finding], rationale: str) -> PlanItem:
    files = list(dict.fromkeys(f.path for f in facts))
    return PlanItem(
        id=ident,
        kind=kind,
        label=clip(label, 120),
        files=files,
        rationale=rationale,
        facts=[f.id for f in facts],
    )


class _Ids:
    """Hands out unique IDs in plan order (stable: the order itself is deterministic)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def take(self, kind: str, s: str) -> str:
        base = f"RT-{kind}-{s}"
        ident, n = base, 2
        while ident in self.used:
            ident, n = f"{base}-{n}", n + 1
        self.used.add(ident)
        return ident


def plan_items(
    survey: Survey, max_records: int = 60, repo_modules: set[str] | None = None
) -> list[PlanItem]:
    ids = _Ids()
    items: list[PlanItem] = []

    # components: one per distinct model endpoint
    groups: dict[tuple[str, str], list[Finding]] = {}
    clients = []
    for f in survey.by_category("model_call"):
        if f.kind == "client":
            clients.append(f)  # a client constructor is evidence for an endpoint, not one
        else:
            groups.setdefault(endpoint_key(f, survey), []).append(f)
    for c in clients:
        for key, fs in sorted(groups.items()):
            if key[0] == c.detail.get("provider") and any(f.path == c.path for f in fs):
                fs.append(c)
                break
    _merge_agent_variants(groups)
    ranked = sorted(groups.items(), key=lambda kv: (-sum(f.kind != "client" for f in kv[1]), kv[0]))
    called_roles: set[str] = set()
    for (provider, model), fs in ranked[:MAX_COMPONENTS]:
        direct = [f for f in fs if f.kind not in ("via_wrapper", "client")]
        via = sorted(
            (f for f in fs if f.kind == "via_wrapper"),
            key=lambda f: (
                2 if _TESTY.search(f.path) else 1 if _SECONDARY.search(f.path) else 0,
                f.path,
                f.start_line,
            ),
        )
        direct += [f for f in fs if f.kind == "client"][:1]
        fs = direct[:8] + via[:6]
        # settings in the calling files, and the constant the model argument names
        # (``model=config.MODEL`` → ``MODEL = ...`` in a config module)
        named = {
            str(f.detail.get("model", "")).rsplit(".", 1)[-1] for f in fs if f.detail.get("model")
        }
        named = {n for n in named if re.fullmatch(r"[A-Z][A-Z0-9_]+", n)}
        settings = [
            c
            for c in survey.findings
            if c.category == "config_read"
            and (
                (
                    c.path in {f.path for f in fs}
                    and (
                        c.kind == "model_setting" or "MODEL" in str(c.detail.get("env", "")).upper()
                    )
                )
                or (
                    c.kind == "model_setting"
                    and any(re.match(rf"\s*{n}\s*[:=]", c.snippet) for n in named)
                )
            )
        ]

        if model.startswith(_VARIANTS):
            where_ = model[len(_VARIANTS) :]
            label = f"Agent model ({provider.replace('/', ', ')}) in {where_}"
            ident = ids.take("CMP", slug("agent-model", where_.rstrip("/").rsplit("/", 1)[-1]))
        else:
            label = f"{provider} model endpoint: {model}"
            ident = ids.take("CMP", slug(provider, model.split(" in ")[0]))
        items.append(
            _item(
                "CMP",
                ident,
                label,
                fs + settings[:5],
                f"Distinct model endpoint reached through {provider} at {len(fs)} call site(s).",
            )
        )
        called_roles.add(
            model_role(" ".join(str(f.detail.get("model", "")) for f in fs))
            or model_role(" ".join(str(c.detail.get("name", "")) for c in settings))
            or "agent"
        )

    # model roles the code configures but calls only through code outside the repository
    # (a user simulator or a grader model handed to a benchmark framework by name)
    by_role: dict[str, list[Finding]] = {}
    for c in survey.by_category("config_read"):
        if c.kind == "model_setting":
            role = model_role(str(c.detail.get("name", "")))
            if role is not None and role not in called_roles:
                by_role.setdefault(role, []).append(c)
    for role, cs in sorted(by_role.items()):
        if len([i for i in items if i.kind == "CMP"]) >= MAX_COMPONENTS:
            break
        cs = sorted(cs, key=lambda c: (_TESTY.search(c.path) is not None, c.path, c.start_line))
        names = join_names([str(c.detail.get("name", "")) for c in cs], 3)
        items.append(
            _item(
                "CMP",
                ids.take("CMP", slug(role, "model")),
                f"{role.capitalize()} model: {names}",
                cs[:4],
                f"A {role} model the code names in configuration but calls through code "
                "outside the repository.",
            )
        )

    # an agent outside the repository, addressed by a program file the code composes
    # and writes out instead of sending to a model of its own
    for it in external_agents(survey)[:1]:
        if len([i for i in items if i.kind == "CMP"]) < MAX_COMPONENTS:
            path = it[0].path
            items.append(
                _item(
                    "CMP",
                    ids.take("CMP", slug("external-agent", path.rsplit("/", 1)[-1].split(".")[0])),
                    f"External agent model addressed by {path}",
                    it,
                    "An agent the repository instructs but does not call.",
                )
            )

    units = [u for u in entry_units(survey)]
    routed = units[:MAX_ROUTES]
    route_nodes: set[str] = set()
    for u in routed:
        route_nodes.update(n for c in u.chains for n in c)

    # operative objects: persisted artifacts, then shipped prompts
    arts: dict[str, list[Finding]] = {}
    for f in survey.by_category("persistence"):
        arts.setdefault(artifact_key(f), []).append(f)
    # SQL statements belong to the database their file connects to
    for key in [
        k
        for k, fs in arts.items()
        if all(f.kind == "sqlite" and "statement" in f.detail for f in fs)
    ]:
        path = arts[key][0].path
        home = next(
            (
                k
                for k, fs in arts.items()
                if k != key and any(f.kind == "sqlite" and f.path == path for f in fs)
            ),
            None,
        )
        if home is not None:
            arts[home] += arts.pop(key)

    def art_rank(kv: tuple[str, list[Finding]]) -> tuple[int, int, int, int, str]:
        fs = kv[1]
        on_route = any(f.node in route_nodes for f in fs)
        operative = (
            re.search(r"\.(py|md|txt|json|jsonl|tsv|csv|pkl|pt|db|sqlite)$", kv[0]) is not None
        )
        return (
            0 if on_route else 1,
            0 if operative else 1,
            min(_WRITE_RANK.get(f.kind, 3) for f in fs),
            1 if _TESTY.search(fs[0].path) else 0,
            kv[0],
        )

    ranked_arts = sorted(arts.items(), key=art_rank)
    order = {k: i for i, (k, _) in enumerate(ranked_arts)}
    families: dict[str, list[str]] = {}
    for key, fs in ranked_arts:
        families.setdefault(artifact_family(key, fs, arts), []).append(key)
    # scratch space a module moves or deletes under computed names is housekeeping, not
    # an object the system keeps; literal paths stay even when only deleted
    families = {
        fam: keys
        for fam, keys in families.items()
        if not fam.startswith("vars:")
        or any(f.kind not in _HOUSEKEEPING for k in keys for f in arts[k])
    }
    fam_ranked = sorted(families.items(), key=lambda kv: min(order[k] for k in kv[1]))
    # files named only by a variable say least about what the system keeps: a few at most
    var_fams = [fam for fam, _ in fam_ranked if fam.startswith("vars:")]
    fam_ranked = [(f, k) for f, k in fam_ranked if f not in var_fams[MAX_VAR_FAMILIES:]]
    for fam, keys in fam_ranked[:MAX_ARTIFACTS]:
        per_key = [sorted(arts[k], key=lambda f: (f.path, f.start_line)) for k in keys]
        # every artifact of the family gets a witness before any gets a second one
        fs = [f for row in _zip_longest(per_key) for f in row][: 6 if len(keys) == 1 else 8]
        # where the system reads the artifact again: another module first, one per reader
        reads = sorted(
            (r for r in survey.by_category("read_back") if _reads_one_of(r, keys, arts)),
            key=lambda r: (r.path in {f.path for f in fs}, r.path, r.start_line),
        )
        fs += list({r.node: r for r in reversed(reads)}.values())[::-1][:4]
        writers = join_names([short_symbol(f.node) for f in fs], 3)
        items.append(
            _item(
                "OBJ",
                ids.take("OBJ", _family_slug(fam, keys)),
                _family_label(fam, keys),
                fs,
                f"Written by {writers}.",
            )
        )

    prompt_groups: dict[str, list[Finding]] = {}
    for f in survey.by_category("prompt"):
        if f.kind == "prompt_file":
            prompt_groups.setdefault(f"file:{f.path}", []).append(f)
        elif f.kind == "instruction_string":
            name = str(f.detail.get("name") or f"{f.symbol}:{f.start_line}")
            prompt_groups.setdefault(f"str:{f.path}:{name}", []).append(f)
    for f in survey.by_category("prompt"):
        if f.kind == "prompt_rule" and str(f.detail.get("of")) in prompt_groups:
            prompt_groups[str(f.detail["of"])].append(f)
    for _fam, keys in sorted(prompt_families(survey, prompt_groups).items())[:MAX_PROMPTS]:
        fs = [f for row in _zip_longest([prompt_groups[k] for k in keys]) for f in row]
        f = fs[0]
        if len(keys) > 1:
            names = [_prompt_name(prompt_groups[k][0]) for k in keys]
            where_ = _common_dir([prompt_groups[k][0].path for k in keys])
            noun = "prompt files" if f.kind == "prompt_file" else "instructions"
            label = f"Shipped {noun} in {where_}: {join_names(names, 4)}"
            if len(set(names)) < len(names):
                label += (
                    f" ({len(names)} definitions in {len({k.split(':')[1] for k in keys})} files)"
                )
            s = slug("prompts", where_.rstrip("/").rsplit("/", 1)[-1] or "root")
        elif f.kind == "prompt_file":
            label, s = (
                f"Shipped prompt file: {f.path}",
                slug("prompt", f.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]),
            )
        else:
            name = str(f.detail.get("name") or "inline instruction")
            label, s = f"Shipped instruction: {name} in {f.path}", slug("prompt", name)
        items.append(
            _item(
                "OBJ",
                ids.take("OBJ", s),
                label,
                fs[:8],
                "Natural-language instruction shipped with the code.",
            )
        )

    # prompt files the code only composes into a file for an outside agent are the
    # sources of that file: one object (the generated program), not two
    for pfile, _read, write in external_agents(survey):
        src = next((i for i in items if i.kind == "OBJ" and pfile.id in i.facts), None)
        dst = next((i for i in items if i.kind == "OBJ" and write.id in i.facts), None)
        if src is None or dst is None or src is dst:
            continue
        files = [
            fid
            for fid in src.facts
            if (f := survey.finding(fid)) is not None and f.kind == "prompt_file"
        ]
        dst.facts = dst.facts + [fid for fid in src.facts if fid not in dst.facts]
        dst.files = list(dict.fromkeys([*dst.files, *src.files]))
        dst.rationale += f" Composed from {len(files)} shipped prompt file(s)."
        where_ = _common_dir([fid.split(":", 2)[1] for fid in files])
        dst.label = clip(f"{dst.label}, composed from prompt files in {where_}", 120)
        items.remove(src)

    # tool registries: what a model's tool choice can reach
    regs: dict[str, list[Finding]] = {}
    for f in survey.by_category("tool_dispatch"):
        if f.kind in (
            "callable_registry",
            "tool_schema",
            "tool_decorator",
            "tool_module",
            "tool_wrapper",
            "subscript_dispatch",
            "getattr_dispatch",
        ):
            regs.setdefault(f.path, []).append(f)
    ranked_regs = sorted(
        regs.items(),
        key=lambda kv: (
            1 if _TESTY.search(kv[0]) else 0,
            0
            if any(f.kind in ("callable_registry", "tool_schema", "tool_wrapper") for f in kv[1])
            else 1,
            kv[0],
        ),
    )
    for path, rfs in ranked_regs[:MAX_REGISTRIES]:
        rfs = sorted(
            rfs,
            key=lambda f: (
                {"callable_registry": 0, "tool_wrapper": 1, "tool_schema": 2}.get(f.kind, 3),
                f.start_line,
            ),
        )[:5]
        base = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        items.append(
            _item(
                "OBJ",
                ids.take("OBJ", slug("tools", base)),
                f"Tool registry and dispatch in {path}",
                rfs,
                "What a model's tool choice can reach.",
            )
        )

    # scores and selections: the numbers that decide what is kept, reported or promoted
    gates: dict[str, list[Finding]] = {}
    for f in survey.by_category("gating"):
        if f.kind != "retry":
            gates.setdefault(f.path, []).append(f)
    # files that only name their reference-answer key share one record
    refs = sorted(
        (p for p, fs in gates.items() if all(f.kind == "reference_def" for f in fs)),
        key=lambda p: (2 if _TESTY.search(p) else 1 if _SECONDARY.search(p) else 0, p),
    )
    if len(refs) > 1:
        ref_fs = [gates.pop(p)[0] for p in refs]
        items.append(
            _item(
                "OBJ",
                ids.take("OBJ", "scores-reference-keys"),
                f"Scores and selection: reference-answer keys in {len(ref_fs)} files",
                ref_fs[:8],
                "Which field counts as the right answer, per domain.",
            )
        )
    ranked_gates = sorted(
        gates.items(),
        key=lambda kv: (
            2 if _TESTY.search(kv[0]) else 1 if _SECONDARY.search(kv[0]) else 0,
            # files that judge outputs against references come first: they decide what counts
            0 if any(_GATE_RANK.get(f.kind, 5) == 0 for f in kv[1]) else 1,
            0 if any(f.node in route_nodes for f in kv[1]) else 1,
            -len(kv[1]),
            kv[0],
        ),
    )
    for path, gfs in ranked_gates[:MAX_SCORES]:
        gfs = _round_robin(
            sorted(
                gfs,
                key=lambda f: (
                    _GATE_RANK.get(f.kind, 5),
                    # headline numbers first: overall/average/final rather than per-class
                    0 if re.search(r"overall|average|mean|total|final", f.snippet, re.I) else 1,
                    f.start_line,
                ),
            )
        )[:6]
        base = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        items.append(
            _item(
                "OBJ",
                ids.take("OBJ", slug("scores", base)),
                f"Scores and selection in {path}",
                gfs,
                "Numbers compared with thresholds or used to choose.",
            )
        )

    for u in routed:
        f = u.primary
        name = _entry_name(u)
        ident = ids.take("RTE", slug(name))
        facts = [f, *u.extra[:2]]
        key = [
            x
            for x in u.reached
            if x.category
            in ("model_call", "exec_effect", "persistence", "gating", "tool_dispatch", "model_loop")
        ]
        key = [x for x in key if x.kind != "client"] + [x for x in key if x.kind == "client"]
        key.sort(
            key=lambda x: (
                [
                    "model_call",
                    "model_loop",
                    "exec_effect",
                    "tool_dispatch",
                    "persistence",
                    "gating",
                    "config_read",
                ].index(x.category),
                decisive_rank(x) if x.category == "gating" else 0,
                x.path,
                x.start_line,
            )
        )
        facts += _spread(key, 14)
        facts += [x for x in u.reached if x.kind == "model_setting"][:2]
        chain = progression_nodes(u, survey)
        rationale = (
            f"Entry point {name}; progression: {' → '.join(short_symbol(n) for n in chain)}."
        )
        does = route_summary(u.reached)
        items.append(
            _item("RTE", ident, f"Run {name}" + (f": {does}" if does else ""), facts, rationale)
        )

    # a file's scores that the routes above already carry in full need no object of their
    # own: the route quotes its deciding lines where the analyst reads the decision
    on_routes = {fid for i in items if i.kind == "RTE" for fid in i.facts}
    items = [
        i
        for i in items
        if not (
            i.kind == "OBJ"
            and i.label.startswith("Scores and selection in ")
            and set(i.facts) <= on_routes
        )
    ]

    # model loops and calls that no entry point reaches: a framework or importer drives them
    covered = {n for u in routed for n in survey.reachable(u.node)}
    loop_nodes = sorted(
        {f.node for f in survey.by_category("model_call") if f.kind != "client"} - covered,
        key=lambda n: (2 if _TESTY.search(n) else 1 if _SECONDARY.search(n) else 0, n),
    )
    for node in loop_nodes[:MAX_LOOP_ROUTES]:
        local = [f for f in survey.findings_at(node) if f.category not in ("claim", "entry_point")]
        for callee in survey.call_graph.callees(node):
            local += [
                f
                for f in survey.findings_at(callee)
                if f.category in ("exec_effect", "persistence", "tool_dispatch", "gating")
            ]
        local.sort(key=lambda f: (f.node != node, f.start_line))  # the function's own facts first
        looped = any(f.category == "model_loop" for f in local)
        sym = short_symbol(node)
        steps = [sym, *_steps(local)]
        label = f"{'Model loop' if looped else 'Model call'} in {sym}"
        if not sym.startswith(node.split("::")[0]):
            label += f" ({node.split('::')[0]})"
        facts = [f for f in local if f.category != "config_read" or f.kind == "model_setting"]
        rationale = f"Model use not reached from an entry point; progression: {' → '.join(steps)}."
        items.append(
            _item(
                "RTE",
                ids.take("RTE", slug("loop" if looped else "call", sym)),
                label,
                facts[:16],
                rationale,
            )
        )

    claims = [
        f
        for f in survey.by_category("claim")
        if _STRONG_CLAIM.search(str(f.detail.get("sentence", "")))
    ]
    claims = [
        f
        for f in claims
        if not str(f.detail.get("sentence", "")).rstrip().endswith(":")
        and not re.match(r"^\w+(\[[^\]]*\])?\s*:", str(f.detail.get("sentence", "")))
    ]
    unique: dict[str, Finding] = {}
    for f in claims:
        unique.setdefault(" ".join(str(f.detail.get("sentence", "")).lower().split()), f)
    claims = list(unique.values())
    names = code_names(survey)
    claims.sort(
        key=lambda f: (
            1 if _TESTY.search(f.path) or _SECONDARY.search(f.path) else 0,
            # a rule that names something the code defines can be checked against it
            0 if claim_identifiers(str(f.detail.get("sentence", "")), names) else 1,
            {"doc_sentence": 0, "instruction_rule": 0, "tool_description": 1, "docstring": 2}.get(
                f.kind, 3
            ),
            f.path.count("/"),
            f.path,
            f.start_line,
        )
    )
    # no more than half of the claims from instruction files: READMEs promise too
    chosen_claims: list[Finding] = []
    n_rules = 0
    for f in claims:
        if len(chosen_claims) >= MAX_CLAIMS:
            break
        if f.kind == "instruction_rule":
            if n_rules >= MAX_CLAIMS // 2:
                continue
            n_rules += 1
        chosen_claims.append(f)
    for f in chosen_claims:
        words = re.findall(r"[A-Za-z]{4,}", str(f.detail.get("sentence", "")))[:5]
        ident = ids.take("CLM", slug(*words[:4]))
        sentence = str(f.detail.get("sentence", ""))
        related = _related(
            survey, sentence, exclude=f, identifiers=claim_identifiers(sentence, names)
        )
        items.append(
            _item(
                "CLM",
                ident,
                "Claim: " + clip(re.sub(r"[`*]|__", "", str(f.detail.get("sentence", ""))), 80),
                [f, *related],
                f"A sentence in {f.path} that promises behaviour.",
            )
        )

    # behavioral-authority paths: prompt -> model per component, code -> import/exec
    for it in [i for i in items if i.kind == "CMP"]:
        comp_files = set(it.files)
        prompts = [
            p
            for p in survey.by_category("prompt")
            if p.path in comp_files and p.kind in ("instruction_string", "system_message")
        ]
        calls = [survey.finding(x) for x in it.facts]
        calls = [c for c in calls if c is not None and c.category == "model_call"]
        if not prompts or not calls:
            continue
        ident = ids.take("BAP", slug("prompt-to", it.id.split("-", 2)[2]))
        items.append(
            _item(
                "BAP",
                ident,
                f"Shipped instructions to {it.label.split(':')[0]}",
                prompts[:4] + calls[:2],
                f"Instructions reach the model of {it.id}.",
            )
        )
    # shipped prompt files that code reads: file text → model, and who rewrites the file
    callers: dict[str, set[str]] = {}
    for src, dsts in survey.call_graph.edges.items():
        for d in dsts:
            callers.setdefault(d, set()).add(src)
    for pfile in [f for f in survey.by_category("prompt") if f.kind == "prompt_file"]:
        loads = [
            f
            for f in survey.by_category("prompt")
            if f.kind == "prompt_load" and f.detail.get("file") == pfile.path
        ]
        reads = [
            f
            for f in survey.by_category("prompt")
            if f.kind == "prompt_read" and f.detail.get("file") == pfile.path
        ]
        if not reads:
            continue
        near = {r.node for r in reads} | {c for r in reads for c in callers.get(r.node, set())}
        calls = [
            f for f in survey.by_category("model_call") if f.node in near and f.kind != "client"
        ]
        via = {str(r.detail.get("via")) for r in reads}
        writers = [
            f
            for f in survey.by_category("persistence")
            if any(v in str(f.detail.get("target", "")) for v in via)
        ]
        relays = [
            f
            for f in survey.by_category("persistence")
            if f.node in {r.node for r in reads} and f not in writers and f.kind != "delete"
        ]
        base = pfile.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        items.append(
            _item(
                "BAP",
                ids.take("BAP", slug("prompt-file", base)),
                f"Prompt file {pfile.path} to the model"
                if calls
                else f"Prompt file {pfile.path} read by code",
                [pfile, *loads[:1], *reads[:2], *calls[:1], *writers[:2], *relays[:1]],
                "Shipped instruction text read at run time.",
            )
        )

    # retained state read back where the code decides: persisted artifact → gate
    gate_nodes = {f.node for f in survey.by_category("gating") if decisive_rank(f) <= 1}
    state_gates: dict[str, list[Finding]] = {}
    for it in [i for i in items if i.kind == "OBJ"]:
        for fid in it.facts:
            r = survey.finding(fid)
            if r is None or r.category != "read_back":
                continue
            # the reading function itself gates, or hands the value to a caller that does
            deciders = [r.node] if r.node in gate_nodes else []
            deciders += sorted(c for c in callers.get(r.node, set()) if c in gate_nodes)
            for d in deciders[:1]:
                state_gates.setdefault(d, []).append(r)
    for node, reads_ in sorted(state_gates.items())[:2]:
        decisive = sorted(
            (f for f in survey.findings_at(node) if f.category == "gating"),
            key=lambda f: (decisive_rank(f), f.start_line),
        )
        items.append(
            _item(
                "BAP",
                ids.take("BAP", slug("state-to", short_symbol(node).rstrip("()"))),
                f"Retained state to the gate in {short_symbol(node)}",
                [*reads_[:3], *decisive[:2]],
                "Persisted results read back where the code decides.",
            )
        )

    dyn: dict[str, list[Finding]] = {}
    for f in survey.findings:
        if (f.category == "tool_dispatch" and f.kind in _DYNAMIC_KINDS) or (
            f.category == "exec_effect" and f.kind == "exec_eval"
        ):
            target = str(f.detail.get("target", ""))
            lit = re.fullmatch(r"""['"]([\w.]+)['"]""", target.strip())
            if lit and repo_modules is not None and lit.group(1) not in repo_modules:
                continue  # a fixed external library import: no repository-controlled code
            dyn.setdefault(f.node, []).append(f)
    for node, fs in sorted(dyn.items(), key=lambda kv: (1 if _TESTY.search(kv[0]) else 0, kv[0]))[
        :MAX_BAP_EXEC
    ]:
        ident = ids.take("BAP", slug("code-to", short_symbol(node).rstrip("()")))
        items.append(
            _item(
                "BAP",
                ident,
                f"Loaded code to {short_symbol(node)}",
                fs[:4],
                "Repository or plugin code gains authority by being imported or executed.",
            )
        )
    return _budget(items, max_records)


#: Model roles told apart by the names code gives a model setting or argument.  Checked
#: in order: a "user_model" is a user simulator even though it says "model".
_ROLES = (
    ("user simulator", re.compile(r"user|simulat|(^|_)sim(_|$)", re.I)),
    ("grader", re.compile(r"judge|grader|grading|critic|reward_model|evaluator|verifier", re.I)),
    ("agent", re.compile(r"agent|policy|actor|assistant|llm|model", re.I)),
)


_VARIANTS = "agent variants in "


def _merge_agent_variants(groups: dict[tuple[str, str], list[Finding]]) -> None:
    """Agent-role endpoints called from sibling modules of one directory are variants of
    one agent (one template per benchmark), so they become one component, whatever SDK
    each variant uses.  Other roles and endpoints in unrelated places stay apart."""
    by_dir: dict[str, list[tuple[str, str]]] = {}
    for key, fs in groups.items():
        direct = [f for f in fs if f.kind not in ("via_wrapper", "client")]
        if not direct:
            continue
        dirs = {_dir_of(f.path) for f in direct}
        role = model_role(" ".join(str(f.detail.get("model", "")) for f in direct)) or "agent"
        if role == "agent" and len(dirs) == 1 and "" not in dirs:
            by_dir.setdefault(dirs.pop(), []).append(key)
    for d, keys in by_dir.items():
        paths = {f.path for k in keys for f in groups[k] if f.kind not in ("via_wrapper", "client")}
        if len(keys) < 2 or len(paths) < 2:
            continue
        combined = [f for k in sorted(keys) for f in groups.pop(k)]
        groups[("/".join(sorted({k[0] for k in keys})), _VARIANTS + d)] = combined


_ADDRESSES_AGENT = re.compile(r"\byou are\b[^.]{0,80}\bagent\b", re.I)


def external_agents(survey: Survey) -> list[list[Finding]]:
    """Prompt files that address an agent ("You are an autonomous coding agent") and
    that the code reads only to write them out again, with no model call reachable from
    the reading function: the model that follows them runs outside the repository.
    Each entry is [prompt file, read site, write site]."""
    out: list[list[Finding]] = []
    seen: set[str] = set()
    prompts = survey.by_category("prompt")
    for pf in prompts:
        if pf.kind != "prompt_file":
            continue
        if not _ADDRESSES_AGENT.search(str(pf.detail.get("first_instruction", ""))):
            continue
        reads = [r for r in prompts if r.kind == "prompt_read" and r.detail.get("file") == pf.path]
        for r in reads:
            if r.node in seen:
                continue
            reached = survey.reachable(r.node)
            if any(f.category == "model_call" for n in reached for f in survey.findings_at(n)):
                continue
            writes = [
                w
                for w in survey.findings_at(r.node)
                if w.category == "persistence" and w.kind in ("write", "append", "copy")
            ]
            if writes:
                seen.add(r.node)
                out.append([pf, r, writes[0]])
                break
    return out


def model_role(name: str) -> str | None:
    """The role a model plays, read from the name of its setting or argument
    (``user_model`` → user simulator, ``JUDGE_MODEL`` → grader, ``AGENT_MODEL`` → agent)."""
    for role, rx in _ROLES:
        if rx.search(name):
            return role
    return None


def route_summary(reached: list[Finding]) -> str:
    """What a route decides or produces, in a few words for its label: a gate that
    promotes, a score gate, model calls, the artifacts it writes (at most two parts)."""
    parts: list[str] = []
    promos = [f for f in reached if f.kind == "promotion"]
    gates = [f for f in reached if f.kind == "threshold" and decisive_rank(f) == 1]
    if promos:
        parts.append(f"score gate and promotion into {promos[0].detail.get('stores')}")
    elif gates:
        parts.append("score gate")
    if any(f.category == "model_call" and f.kind != "client" for f in reached):
        parts.append("model calls")
    writes = [
        artifact_key(f).rsplit("/", 1)[-1]
        for f in reached
        if f.category == "persistence" and f.kind in ("write", "append", "json", "copy")
    ]
    writes = [w for w in dict.fromkeys(writes) if re.search(r"\.\w{1,6}$", w)]
    if writes and len(parts) < 2:
        parts.append("writes " + join_names(writes, 2))
    return "; ".join(parts[:2])


def decisive_rank(f: Finding) -> int:
    """How directly a gating finding decides an outcome, lowest first: storing a
    selection's result (promotion), a comparison between two named values (a score
    against a threshold or the best so far), a comparison with a literal, a choice by
    max/min, then the rest (aggregations and reports)."""
    if f.kind == "promotion":
        return 0
    if f.kind == "threshold":
        cmp = str(f.detail.get("comparison", ""))
        named = re.search(r"(<=|>=|<|>)\s*[A-Za-z_]", cmp) is not None
        return 1 if named else 2
    if f.kind in ("selection", "answer_check"):
        return 3
    return 4


def _zip_longest(rows: list[list[Finding]]) -> list[list[Finding]]:
    """Rows regrouped column by column: the first of each, then the second of each, ..."""
    out: list[list[Finding]] = []
    depth = max((len(r) for r in rows), default=0)
    for i in range(depth):
        out.append([r[i] for r in rows if i < len(r)])
    return out


def _reads_one_of(r: Finding, keys: list[str], arts: dict[str, list[Finding]]) -> bool:
    """Whether read-back ``r`` reads one of the artifacts ``keys`` (by resolved value, or
    by the very expression a write of that artifact used)."""
    if r.detail.get("written_value") in keys or r.detail.get("target_value") in keys:
        return True
    written = str(r.detail.get("written_as", ""))
    return any(str(f.detail.get("target", "")) == written for k in keys for f in arts[k])


def _is_store(fs: list[Finding]) -> bool:
    return any(f.kind == "sqlite" for f in fs)


def _dir_of(key: str) -> str:
    return key.rsplit("/", 1)[0] + "/" if "/" in key else ""


def artifact_family(key: str, fs: list[Finding], arts: dict[str, list[Finding]]) -> str:
    """What an analyst would review as one operative object.

    Artifacts a run keeps side by side in one directory (a workspace of state files)
    are one object; so are files of one name kept in several directories (one split
    file per benchmark); bare file names written by one module are that module's
    outputs; a database stays alone; paths only computed at run time (a variable, not
    a literal) are grouped by the module that writes them, since nothing else names
    them."""
    if key == "git repository state":
        return key
    if _is_store(fs):
        return f"key:{key}"  # a database is a store with its own schema, reviewed alone
    if "/" in key and not key.startswith(("/", ".")):
        d = _dir_of(key)
        if any(_dir_of(k) == d and k != key and not _is_store(v) for k, v in arts.items()):
            return f"dir:{d}"
        base = key.rsplit("/", 1)[-1]
        if sum(1 for k in arts if k != key and k.rsplit("/", 1)[-1] == base) >= 1:
            return f"base:{base}"
        return f"key:{key}"
    writer = sorted(f.path for f in fs)[0]
    if re.search(r"\.[A-Za-z0-9]{1,6}$", key) and re.fullmatch(r"[\w.-]+", key):
        return f"files:{writer}"
    if re.fullmatch(r"[A-Za-z_][\w.]*", key):
        return f"vars:{writer}"
    return f"key:{key}"


def _family_label(fam: str, keys: list[str]) -> str:
    kind, _, name = fam.partition(":")
    if len(keys) == 1 and kind != "vars":
        return f"Persisted artifact: {keys[0]}"
    if kind == "dir":
        return f"Persisted artifacts in {name}: " + join_names(
            [k.rsplit("/", 1)[-1] for k in keys], 5
        )
    if kind == "base":
        return f"Persisted artifacts named {name} in " + join_names([_dir_of(k) for k in keys], 4)
    if kind == "files":
        return f"Persisted artifacts written by {name}: {join_names(keys, 5)}"
    if kind == "vars":
        return f"Persisted files at run-time paths in {name}: {join_names(keys, 4)}"
    return f"Persisted artifact: {name}"


def _family_slug(fam: str, keys: list[str]) -> str:
    kind, _, name = fam.partition(":")
    if len(keys) == 1 and kind != "vars":
        key = keys[0]
        return slug(key.rsplit("/", 1)[-1] if key != "git repository state" else "git-state")
    if kind == "dir":
        return slug(name.rstrip("/").rsplit("/", 1)[-1])
    if kind == "base":
        return slug(name)
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return slug(stem, "outputs" if kind == "files" else "runtime-paths")


def _prompt_name(f: Finding) -> str:
    if f.kind == "prompt_file":
        return f.path.rsplit("/", 1)[-1]
    return str(f.detail.get("name") or f"{f.symbol}:{f.start_line}")


def _common_dir(paths: list[str]) -> str:
    parts = [p.split("/")[:-1] for p in paths]
    common: list[str] = []
    for level in zip(*parts, strict=False):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common) + "/" if common else "the repository root"


def prompt_families(survey: Survey, groups: dict[str, list[Finding]]) -> dict[str, list[str]]:
    """Prompt groups an analyst reviews together, keyed by a sortable family name.

    Prompt files one function selects among or composes (a base text plus one
    supplement per benchmark) are one object: they reach the same consumer by the same
    channel.  Instruction strings in sibling modules of one directory (one constant per
    variant of an agent) are one object for the same reason.  Anything else stays alone.
    """
    loader: dict[str, str] = {}
    for f in survey.by_category("prompt"):
        if f.kind in ("prompt_load", "prompt_read") and f.detail.get("file"):
            loader.setdefault(f"file:{f.detail['file']}", f.node)
    by_loader: dict[str, list[str]] = {}
    for key in groups:
        if key.startswith("file:") and key in loader:
            by_loader.setdefault(loader[key], []).append(key)
    fam: dict[str, list[str]] = {}
    for key, fs in groups.items():
        if key.startswith("file:"):
            node = loader.get(key)
            if node is not None and len(by_loader[node]) > 1:
                fam.setdefault(f"1:{node}", []).append(key)
            else:
                fam.setdefault(f"1:{key}", []).append(key)
        else:
            fam.setdefault(f"0:{_dir_of(fs[0].path)}", []).append(key)
    return {k: sorted(v) for k, v in fam.items()}


def _round_robin(fs: list[Finding]) -> list[Finding]:
    """One finding of each kind in turn, so a few witnesses show every kind of fact."""
    by: dict[str, list[Finding]] = {}
    for f in fs:
        by.setdefault(f.kind, []).append(f)
    out: list[Finding] = []
    while any(by.values()):
        for k in list(by):
            if by[k]:
                out.append(by[k].pop(0))
    return out


def _budget(items: list[PlanItem], n: int) -> list[PlanItem]:
    """At most ``n`` items without starving any kind: components first, then one item of
    each other kind in turn (each list is already ranked), kept in plan order."""
    if len(items) <= n:
        return items
    queues = {k: [i for i in items if i.kind == k] for k in ("CMP", "RTE", "OBJ", "BAP", "CLM")}
    # objects interleave their sorts (artifacts, prompts, tool registries, scores)
    sorts: dict[str, list[PlanItem]] = {}
    for i in queues["OBJ"]:
        sorts.setdefault(i.label.split(" ", 1)[0], []).append(i)
    queues["OBJ"] = []
    while any(sorts.values()):
        for q in sorts.values():
            if q:
                queues["OBJ"].append(q.pop(0))
    chosen: set[str] = {i.id for i in queues.pop("CMP")[: max(1, n // 4)]}
    while len(chosen) < n and any(queues.values()):
        for q in queues.values():
            if q and len(chosen) < n:
                chosen.add(q.pop(0).id)
    return [i for i in items if i.id in chosen]


def _steps(fs: list[Finding], limit: int = 7) -> list[str]:
    """Short labels for the facts of one function, in source order, for a progression."""
    out: list[str] = []
    for f in fs:
        if f.category == "model_loop" and f.kind == "loop_step":
            label = f"{f.detail.get('call', 'step')}()"
        elif f.category == "model_loop":
            label = f"loop {' '.join(f.snippet.split())[:50].rstrip(':')}"
        elif f.category == "model_call" and f.kind != "client":
            label = f"{f.detail.get('call', 'model')} ({f.detail.get('provider', 'model')})"
        elif f.category == "exec_effect":
            label = f"{f.detail.get('call', f.kind)} (execution)"
        elif f.category == "tool_dispatch":
            label = f"{f.kind.replace('_', ' ')}"
        elif f.category == "persistence":
            tgt = str(f.detail.get("target_value") or f.detail.get("target") or "")
            label = f"{f.kind} {tgt[:40]}".strip()
        else:
            continue
        if label not in out:
            out.append(label)
        if len(out) >= limit:
            break
    return out


def _spread(fs: list[Finding], limit: int) -> list[Finding]:
    """Up to ``limit`` findings, taking categories round-robin so none crowds the others out."""
    by: dict[str, list[Finding]] = {}
    for f in fs:
        by.setdefault(f.category, []).append(f)
    out: list[Finding] = []
    while len(out) < limit and any(by.values()):
        for cat in list(by):
            if by[cat] and len(out) < limit:
                out.append(by[cat].pop(0))
    return out


def _entry_name(u: EntryUnit) -> str:
    f = u.primary
    if f.kind == "console_script":
        return f"console script {f.detail.get('script')}"
    if f.kind in ("click", "typer"):
        return f"{f.kind} command {f.symbol}"
    if f.kind in ("shell", "dockerfile"):
        tgt = f.detail.get("target_path") or f.detail.get("target_module") or "python"
        return f"{f.path} running {tgt}"
    return (
        f"python {f.path}"
        if not f.path.endswith("__main__.py")
        else f"python -m {f.path[:-12].replace('/', '.')}"
    )


MAX_STEPS = 8


def progression_nodes(u: EntryUnit, survey: Survey | None = None) -> list[str]:
    """The chain shown as ``Endpoints/progression``.

    An analyst reads a route as the entry's own steps in call order (load config →
    prepare → run → record), so the entry node's direct callees that lead to a fact
    come first; then the deepest relevant step is followed down its shortest chain to
    a model call (or an effect) so the chain ends where the route does its work.
    """
    if not u.chains:
        return [u.node]
    fact_nodes = {f.node for f in u.reached}
    steps: list[str] = []
    if survey is not None:
        for callee in survey.call_graph.callees(u.node):
            if callee.endswith(("::<module>", ".__init__")) and callee not in fact_nodes:
                continue
            if callee in fact_nodes or any(
                n in fact_nodes for n in survey.reachable(callee, max_depth=6)
            ):
                steps.append(callee)
            if len(steps) >= MAX_STEPS:
                break
    model_nodes = {f.node for f in u.reached if f.category == "model_call"}
    pool = [c for c in u.chains if c[-1] in model_nodes] or u.chains
    deep = max(pool, key=lambda c: (len(c), -u.chains.index(c)))
    if not steps:
        return deep
    out = [u.node, *steps]
    # the entry's steps in call order; the last step is followed down toward the model
    if steps[-1] in deep:
        i = deep.index(steps[-1])
        out += [x for x in deep[i + 1 :] if x not in out][:3]
    return out


_STOP = frozenset(
    "which there their these those about would should every always never agent only must cannot "
    "the that with from this when then than into your have been will each what also more most "
    "some such them they were does done make made used uses using file files code".split()
)
#: Claim words that point at a category of code: a sandbox claim is about execution, etc.
_TOPICS = (
    (
        re.compile(r"sandbox|internet|network|isolat|shell|command|docker|container", re.I),
        "exec_effect",
    ),
    (
        re.compile(r"persist|saved?|stored?|logged|record|history|append|written", re.I),
        "persistence",
    ),
    (re.compile(r"score|threshold|pass|best|gate|reward|accura|must pass|≥|>=", re.I), "gating"),
    (re.compile(r"tool|plugin|registry|dispatch", re.I), "tool_dispatch"),
    (re.compile(r"prompt|instruction|model|llm|claude|gpt", re.I), "model_call"),
)


def _stem(word: str) -> str:
    w = word.lower().strip("./-_`*")
    for suffix in ("ing", "es", "ed", "s"):
        if len(w) > 5 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


_IDENT = re.compile(r"`([^`]+)`|\b([A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]*|[\w-]+\.[a-z]{2,5})\b")


def code_names(survey: Survey) -> set[str]:
    """Identifier-like names the repository's code uses: its Python files, function
    names, and names with an underscore or a file extension in the snippets of its
    Python findings."""
    out = {n.symbol.rsplit(".", 1)[-1] for n in survey.call_graph.functions.values()}
    for node in survey.call_graph.functions:  # the repository's Python files by name
        path = node.split("::", 1)[0]
        out.update({path, path.rsplit("/", 1)[-1]})
    for f in survey.findings:
        if not f.path.endswith(".py") or f.category == "claim":
            continue
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[a-z]{2,5}\b)?", f.snippet):
            w = m.group(0)
            if "_" in w.strip("_") or "." in w:
                out.add(w)
        for v in f.detail.values():
            if isinstance(v, str) and re.fullmatch(r"[\w./-]+\.[a-z]{2,5}", v):
                out.add(v.rsplit("/", 1)[-1])
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


def _related(
    survey: Survey,
    sentence: str,
    exclude: Finding,
    limit: int = 2,
    identifiers: list[str] | None = None,
) -> list[Finding]:
    """Code a claim bears on: findings sharing distinctive word stems with the sentence,
    with a bonus for the category the claim talks about (sandbox → execution effects)
    and a larger one for each identifier the claim names that the finding's line uses
    (a rule about ``val_score`` is checked where ``val_score`` is compared)."""
    stems = {_stem(w) for w in re.findall(r"[A-Za-z_][A-Za-z0-9_./-]{3,}", sentence)}
    stems = {s for s in stems if len(s) >= 4 and s not in _STOP}
    topics = {cat for rx, cat in _TOPICS if rx.search(sentence)}
    if not stems:
        return []
    scored = []
    for f in survey.findings:
        if (
            f is exclude
            or f.category in ("claim", "config_read", "entry_point")
            or f.path.endswith(".md")
        ):
            continue
        text = " ".join([f.snippet, f.symbol, *(str(v) for v in f.detail.values())]).lower()
        hit = sum(1 for s in stems if s in text)
        own = " ".join([f.snippet, f.symbol, *(str(v) for v in f.detail.values())])
        exact = sum(1 for n in identifiers or [] if re.search(rf"(?<![\w.]){re.escape(n)}\b", own))
        if hit == 0 and exact == 0:
            continue
        total = hit + 3 * exact + (1 if f.category in topics else 0)
        if total >= 2:
            scored.append((-total, f.path, f.start_line, f))
    scored.sort(key=lambda t: t[:3])
    return [t[3] for t in scored[:limit]]
