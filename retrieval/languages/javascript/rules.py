"""Survey rules for ES modules (JavaScript and TypeScript), over the shared fact records.

Every rule is written against the language's ordinary shapes -- the packages agent code
imports (``openai``, ``@anthropic-ai/sdk``, ``@google/genai``, ``ai``, LangChain.js,
``child_process``, ``fs``, the MCP SDK) and the syntax it uses them with -- never against
one repository's names.  Each hit says in ``why`` what made it fire.  Calls through a
wrapper the code defines, loops around model calls and read-backs come from the
repository passes, which read the call graph built for each language.
"""

from __future__ import annotations

import re

from retrieval.languages.facts import Call, SourceFile, Span
from retrieval.languages.hits import call_hit
from retrieval.languages.javascript import claims, package, state
from retrieval.roles import in_test_code
from retrieval.survey.base import Hit, clip
from retrieval.survey.details import ConfigDetail, ModelCallDetail, ToolDetail
from retrieval.survey.model import Category, GatingKind, ModelCallKind, PersistenceKind
from retrieval.survey.registry import Registry, Repo

# -- what the packages are ---------------------------------------------------------------

#: Model SDK packages (a prefix match on the import specifier) -> provider.
MODEL_PACKAGES: tuple[tuple[str, str], ...] = (
    ("@anthropic-ai/vertex-sdk", "anthropic-vertex"),
    ("@anthropic-ai/bedrock-sdk", "anthropic-bedrock"),
    ("@anthropic-ai/sdk", "anthropic"),
    ("@anthropic-ai/claude-agent-sdk", "anthropic-agent"),
    ("@google/genai", "google-genai"),
    ("@google/generative-ai", "google-genai"),
    ("@google-cloud/vertexai", "vertex"),
    ("openai", "openai"),
    ("@azure/openai", "azure-openai"),
    ("@mistralai/mistralai", "mistral"),
    ("groq-sdk", "groq"),
    ("ollama", "ollama"),
    ("cohere-ai", "cohere"),
    ("@aws-sdk/client-bedrock-runtime", "bedrock"),
    ("@ai-sdk/", "ai-sdk"),
    ("@langchain/", "langchain"),
    ("langchain", "langchain"),
    ("@openai/agents", "openai-agents"),
)
#: Method chains of the SDK clients that send a request to a model -> kind.
MODEL_METHODS: tuple[tuple[re.Pattern[str], ModelCallKind], ...] = (
    (re.compile(r"\.chat\.completions\.(create|stream|parse)$"), "chat"),
    (re.compile(r"\.responses\.(create|stream|parse)$"), "chat"),
    (re.compile(r"(^|\.)messages\.(create|stream|countTokens)$"), "chat"),
    (re.compile(r"\.completions\.create$"), "completion"),
    (re.compile(r"\.embeddings\.create$"), "embedding"),
    (re.compile(r"(^|\.)models\.(generateContent|generateContentStream)$"), "generate"),
    (re.compile(r"(^|\.)models\.embedContent$"), "embedding"),
    (
        re.compile(r"(^|\.)(generateContent|generateContentStream|sendMessage|sendMessageStream)$"),
        "generate",
    ),
    (re.compile(r"\.getGenerativeModel$"), "client"),
    (re.compile(r"(^|\.)chats\.create$"), "client"),
    (re.compile(r"(^|\.)(invoke|stream|batch|streamEvents)$"), "chat"),
    (re.compile(r"\.send\(?$"), "chat"),
)
#: Functions of the ``ai`` package (Vercel AI SDK) that call a model.
AI_FUNCTIONS: dict[str, ModelCallKind] = {
    "generateText": "generate",
    "streamText": "generate",
    "generateObject": "generate",
    "streamObject": "generate",
    "embed": "embedding",
    "embedMany": "embedding",
}
#: A LangChain or agent-SDK call needs a receiver named like a model for ``invoke``.
_MODEL_RECEIVER = re.compile(r"(model|llm|chat|chain|agent|client|runnable)", re.I)
EXEC_PACKAGES = (
    "child_process",
    "execa",
    "node-pty",
    "@homebridge/node-pty-prebuilt-multiarch",
    "shelljs",
    "cross-spawn",
    "zx",
)
_EXEC_NAMES = frozenset(
    "spawn spawnSync exec execSync execFile execFileSync fork execa execaSync execaCommand "
    "execaCommandSync execaNode $ exec".split()
)
_FS_PACKAGES = ("fs", "fs/promises", "fs-extra", "graceful-fs")
_FS_WRITES: dict[str, PersistenceKind] = {
    "writeFile": "write",
    "writeFileSync": "write",
    "appendFile": "append",
    "appendFileSync": "append",
    "createWriteStream": "write",
    "outputFile": "write",
    "outputFileSync": "write",
    "writeJson": "json",
    "writeJSON": "json",
    "writeJsonSync": "json",
    "outputJson": "json",
    "rm": "delete",
    "rmSync": "delete",
    "unlink": "delete",
    "unlinkSync": "delete",
    "rmdir": "delete",
    "remove": "delete",
    "rename": "move",
    "renameSync": "move",
    "move": "move",
    "copyFile": "copy",
    "copyFileSync": "copy",
    "cp": "copy",
    "cpSync": "copy",
    "copy": "copy",
}
FS_READS = frozenset(
    "readFile readFileSync readJson readJSON readJsonSync createReadStream".split()
)
_MCP_PACKAGES = ("@modelcontextprotocol/sdk",)
_MCP_CALLS = re.compile(
    r"(^|\.)(callTool|listTools|registerTool|setRequestHandler|tool|readResource|getPrompt)$"
)
_CLI_PACKAGES = ("yargs", "commander", "meow", "cac", "clipanion", "oclif", "@oclif/core", "citty")
_MAIN_NAMES = frozenset({"main", "run", "start", "bootstrap", "cli", "runCli", "startServer"})
_LISTEN = re.compile(r"(^|\.)listen$")
_INSTRUCTION = re.compile(
    r"\b(you are|you will|your (task|job|role)|you must|you should|respond (only|with)|"
    r"do not|never|always|instructions?|assistant)\b",
    re.I,
)
_SYSTEM_KEYS = frozenset({"system", "systemInstruction", "instructions", "systemPrompt"})
_APPROVAL = re.compile(
    r"(approv|confirm|consent|permission|askUser|ask_user|yolo|dangerously)",
    re.I,
)
#: Classes of the model SDKs whose construction makes a client (or an agent) that talks
#: to a model; other classes of those packages (errors, tracers) are not model calls.
_CLIENT_CLASS = re.compile(
    r"^(Chat[A-Z]\w*|\w*(OpenAI|Anthropic|GenAI|GenerativeAI|VertexAI|Vertex|Mistral|Groq|"
    r"Ollama|Cohere\w*|BedrockRuntimeClient|Gemini\w*))$"
)
#: Functions of the agent SDKs that run an agent loop against a model.
_AGENT_RUNS = frozenset({"run", "query"})
_AGENT_CLASS = re.compile(r"^(\w*Agent)$")
_ALLOW_LIST = re.compile(
    r"\b\w*(allow|deny|block|white|black|safe|trusted|forbidden|banned)\w*\s*\.\s*(includes|has|some|indexOf)\s*\(",
    re.I,
)
_MODE = re.compile(r"\b\w*mode\w*\s*[!=]==?\s*['\"`][\w-]+['\"`]", re.I)
_SECRET = re.compile(r"(key|token|secret|password|credential)", re.I)


