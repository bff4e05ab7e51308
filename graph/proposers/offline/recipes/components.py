"""Components: the model endpoints a system calls, configures or addresses.

Three recipes: ``endpoint`` (one per distinct provider/model the code calls, its
wrappers folded in), ``role_model`` (a model role the code names in settings but
hands to outside code to call) and ``external_agent`` (an agent the repository
instructs through a program file it writes out, without calling a model itself).
"""

from __future__ import annotations

import re

from drafter.ids import slug
from drafter.model import Block, Record
from graph.proposer import PlanItem
from graph.proposers.offline.labels import shows_provider
from graph.proposers.offline.prose import join_names, para, short_symbol, where
from graph.proposers.offline.rank import dir_of, path_class
from graph.proposers.offline.recipe import DraftContext, PlanState
from retrieval.survey import Finding
from retrieval.survey.index import SurveyIndex
from retrieval.survey.model import Category

MAX_COMPONENTS = 6
_VARIANTS = "agent variants in "

#: Model roles told apart by the names code gives a model setting or argument.  Checked
#: in order: a "user_model" is a user simulator even though it says "model".
_ROLES = (
    ("user simulator", re.compile(r"user|simulat|(^|_)sim(_|$)", re.I)),
    ("grader", re.compile(r"judge|grader|grading|critic|reward_model|evaluator|verifier", re.I)),
    ("agent", re.compile(r"agent|policy|actor|assistant|llm|model", re.I)),
)
_ADDRESSES_AGENT = re.compile(r"\byou are\b[^.]{0,80}\bagent\b", re.I)


def model_role(name: str) -> str | None:
    """The role a model plays, read from the name of its setting or argument."""
    for role, rx in _ROLES:
        if rx.search(name):
            return role
    return None


#: The API a call's own shape belongs to: what the quoted line shows, whatever else the
#: file imports (a file importing two SDKs calls each through its own method).
_CALL_SHAPES = (
    (re.compile(r"\.messages\.(create|stream)$"), "anthropic"),
    (
        re.compile(
            r"\.(chat\.completions\.(create|parse)|responses\.create|completions\.create"
            r"|embeddings\.create)$"
        ),
        "openai",
    ),
    (re.compile(r"(^|\.)generate_content$"), "google"),
)


def call_provider(f: Finding) -> str:
    """The provider a model call's quoted line shows: its API shape when the survey's
    provider (read from the file's imports) names another SDK, else the survey's."""
    said = str(f.detail.get("provider", "model"))
    call = str(f.detail.get("call", ""))
    for rx, api in _CALL_SHAPES:
        if rx.search(call):
            return said if said.startswith(api) else api
    return said


def endpoint_key(f: Finding, ix: SurveyIndex | None = None) -> tuple[str, str]:
    """(provider, model) naming one endpoint; a call through a repository wrapper
    belongs to the endpoint of the direct model call it reaches."""
    if f.kind == "via_wrapper" and ix is not None:
        target = ix.finding(f.detail.get("reaches", ""))
        if target is not None and target.kind != "via_wrapper":
            return endpoint_key(target)
    provider = call_provider(f)
    model = str(f.detail.get("model_value") or f.detail.get("model") or "")
    return provider, model or f"{f.symbol} in {f.path}"


def _merge_agent_variants(groups: dict[tuple[str, str], list[Finding]]) -> None:
    """Agent endpoints called from sibling modules of one directory are variants of one
    agent (one template per benchmark): one component, whatever SDK each uses."""
    by_dir: dict[str, list[tuple[str, str]]] = {}
    for key, fs in groups.items():
        direct = [f for f in fs if f.kind not in ("via_wrapper", "client")]
        dirs = {dir_of(f.path) for f in direct}
        role = model_role(" ".join(f.detail.get("model", "") for f in direct)) or "agent"
        if direct and role == "agent" and len(dirs) == 1 and "" not in dirs:
            by_dir.setdefault(dirs.pop(), []).append(key)
    for d, keys in by_dir.items():
        paths = {f.path for k in keys for f in groups[k] if f.kind not in ("via_wrapper", "client")}
        if len(keys) >= 2 and len(paths) >= 2:
            combined = [f for k in sorted(keys) for f in groups.pop(k)]
            groups[("/".join(sorted({k[0] for k in keys})), _VARIANTS + d)] = combined


def endpoint_groups(ix: SurveyIndex) -> list[tuple[tuple[str, str], list[Finding]]]:
    """Model-call findings grouped per endpoint, most call sites (own code) first."""
    groups: dict[tuple[str, str], list[Finding]] = {}
    clients = []
    for f in ix.category(Category.MODEL_CALL):
        if f.kind == "client":
            clients.append(f)  # a client constructor is evidence for an endpoint, not one
        else:
            groups.setdefault(endpoint_key(f, ix), []).append(f)
    for c in clients:
        for key, fs in sorted(groups.items()):
            if key[0] == c.detail.get("provider") and any(f.path == c.path for f in fs):
                fs.append(c)
                break
    _merge_agent_variants(groups)

    def order(kv: tuple[tuple[str, str], list[Finding]]) -> tuple[int, int, tuple[str, str]]:
        own = [f for f in kv[1] if f.kind != "client"]
        return (min(path_class(f.path) for f in kv[1]), -len(own), kv[0])

    return sorted(groups.items(), key=order)


def _settings_for(ix: SurveyIndex, fs: list[Finding]) -> list[Finding]:
    """Model settings in the calling files, and the constants the model argument names."""
    named = {f.detail.get("model", "").rsplit(".", 1)[-1] for f in fs}
    named = {n for n in named if re.fullmatch(r"[A-Z][A-Z0-9_]+", n)}
    paths = {f.path for f in fs}
    out = []
    for c in ix.category(Category.CONFIG_READ):
        in_caller = c.path in paths and (
            c.kind == "model_setting" or "MODEL" in c.detail.get("env", "").upper()
        )
        names_it = c.kind == "model_setting" and any(
            re.match(rf"\s*{n}\s*[:=]", c.snippet) for n in named
        )
        if in_caller or names_it:
            out.append(c)
    return out