def imports_any(pf: SourceFile, packages: tuple[str, ...]) -> str | None:
    """The first of ``packages`` the file imports (``x`` matches ``x`` and ``x/...``)."""
    for p in packages:
        for m in pf.imported_modules:
            if m == p or m.startswith(p if p.endswith("/") else p + "/"):
                return p
    return None


def _origin(c: Call) -> str:
    """The package a call's head name was imported from, or ''."""
    head = c.callee.split(".")[0]
    return c.full[: -len(c.callee) + len(head)] if c.full != c.callee else ""


# -- entry points ------------------------------------------------------------------------


def es_entries(pf: SourceFile) -> list[Hit]:
    """Shebangs, ``require.main === module``, top-level ``main()`` calls, CLI frameworks
    and servers that listen."""
    out: list[Hit] = []
    bang = pf.shebang or ""
    if "node" in bang or bang.endswith(("tsx", "ts-node", "bun", "deno")):
        out.append(
            Hit.at_line(
                pf.path,
                1,
                symbol="<module>",
                category=Category.ENTRY_POINT,
                kind="shebang",
                detail={
                    "command": clip(bang, 120),
                    "why": f"the file starts with {clip(bang, 40)}: it runs as a program",
                },
            )
        )
    if pf.main_guard:
        out.append(
            Hit(
                category=Category.ENTRY_POINT,
                kind="require_main",
                path=pf.path,
                start_line=pf.main_guard[0],
                end_line=pf.main_guard[0],
                symbol="<main>",
                detail={
                    "module": pf.module,
                    "why": "require.main === module: runs when the file is started",
                },
            )
        )
    return out + _call_entries(pf)


def _call_entries(pf: SourceFile) -> list[Hit]:
    """Top-level ``main()`` calls, CLI frameworks and servers that listen."""
    out: list[Hit] = []
    cli = imports_any(pf, _CLI_PACKAGES)
    handlers = {h.extra.get("def") for h in pf.handlers}  # properties, not module names
    local = {d.name for d in pf.defs if "." not in d.symbol and d.symbol not in handlers}
    for c in pf.calls:
        bare = c.callee.split(".")[-1]
        if (
            c.symbol in ("<module>", "<main>")
            and c.callee_type == "identifier"
            and c.callee in _MAIN_NAMES
            and c.callee in local
        ):
            out.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.ENTRY_POINT,
                    kind="main_call",
                    detail={
                        "function": c.callee,
                        "why": f"top-level call of {c.callee}() starts the program",
                    },
                )
            )
        if cli and (
            (c.full.split(".")[0] == cli and c.callee_type == "identifier")
            or (c.is_new and bare == "Command")
            or bare in ("parseAsync", "hideBin")
        ):
            out.append(
                call_hit(
                    pf, c, Category.ENTRY_POINT, "cli_framework", f"command-line parsing with {cli}"
                )
            )
        if _LISTEN.search(c.callee) and c.positional:
            out.append(
                call_hit(
                    pf,
                    c,
                    Category.ENTRY_POINT,
                    "listen",
                    "a server starts listening",
                    command=clip(c.args_text, 80),
                )
            )
    return out


# -- model calls -------------------------------------------------------------------------


def es_model_calls(pf: SourceFile) -> list[Hit]:
    """Calls of the model SDKs agent code uses, each with its provider from the call's
    shape: a client constructed from an SDK, a method chain of a client, or a function
    of the ``ai`` package; outside tests, also a model object the code is handed."""
    pkg = imports_any(pf, tuple(p for p, _ in MODEL_PACKAGES))
    out: list[Hit] = []
    test = in_test_code(pf.path)
    for c in pf.calls:
        hit = _model_call(pf, c, pkg) or (None if test else _handed_model_call(pf, c))
        if hit is not None:
            out.append(hit)
    return out


#: Methods of a model object the code is handed -> kind: the verbs model interfaces
#: and the SDKs' model objects share (``stream``, ``generate``, ``getResponse``...).
_HANDED_VERBS: dict[str, ModelCallKind] = {
    "stream": "generate",
    "generate": "generate",
    "complete": "completion",
    "doStream": "generate",
    "doGenerate": "generate",
    "generateText": "generate",
    "streamText": "generate",
    "generateContent": "generate",
    "generateContentStream": "generate",
    "chat": "chat",
    "createMessage": "chat",
    "getResponse": "chat",
    "getStreamedResponse": "chat",
    "sendMessage": "chat",
    "sendMessageStream": "chat",
}
#: A receiver named as a model instance: ``model``, ``this.config.model``, ``chatModel``,
#: ``llm`` (a lower-case last name; ``Model.generate`` is a class, not an instance).
_HANDED_RECEIVER = re.compile(r"(^|\.)(model|llm|[a-z]\w*(Model|Llm|LLM))$")