class Endpoint:
    name = "endpoint"
    kind = "CMP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        items = []
        groups = endpoint_groups(st.ix)
        if any(min(path_class(f.path) for f in fs) == 0 for _, fs in groups):
            groups = [(k, fs) for k, fs in groups if min(path_class(f.path) for f in fs) == 0]
        for (provider, model), fs in groups[:MAX_COMPONENTS]:
            direct = [f for f in fs if f.kind not in ("via_wrapper", "client")]
            via = sorted(
                (f for f in fs if f.kind == "via_wrapper"),
                key=lambda f: (path_class(f.path), f.path, f.start_line),
            )
            fs = direct[:8] + [f for f in fs if f.kind == "client"][:1] + via[:6]
            settings = _settings_for(st.ix, fs)
            if model.startswith(_VARIANTS):
                where_ = model[len(_VARIANTS) :]
                label = f"Agent model ({provider.replace('/', ', ')}) in {where_}"
                s = slug("agent-model", where_.rstrip("/").rsplit("/", 1)[-1])
            else:
                label, s = (
                    _endpoint_label(provider, model, direct or fs),
                    slug(provider, model.split(" in ")[0]),
                )
            role = (
                model_role(" ".join(f.detail.get("model", "") for f in fs))
                or model_role(" ".join(c.detail.get("name", "") for c in settings))
                or "agent"
            )
            items.append(
                st.item(
                    self,
                    s,
                    label,
                    fs + settings[:5],
                    f"Distinct model endpoint reached through {provider} at {len(fs)} call "
                    "site(s).",
                    {"role": role, "provider": provider, "variants": model.startswith(_VARIANTS)},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        fs = ctx.findings
        calls = [
            f for f in fs if f.category == Category.MODEL_CALL and f.kind not in ("via_wrapper",)
        ]
        via = [f for f in fs if f.kind == "via_wrapper"]
        settings = [f for f in fs if f.category == Category.CONFIG_READ]
        direct = [c for c in calls if c.kind != "client"]
        first = (direct or calls or via or fs)[0]
        blocks: list[Block] = [para(_identity(first, direct))]
        extra = []
        model_settings = [
            f"{s.detail.get('name')} = {s.detail.get('value')} ({s.path}:{s.start_line})"
            for s in settings
            if s.kind == "model_setting"
        ]
        if model_settings:
            extra.append(f"Model settings in the source: {join_names(model_settings, 3)}.")
        env = [str(s.detail.get("env")) for s in settings if s.detail.get("env")]
        if env:
            extra.append(
                f"Configuration read by name: {join_names(env)} (values are not recorded)."
            )
        if via:
            wrappers = join_names(sorted({short_symbol(v.detail.get("via", "")) for v in via}), 3)
            extra.append(
                f"Reached through the repository's wrappers ({wrappers}) from "
                f"{join_names([where(v) for v in via], 5)}."
            )
        sites = join_names([where(c) for c in direct], 6)
        blocks.append(para(f"Call sites: {sites}. " + " ".join(extra)))
        call_nodes = {c.node for c in direct}
        settings.sort(key=lambda s: (s.node not in call_nodes, s.path, s.start_line))
        if ctx.item.hints.get("variants"):
            direct = _one_per_provider(direct)
        # the deciding lines: the call itself, the model it names, one wrapper use
        rec = ctx.record(blocks, direct[:2] + settings[:1] + via[:1] + direct[2:])
        if ctx.item.hints.get("variants"):
            rec.label = _variants_label(ctx.item.label, str(ctx.item.hints.get("provider")), rec)
        return rec


def _one_per_provider(calls: list[Finding]) -> list[Finding]:
    """Calls of several agent variants, one per provider first (a call whose own line
    shows its provider before one that does not), so the quotes can show the SDKs the
    label names; the rest after, in the order given."""
    shown = sorted(
        calls, key=lambda c: not shows_provider(str(c.detail.get("provider", "")), c.snippet)
    )
    first: dict[str, Finding] = {}
    for c in shown:
        first.setdefault(str(c.detail.get("provider", "")), c)
    picks = sorted(first.values(), key=lambda c: shown.index(c))
    return picks + [c for c in calls if c not in picks]


def _variants_label(label: str, providers: str, rec: Record) -> str:
    """The variants label naming only the SDKs the record's quotes show; the others are
    counted ("litellm, 2 other SDKs"), never named."""
    quotes = " ".join(w.quote for w in rec.witnesses)
    names = [p for p in providers.split("/") if p]
    seen = [p for p in names if shows_provider(p, quotes)]
    other = len(names) - len(seen)
    if other:
        seen.append(f"{other} other SDK{'s' if other > 1 else ''}")
    return re.sub(r"^Agent model \([^()]*\)", f"Agent model ({', '.join(seen)})", label)


def _endpoint_label(provider: str, model: str, calls: list[Finding]) -> str:
    """``openai model endpoint: gpt-4o``; when the call only passes a parameter along
    (``model=model``), where the calls are instead of the parameter's bare name."""
    resolved = any(c.detail.get("model_value") for c in calls)
    if resolved or not re.fullmatch(r"[\w.]+", model):
        return f"{provider} model endpoint: {model}"
    files = join_names(list(dict.fromkeys(c.path for c in calls)), 2)
    return f"{provider} model endpoint in {files} (model passed in as {model})"


def _identity(first: Finding, direct: list[Finding]) -> str:
    provider = call_provider(first)
    model, value = first.detail.get("model"), first.detail.get("model_value")
    model_txt = (
        f"model {model}" if model else "model not named at the call (passed through arguments)"
    )
    if value and value != model:
        model_txt += f", which resolves in {first.path} to {value}"
    call = first.detail.get("call", "")
    ident = f"Source-native identity: {provider} call {call} in {where(first)}, {model_txt}."
    variants = sorted({c.path for c in direct})
    if len(variants) > 1:
        ident = (
            f"Source-native identity: one agent model reached from {len(variants)} variants of "
            f"the agent ({join_names(variants, 4)})."
        )
    return (
        f"{ident} Representational form: distributed-parametric (an external model reached "
        "over its client or API). Storage substrate: external provider or model deployment, "
        "not repository files; provider-side model changes are unknown."
    )


class RoleModel:
    name = "role_model"
    kind = "CMP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        called = {str(i.hints.get("role")) for i in st.of_recipe("endpoint")}
        pinned = {fid for i in st.of_recipe("pinned_model") for fid in i.facts}
        by_role: dict[str, list[Finding]] = {}
        for c in st.ix.category(Category.CONFIG_READ):
            if c.kind == "model_setting" and c.id not in pinned:
                role = model_role(c.detail.get("name", ""))
                if role is not None and role not in called:
                    by_role.setdefault(role, []).append(c)
        items = []
        for role, cs in sorted(by_role.items()):
            cs = sorted(cs, key=lambda c: (path_class(c.path), c.path, c.start_line))
            names = join_names([c.detail.get("name", "") for c in cs], 3)
            items.append(
                st.item(
                    self,
                    slug(role, "model"),
                    f"{role.capitalize()} model: {names}",
                    cs[:4],
                    f"A {role} model named in configuration, called by code outside the "
                    "repository.",
                    {"role": role},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        role = str(ctx.item.hints.get("role", "model"))
        settings = ctx.findings
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
                f"{named}. "
                "Representational form: distributed-parametric (an external model). Storage "
                "substrate: external provider or model deployment, not repository files."
            ),
            para(
                "No model call in the repository uses this setting directly: it is passed on to "
                "code outside the repository, which makes the calls; the calls are uninspected."
            ),
        ]
        return ctx.record(blocks, settings)


def external_agents(ix: SurveyIndex) -> list[list[Finding]]:
    """Prompt files addressing an agent that the code reads only to write them out again
    (no model call reachable from the reader): [prompt file, read site, write site]."""
    out: list[list[Finding]] = []
    seen: set[str] = set()
    prompts = ix.category(Category.PROMPT)
    for pf in prompts:
        if pf.kind != "prompt_file" or not _ADDRESSES_AGENT.search(
            pf.detail.get("first_instruction", "")
        ):
            continue
        for r in [
            r for r in prompts if r.kind == "prompt_read" and r.detail.get("file") == pf.path
        ]:
            if r.node in seen or any(
                f.category == Category.MODEL_CALL for f in ix.reached_findings(r.node)
            ):
                continue
            writes = [
                w
                for w in ix.at(r.node)
                if w.category == Category.PERSISTENCE and w.kind in ("write", "append", "copy")
            ]
            if writes:
                seen.add(r.node)
                out.append([pf, r, writes[0]])
                break
    return out


class ExternalAgent:
    name = "external_agent"
    kind = "CMP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        items = []
        for it in external_agents(st.ix)[:1]:
            path = it[0].path
            items.append(
                st.item(
                    self,
                    slug("external-agent", path.rsplit("/", 1)[-1].split(".")[0]),
                    f"External agent model addressed by {path}",
                    it,
                    "An agent the repository instructs but does not call.",
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        if len(ctx.findings) < 3:
            return None
        pfile, read, write = ctx.findings[:3]
        target = write.detail.get("target_value") or write.detail.get("target") or "a file"
        blocks: list[Block] = [
            para(
                f"Source-native identity: the agent addressed by {pfile.path}, which "
                f"{where(read)} reads and writes out to {target} ({where(write)}); no model "
                "call is reachable from that function, so the model that follows the text "
                "runs outside the repository. "
                "Representational form: distributed-parametric, inside an agent runtime the "
                "repository does not contain. Model and version: uninspected."
            ),
            para(
                "What the repository supplies is instruction: procedure, edit scope and stopping "
                "rules; whether the agent complies is not enforced by this code."
            ),
        ]
        return ctx.record(blocks, [pfile, read, write])


MAX_PINNED = 3
#: A setting's value that is itself the model's name: a string literal (an f-string
#: counts), not an expression that reads it from elsewhere.
_LITERAL = re.compile(r"""^\s*f?(["'])[^"']*[A-Za-z][^"']*\1\s*$""")


def _setting_name(c: Finding) -> str:
    return c.detail.get("name", "").rsplit(".", 1)[-1]


def pinned_models(ix: SurveyIndex) -> list[list[Finding]]:
    """Model names the system's own code pins in a setting, each as [the settings naming
    it, the settings that take it over, model calls that name it]: what an analyst
    quotes for "which model is this" when the calls only pass a parameter along.

    A setting counts when other own-code settings take it over by name (``self.code_model
    = CLAUDE_MODEL``), or when it is the only pinned model of a file that calls a model
    (``diagnose_model = 'o1-…'`` beside the wrapper calls) — a file listing many model
    names is a menu, not a choice.  One name taken over by the same code in several
    files (one per variant) is one model setting."""
    settings = [c for c in ix.category(Category.CONFIG_READ) if c.kind == "model_setting"]
    own = [c for c in settings if path_class(c.path) == 0]
    literal = [c for c in own if _LITERAL.match(c.detail.get("value", ""))]
    per_file: dict[str, int] = {}
    for c in literal:
        per_file[c.path] = per_file.get(c.path, 0) + 1
    calls = [f for f in ix.category(Category.MODEL_CALL) if f.kind != "client"]
    call_args = {f.detail.get("model", "") for f in calls}
    groups: dict[tuple[str, ...], tuple[list[Finding], list[Finding]]] = {}
    for lit in literal:
        name = _setting_name(lit)
        if str(lit.detail.get("name")) in call_args:
            continue  # the endpoint the call names already carries it
        word = re.compile(rf"\b{re.escape(name)}\b")
        users = [c for c in own if c is not lit and word.search(c.detail.get("value", ""))]
        sole = per_file[lit.path] == 1 and any(f.path == lit.path for f in calls)
        if users or sole:
            key = (name, *sorted(u.id for u in users)) if users else (name, lit.id)
            groups.setdefault(key, ([], users))[0].append(lit)
    out: list[tuple[int, list[Finding]]] = []
    for (name, *_), (lits, users) in groups.items():
        word = re.compile(rf"\b{re.escape(name)}\b")
        paths = {x.path for x in lits}
        callers = [f for f in calls if f.path in paths or word.search(f.snippet)]
        out.append((len(users), [lits[0], *users[:2], *callers[:2], *lits[1:]]))
    out.sort(key=lambda t: (-t[0], t[1][0].path, t[1][0].start_line))
    return [fs for _, fs in out[:MAX_PINNED]]


def _users(fs: list[Finding]) -> list[Finding]:
    """The settings that take the pinned name over (not its variants in other files)."""
    name = _setting_name(fs[0])
    return [f for f in fs[1:] if f.category == Category.CONFIG_READ and _setting_name(f) != name]


class PinnedModel:
    name = "pinned_model"
    kind = "CMP"

    def plan(self, st: PlanState) -> list[PlanItem]:
        items = []
        for fs in pinned_models(st.ix):
            lit = fs[0]
            users = _users(fs)
            role = model_role(" ".join(_setting_name(c) for c in [*users, lit])) or "agent"
            name = _setting_name(lit)
            values = join_names(
                list(
                    dict.fromkeys(
                        f.detail.get("value", "").strip("f\"'")
                        for f in fs
                        if f.category == Category.CONFIG_READ and _setting_name(f) == name
                    )
                ),
                3,
            )
            taken = f" (used as {join_names([str(u.detail.get('name')) for u in users])})"
            items.append(
                st.item(
                    self,
                    slug(name.lower() if "model" in name.lower() else name + "-model"),
                    f"{role.capitalize()} model pinned as {name} = {values}"
                    + (taken if users else ""),
                    fs,
                    "A model name the system's own code pins and hands to its model calls.",
                    {"role": role},
                )
            )
        return items

    def draft(self, ctx: DraftContext) -> Record | None:
        fs = ctx.findings
        if not fs:
            return None
        lit = fs[0]
        users = _users(fs)
        variants = [f for f in fs[1:] if f.category == Category.CONFIG_READ and f not in users]
        calls = [f for f in fs[1:] if f.category == Category.MODEL_CALL]
        said = join_names(
            [
                f"{v.detail.get('name')} = {v.detail.get('value')} ({where(v)})"
                for v in [lit, *variants]
            ],
            4,
        )
        blocks: list[Block] = [
            para(
                f"Source-native identity: the model named by {said}"
                + (f", taken over as {join_names([where(u) for u in users], 3)}" if users else "")
                + ". Representational form: distributed-parametric (an external model reached "
                "over its client or API). Storage substrate: external provider or model "
                "deployment, not repository files; provider-side model changes are unknown."
            ),
            para(
                f"Calls that reach it: {join_names([where(c) for c in calls], 3)}."
                if calls
                else "The calls receive it as a parameter; which call sites pass it is "
                "not resolved statically."
            ),
        ]
        # the deciding lines: the name pinned, where the system takes it over, one call
        return ctx.record(blocks, [lit, *users[:1], *calls[:1], *variants, *users[1:]])