def _handed_model_call(pf: SourceFile, c: Call) -> Hit | None:
    """A model reached through an object the code is handed rather than one it builds
    from an SDK: agent loops call ``this.config.model.stream(request)`` on their own
    model interface, and which provider stands behind it is chosen where the object is
    made.  Without this the loop that calls it is no model loop (the call graph cannot
    follow an interface to its implementations)."""
    if c.callee_type != "attribute" or c.is_new:
        return None
    recv, _, verb = c.callee.rpartition(".")
    kind = _HANDED_VERBS.get(verb)
    if kind is None or not _HANDED_RECEIVER.search(recv):
        return None
    detail: ModelCallDetail = {
        "call": c.callee,
        "provider": "injected",
        "why": f"{verb}() on {clip(recv, 40)}: a call of a model object the code is handed"
        " (its provider is chosen where the object is made)",
    }
    return _model_hit(pf, c, kind, detail)


def _provider(package_name: str | None) -> str:
    for p, prov in MODEL_PACKAGES:
        if package_name == p or (package_name or "").startswith(p):
            return prov
    return package_name or ""


def _model_call(pf: SourceFile, c: Call, pkg: str | None) -> Hit | None:
    origin = c.full.rsplit(".", 1)[0] if c.full != c.callee else ""
    name = c.callee.split(".")[-1]
    detail: ModelCallDetail = {"call": c.callee}
    model = c.kwargs.get("model") or c.kwargs.get("modelId")
    if model:
        detail["model"] = clip(model, 120)
    system = next((c.kwargs[k] for k in _SYSTEM_KEYS if k in c.kwargs), None)
    if system:
        detail["system"] = clip(system, 120)
    if "tools" in c.kwargs:
        detail["tools"] = clip(c.kwargs["tools"], 120)
    if c.callee_type == "identifier" and c.full.startswith("ai.") and name in AI_FUNCTIONS:
        detail["provider"] = "ai-sdk"
        detail["why"] = f"{name}() of the ai package sends a request to a model"
        return _model_hit(pf, c, AI_FUNCTIONS[name], detail)
    if c.callee_type == "identifier" and origin and name in _AGENT_RUNS:
        runner = _provider_of_module(origin)
        if runner in ("openai-agents", "anthropic-agent"):
            detail["provider"] = runner
            detail["why"] = f"{name}() of {origin} runs an agent against its model"
            return _model_hit(pf, c, "agent", detail)
    provider = _provider_of_module(origin) if c.is_new and origin else None
    cls = c.full.rsplit(".", 1)[-1]
    if provider and (cls == "default" or _CLIENT_CLASS.match(cls)):
        sdk = origin.removesuffix(".default")
        detail["provider"] = provider
        detail["why"] = f"a client of {sdk} is constructed"
        return _model_hit(pf, c, "client", detail)
    if provider and _AGENT_CLASS.match(cls):
        detail["provider"] = provider
        detail["why"] = f"an agent of {origin} is defined (its model, instructions and tools)"
        return _model_hit(pf, c, "agent", detail)
    if pkg is None or c.callee_type != "attribute":
        return None
    for pattern, kind in MODEL_METHODS:
        if not pattern.search(c.callee):
            continue
        if name in ("invoke", "stream", "batch", "streamEvents", "send"):
            recv = c.callee.rsplit(".", 1)[0]
            if _provider(pkg) not in (
                "langchain",
                "openai-agents",
                "ai-sdk",
            ) or not _MODEL_RECEIVER.search(recv):
                return None
        if name in (
            "sendMessage",
            "sendMessageStream",
            "generateContent",
            "generateContentStream",
        ) and _provider(pkg) not in ("google-genai", "vertex"):
            return None
        detail["provider"] = _provider(pkg)
        detail["why"] = f"{c.callee.split('.', 1)[-1]}() on a client, in a file importing {pkg}"
        return _model_hit(pf, c, kind, detail)
    return None


def _provider_of_module(module: str) -> str | None:
    for p, prov in MODEL_PACKAGES:
        if (
            module == p
            or module.startswith(p if p.endswith("/") else p + ".")
            or module.startswith(p + "/")
        ):
            return prov
    return None


def _model_hit(pf: SourceFile, c: Call, kind: ModelCallKind, detail: ModelCallDetail) -> Hit:
    return Hit.at_call(pf, c, category=Category.MODEL_CALL, kind=kind, detail=detail)


# -- tools -------------------------------------------------------------------------------


def es_tools(pf: SourceFile) -> list[Hit]:
    """Tool declarations handed to a model (name + description + a schema), zod schemas
    as tool parameters, MCP calls and servers, and dispatch by a tool's name."""
    out: list[Hit] = []
    mcp = imports_any(pf, _MCP_PACKAGES)
    for c in pf.calls:
        name = c.callee.split(".")[-1]
        if mcp and _MCP_CALLS.search(c.callee):
            out.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.TOOL_DISPATCH,
                    kind="mcp",
                    detail={
                        "tool": _first_literal(c),
                        "why": f"MCP {name} (the file imports {mcp})",
                    },
                )
            )
        elif (
            c.callee_type == "identifier"
            and c.full in ("ai.tool", "@openai/agents.tool")
            or (
                name
                in (
                    "tool",
                    "defineTool",
                    "createTool",
                    "registerTool",
                    "DynamicStructuredTool",
                    "DynamicTool",
                )
                and ("parameters" in c.kwargs or "inputSchema" in c.kwargs or "schema" in c.kwargs)
            )
        ):
            out.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.TOOL_DISPATCH,
                    kind="tool_schema",
                    detail={
                        "tool": clip(c.kwargs.get("name", "").strip("'\"`"), 80),
                        "description": clip(c.kwargs.get("description", ""), 160),
                        "why": f"{name}() declares a tool with a schema",
                    },
                )
            )
        elif c.callee.startswith(
            ("tools[", "this.tools[", "handlers[", "this.handlers[")
        ) or re.search(r"(tool|handler)s?\[[^\]]+\]$", c.callee, re.I):
            out.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.TOOL_DISPATCH,
                    kind="subscript_dispatch",
                    detail={
                        "callee": clip(c.callee, 80),
                        "why": "a tool chosen by a computed name is called",
                    },
                )
            )
    out += _tool_objects(pf) + _tool_switches(pf) + _registry_dispatches(pf, out)
    if in_test_code(pf.path):
        # a test declares tools as fixtures for the code it tests: not the system's tools
        out = [h for h in out if h.kind != "tool_schema"]
    return out


def _tool_objects(pf: SourceFile) -> list[Hit]:
    """Objects declaring a tool to a model (name, description and a schema)."""
    out: list[Hit] = []
    for d in pf.dicts:
        keys = set(d.extra.get("keys", "").split(","))
        schema_key = keys & {"parameters", "input_schema", "inputSchema", "parametersJsonSchema"}
        if "name" in keys and "description" in keys and schema_key:
            out.append(
                Hit(
                    category=Category.TOOL_DISPATCH,
                    kind="tool_schema",
                    path=pf.path,
                    start_line=d.start_line,
                    end_line=min(d.end_line, d.start_line + 11),
                    symbol=d.symbol,
                    detail={
                        "tool": _key_value(d.text, "name"),
                        "description": clip(_key_value(d.text, "description"), 160),
                        "why": f"an object with name, description and {sorted(schema_key)[0]}:"
                        " a tool declaration for a model",
                    },
                )
            )
        elif "functionDeclarations" in keys:
            out.append(
                Hit(
                    category=Category.TOOL_DISPATCH,
                    kind="tool_schema",
                    path=pf.path,
                    start_line=d.start_line,
                    end_line=d.start_line,
                    symbol=d.symbol,
                    detail={"why": "functionDeclarations: tools declared to a Gemini model"},
                )
            )
    return out


def _registry_dispatches(pf: SourceFile, found: list[Hit]) -> list[Hit]:
    """A tool picked out of a registry and run (``tools.get(name).execute(...)``, a local
    bound to such a lookup, ``tool.invoke(...)``): the line the call graph's dispatch
    node starts from (:mod:`retrieval.survey.dispatch`), outside tests."""
    if in_test_code(pf.path):
        return []
    taken = {h.start_line for h in found if h.kind == "subscript_dispatch"}
    out: list[Hit] = []
    for d in pf.dispatches:
        if d.start_line in taken:
            continue
        reg = d.extra.get("registry", "")
        run = f".{d.extra['verb']}()" if d.extra.get("verb") else "it"
        why = (
            f"a handler looked up in {reg} is run ({run})"
            if reg
            else f"{d.text}(): a tool handed to this code is run"
        )
        detail: ToolDetail = {"callee": clip(d.text, 80), "why": why}
        if reg:
            detail["target"] = reg
        out.append(
            Hit.at_line(
                pf.path,
                d.start_line,
                symbol=d.symbol,
                category=Category.TOOL_DISPATCH,
                kind="registry_dispatch",
                detail=detail,
            )
        )
    return out


def _tool_switches(pf: SourceFile) -> list[Hit]:
    """A ``switch`` over a tool or command name with three or more cases."""
    out: list[Hit] = []
    for s in pf.compares:
        if s.extra.get("kind") != "switch":
            continue
        on = s.extra.get("on", "")
        if (
            re.search(r"(tool|name|function|command|action)", on, re.I)
            and s.text.count("case ") >= 3
        ):
            out.append(
                Hit(
                    category=Category.TOOL_DISPATCH,
                    kind="switch_dispatch",
                    path=pf.path,
                    start_line=s.start_line,
                    end_line=s.start_line,
                    symbol=s.symbol,
                    detail={
                        "callee": clip(on, 80),
                        "why": f"a switch over {clip(on, 40)} with {s.text.count('case ')}"
                        " cases picks the handler",
                    },
                )
            )
    return out


def _first_literal(c: Call) -> str:
    for p in c.positional:
        m = re.match(r"""\s*['"`]([^'"`]{1,80})['"`]""", p)
        if m:
            return m.group(1)
    return ""


def _key_value(text: str, key: str) -> str:
    m = re.search(rf"""\b{key}\s*:\s*['"`]([^'"`\n]{{1,200}})""", text)
    return m.group(1) if m else ""


# -- execution effects -------------------------------------------------------------------


def es_exec(pf: SourceFile) -> list[Hit]:
    """Processes the code starts: ``child_process``, ``execa``, ``node-pty``, Bun/Deno."""
    out: list[Hit] = []
    pkg = imports_any(pf, EXEC_PACKAGES)
    for c in pf.calls:
        name = c.callee.split(".")[-1]
        origin = c.full.split(".")[0] if c.full != c.callee else ""
        from_pkg = c.full != c.callee and any(
            c.full.startswith(p + ".") or c.full == p for p in EXEC_PACKAGES
        )
        bun = c.callee in ("Bun.spawn", "Bun.spawnSync", "Deno.run") or (
            c.is_new and c.callee == "Deno.Command"
        )
        if not (bun or (from_pkg and name in _EXEC_NAMES | {"spawn", "default"})):
            continue
        if name == "default":
            name = origin
        command = c.positional[0] if c.positional else ""
        shell = (
            "shell" in c.kwargs
            and c.kwargs["shell"] not in ("false",)
            or name in ("exec", "execSync")
            and "child_process" in c.full
        )
        out.append(
            call_hit(
                pf,
                c,
                Category.EXEC_EFFECT,
                "subprocess",
                f"{name}() of {pkg or c.callee.split('.')[0]} starts a process"
                + (" through a shell" if shell else ""),
                command=clip(command, 120),
                shell=bool(shell),
                git=bool(re.match(r"""\s*['"`]git\b""", command)),
            )
        )
    for c in pf.calls:
        if (
            c.callee in ("eval",)
            or (c.is_new and c.callee == "Function")
            or c.full in ("vm.runInNewContext", "vm.runInThisContext", "vm.runInContext")
        ):
            out.append(
                call_hit(
                    pf,
                    c,
                    Category.EXEC_EFFECT,
                    "exec_eval",
                    f"{c.callee} runs code made at run time",
                    command=clip(c.args_text, 120),
                )
            )
    return out


# -- persistence -------------------------------------------------------------------------


def es_persistence(pf: SourceFile) -> list[Hit]:
    """``fs`` writes, appends, deletes, moves, copies (callback, sync and promise forms)."""
    out: list[Hit] = []
    if not imports_any(pf, _FS_PACKAGES) and not any(
        c.callee.startswith(("Bun.write", "Deno.writeTextFile")) for c in pf.calls
    ):
        return out
    for c in pf.calls:
        name = c.callee.split(".")[-1]
        if name not in _FS_WRITES and c.callee not in ("Bun.write", "Deno.writeTextFile"):
            continue
        if c.full == c.callee and not c.callee.startswith(("Bun.", "Deno.")):
            continue  # a method of some other object
        if c.full != c.callee and not any(c.full.startswith(p) for p in _FS_PACKAGES):
            continue
        kind: PersistenceKind = _FS_WRITES.get(name, "write")
        data = c.positional[1] if len(c.positional) > 1 else ""
        if kind == "write" and "JSON.stringify" in data:
            kind = "json"
        target = c.positional[0] if c.positional else ""
        out.append(
            call_hit(
                pf,
                c,
                Category.PERSISTENCE,
                kind,
                f"{name}() of fs changes a file"
                + (" with JSON.stringify data" if kind == "json" else ""),
                target=clip(target, 120),
            )
        )
    return out


def es_read_backs(files: list[SourceFile], hits: list[Hit]) -> list[Hit]:
    """Reads of a path the code also writes (``fs.readFile(p)`` where ``writeFile(p)``):
    state the system keeps and reads back."""
    written: dict[str, Hit] = {}
    for h in hits:
        if h.category == Category.PERSISTENCE and h.view.get("why", "").endswith(
            ("changes a file", "JSON.stringify data")
        ):
            t = _norm_target(h.view.get("target", ""))
            if t:
                written.setdefault(t, h)
    out: list[Hit] = []
    if not written:
        return out
    for pf in files:
        for c in pf.calls:
            if c.callee.split(".")[-1] not in FS_READS or not c.positional:
                continue
            t = _norm_target(c.positional[0])
            w = written.get(t)
            if w is None or (w.path == pf.path and w.start_line == c.stmt_start):
                continue
            out.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.READ_BACK,
                    kind="read",
                    detail={
                        "target": clip(c.positional[0], 120),
                        "written_as": clip(w.view.get("target", ""), 120),
                        "why": f"reads {clip(t, 40)}, which {w.path}:{w.start_line} writes",
                    },
                )
            )
    return out


def _norm_target(expr: str) -> str:
    e = re.sub(r"\s+", "", expr)
    e = e.removeprefix("this.")
    return e if 2 < len(e) <= 120 and "(" not in e[:1] else ""


# -- configuration, prompts, gating ------------------------------------------------------


def es_env(pf: SourceFile) -> list[Hit]:
    """``process.env.NAME`` / ``process.env["NAME"]`` reads (no value recorded): the
    first read of each name in a file, and none in test code (a test sets and reads the
    variables it needs), so the settings a system reads are not crowded out."""
    out: list[Hit] = []
    if in_test_code(pf.path):
        return out
    seen: set[str] = set()
    for r in pf.env_reads:
        name = r.extra["env"]
        s = int(r.extra.get("stmt_start", r.start_line))
        if name in seen:
            continue
        seen.add(name)
        detail: ConfigDetail = {
            "env": name,
            "access": "member",
            "why": f"reads the environment variable {name}",
        }
        if _SECRET.search(name):
            detail["secret"] = True
        out.append(
            Hit(
                category=Category.CONFIG_READ,
                kind="env",
                path=pf.path,
                start_line=s,
                end_line=int(r.extra.get("stmt_end", r.end_line)),
                symbol=r.symbol,
                detail=detail,
            )
        )
    return out


def es_prompts(pf: SourceFile) -> list[Hit]:
    """Instruction text: long strings and template literals that talk to a model, and
    system messages (``role: "system"``, ``system:``/``systemInstruction:`` keys)."""
    out: list[Hit] = []
    for s in pf.strings:
        v = s.value
        key = s.assigned_to or ""
        is_system_key = key.split(".")[-1] in _SYSTEM_KEYS
        long_enough = len(v) >= 120 and (v.count(" ") >= 15)
        if not (is_system_key and len(v) >= 20) and not (long_enough and _INSTRUCTION.search(v)):
            continue
        why = (
            f"a string given as {key.split('.')[-1]}: a system prompt"
            if is_system_key
            else ("a template literal" if s.is_fstring else "a string")
            + " of instructions addressed to a model"
        )
        out.append(
            Hit(
                category=Category.PROMPT,
                kind="system_message" if is_system_key else "instruction_string",
                path=pf.path,
                start_line=s.start_line,
                end_line=min(s.end_line, s.start_line + 11),
                symbol=s.symbol,
                detail={
                    "name": key,
                    "string_lines": f"{s.start_line}-{s.end_line}",
                    "chars": len(v),
                    "fstring": s.is_fstring,
                    "why": why,
                },
            )
        )
    for d in pf.dicts:
        if (
            "role" in d.extra.get("keys", "").split(",")
            and re.search(r"""\brole\s*:\s*['"`]system['"`]""", d.text)
            and d.end_line - d.start_line < 12
        ):
            m = re.search(r"\bcontent\s*:\s*([^,\n}]+)", d.text)
            out.append(
                Hit(
                    category=Category.PROMPT,
                    kind="system_message",
                    path=pf.path,
                    start_line=d.start_line,
                    end_line=d.end_line,
                    symbol=d.symbol,
                    detail={
                        "content": clip(m.group(1) if m else "", 80),
                        "why": 'a message with role "system"',
                    },
                )
            )
    return out


def es_gating(pf: SourceFile) -> list[Hit]:
    """Conditions that decide whether an action runs: approval and confirmation checks,
    allow and deny lists, mode switches."""
    out: list[Hit] = []
    for s in pf.compares:
        if s.extra.get("kind") != "if":
            continue
        cond = s.extra.get("condition", "")
        kind: GatingKind | None = None
        why = ""
        if _ALLOW_LIST.search(cond):
            kind, why = "allow_list", "a condition tests membership in an allow or deny list"
        elif _MODE.search(cond):
            kind, why = "mode_switch", "a condition compares a mode with a named value"
        elif _APPROVAL.search(cond):
            m = _APPROVAL.search(cond)
            kind, why = (
                "approval",
                f"a condition on {m.group(1) if m else 'approval'}:"
                " an approval or permission check",
            )
        if kind is None:
            continue
        line = int(s.extra.get("stmt_start", s.start_line))
        end = int(s.extra.get("stmt_end", line))
        out.append(
            Hit(
                category=Category.GATING,
                kind=kind,
                path=pf.path,
                start_line=line,
                end_line=min(end, line + 5),
                symbol=s.symbol,
                detail={"comparison": clip(cond, 160), "why": why},
            )
        )
    return out


# -- registration ------------------------------------------------------------------------


def register_es(rules: Registry, language: str) -> None:
    """Register the ES source rules under ``language`` (``typescript``/``javascript``)."""
    every = f"every {language} file"
    rules.source(language, f"{language} entry points", es_entries, applies_to=every)
    rules.source(language, f"{language} model calls", es_model_calls, applies_to=every)
    rules.source(language, f"{language} tools", es_tools, applies_to=every)
    rules.source(language, f"{language} execution effects", es_exec, applies_to=every)
    rules.source(language, f"{language} persistence", es_persistence, applies_to=every)
    rules.source(language, f"{language} prompt strings", es_prompts, applies_to=every)
    rules.source(language, f"{language} gating", es_gating, applies_to=every)
    rules.source(language, f"{language} environment reads", es_env, applies_to=every)
    rules.source(
        language,
        f"{language} doc comment claims",
        claims.es_doc_comment_claims,
        applies_to=f"documentation comments (/** */) of {language} files outside tests",
    )
    rules.source(
        language,
        f"{language} tool description claims",
        claims.es_tool_description_claims,
        applies_to=f"descriptions of tool declarations in {language} files outside tests",
    )
    rules.source(
        language,
        f"{language} in-memory state",
        state.es_state,
        applies_to=f"class fields, module bindings and serializable classes of {language}"
        " files outside tests",
    )


def register_es_repository(rules: Registry) -> None:
    """The ES text and repository passes, registered once for both ES languages."""
    if any(r.name == "es read-backs" for r in rules.all()):
        return
    rules.repository(
        "es read-backs",
        es_read_backs,
        applies_to="ES files reading a path that ES code writes",
        call=lambda hits, repo: es_read_backs(_es_files(repo), hits),
    )
    rules.text(
        "package.json entries",
        package.package_entries,
        applies_to="package.json: bin, main, module, exports and scripts",
        when=lambda tf: tf.name == "package.json",
        call=lambda tf, repo: package.package_entries(
            tf.path, tf.text, {f.path for f in repo.files}
        ),
    )


def _es_files(repo: Repo) -> list[SourceFile]:
    return [f for f in repo.files if f.language in ("typescript", "javascript")]


def register(rules: Registry) -> None:
    """Add the ES rules for JavaScript files to ``rules``."""
    register_es(rules, "javascript")
    register_es_repository(rules)


__all__ = ["Span", "register", "register_es", "register_es_repository"]
