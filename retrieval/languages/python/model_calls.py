"""Model and provider calls: the places where the system hands text to a model.

Recognised by the callee resolved through the file's imports, so
``from litellm import completion`` and ``litellm.completion`` are both found, and by
call shape (``client.chat.completions.create``) for SDK clients held in variables.
Each hit names the provider, the model expression and, where the file makes it
plain, the model's value (a literal or a named constant with its env default).  A
model or agent CLI started as a subprocess is a model call too (kind ``cli``, with its
command): the text it is given reaches a model as surely as through an SDK.
"""

from __future__ import annotations

import re

from retrieval.languages.python.values import constant, literal
from retrieval.survey.base import Hit, clip
from retrieval.survey.details import ModelCallDetail
from retrieval.survey.model import Category, ModelCallKind
from retrieval.survey.source import Call, PyFile

_ENDPOINT_RE = re.compile(
    r"(chat/completions|/v1/messages|/v1/completions|/completions\b|/api/generate|/api/chat|/v1/responses)"
)

#: (callee suffix, provider when the file imports it, kind)
_SDK_SHAPES: tuple[tuple[str, str, ModelCallKind], ...] = (
    (".messages.create", "anthropic", "chat"),
    (".messages.stream", "anthropic", "chat"),
    (".chat.completions.create", "openai", "chat"),
    (".chat.completions.parse", "openai", "chat"),
    (".responses.create", "openai", "chat"),
    (".completions.create", "openai", "completion"),
    (".embeddings.create", "openai", "embedding"),
    (".models.generate_content", "google", "chat"),
    (".generate_content", "google", "chat"),
)

_LITELLM = {
    "completion",
    "acompletion",
    "text_completion",
    "responses",
    "aresponses",
    "embedding",
    "batch_completion",
}

#: Names an external wrapper library typically gives its model call.
_WRAPPER_NAMES = {
    "generate",
    "agenerate",
    "completion",
    "acompletion",
    "chat",
    "chat_completion",
    "complete",
    "invoke",
    "ainvoke",
    "generate_content",
    "query_llm",
    "call_llm",
    "get_response",
}

_CLIENT_CTORS = {
    "anthropic.Anthropic": "anthropic",
    "anthropic.AsyncAnthropic": "anthropic",
    "anthropic.AnthropicBedrock": "anthropic",
    "anthropic.AnthropicVertex": "anthropic",
    "openai.OpenAI": "openai",
    "openai.AsyncOpenAI": "openai",
    "openai.AzureOpenAI": "openai",
    "vllm.LLM": "vllm",
    "google.adk.models.lite_llm.LiteLlm": "litellm",
}


def _provider_from_imports(pf: PyFile, default: str) -> str:
    for p in ("anthropic", "openai", "litellm", "google.genai", "google.generativeai", "vllm"):
        if pf.uses(p):
            return p.split(".")[0] if p != "google.genai" else "google"
    return default


def _model_of(pf: PyFile, c: Call) -> ModelCallDetail:
    expr = c.kwargs.get("model") or c.kwargs.get("model_name") or c.kwargs.get("model_id") or ""
    if not expr and c.full.endswith(("LLM", "LiteLlm", "from_pretrained")) and c.positional:
        expr = c.positional[0]
    out: ModelCallDetail = {}
    if expr:
        out["model"] = clip(expr, 80)
        lit = literal(expr)
        val = lit if lit is not None else constant(pf, expr.strip())
        if val:
            out["model_value"] = val
    return out


def _classify(pf: PyFile, c: Call) -> tuple[str, ModelCallKind] | None:
    full, callee = c.full, c.callee
    last = full.rsplit(".", 1)[-1]
    if full.startswith("litellm.") and last in _LITELLM:
        return "litellm", "embedding" if last == "embedding" else "chat"
    for suffix, provider, kind in _SDK_SHAPES:
        if callee.endswith(suffix) or full.endswith(suffix):
            if provider == "google" and not pf.uses("google"):
                continue
            return _provider_from_imports(
                pf, provider if pf.uses(provider) else f"{provider}-compatible"
            ), kind
    if full in _CLIENT_CTORS:
        return _CLIENT_CTORS[full], "client" if _CLIENT_CTORS[full] != "vllm" else "model_load"
    if pf.uses("vllm") and last in ("generate", "chat") and c.callee_type == "attribute":
        return "vllm", "generate"
    if pf.uses("transformers"):
        if last == "generate" and c.callee_type == "attribute":
            return "transformers", "generate"
        if full.endswith(("transformers.pipeline", "from_pretrained")) and "Tokenizer" not in full:
            return "transformers", "model_load"
    if full.startswith(
        ("langchain", "langchain_openai", "langchain_anthropic")
    ) and last.startswith("Chat"):
        return "langchain", "client"
    if full.startswith("google.adk") and last in ("LlmAgent", "Agent"):
        return "google-adk", "agent"
    if last in ("post", "request") and (
        full.startswith(("requests.", "httpx.", "aiohttp.")) or c.callee_type == "attribute"
    ):
        m = _ENDPOINT_RE.search(c.args_text)
        if m is None:
            for name in re.findall(
                r"[A-Za-z_][A-Za-z0-9_]*",
                c.positional[0] if c.positional else c.kwargs.get("url", ""),
            ):
                val = constant(pf, name)
                if val and _ENDPOINT_RE.search(val):
                    m = _ENDPOINT_RE.search(val)
                    break
        if m is not None:
            return "http", "chat"
    # an imported external function named like a model call (tau2 generate, etc.)
    head = c.callee.split(".")[0]
    if last in _WRAPPER_NAMES and head in pf.imports and "." in full:
        root = full.split(".")[0]
        if root not in (
            "self",
            "os",
            "re",
            "json",
            "asyncio",
            "subprocess",
        ) and not root.startswith("_"):
            return root, "wrapper"
    return None


#: Process-starting calls whose first argument is the command (as in ``effects``).
_PROCESS_CALLS = (
    "subprocess.",
    "os.system",
    "os.popen",
    "os.exec",
    "os.spawn",
    "asyncio.create_subprocess_",
    "pexpect.spawn",
    "pty.spawn",
)
#: Commands that fetch and run a package's program: the program is the next word.
_LAUNCHERS = {"npx", "bunx", "pnpx", "uvx", "pipx", "pnpm", "yarn", "npm", "bun"}
_LAUNCH_WORDS = {"run", "dlx", "exec", "x", "tool"}
#: Programs that are model or agent CLIs, by name (package scope and version dropped).
_AGENT_CLI = re.compile(
    r"^(claude(-code)?|codex|gemini(-cli)?|aider(-chat)?|ollama|opencode(-ai)?|goose|"
    r"qwen(-code)?|llm|cursor-agent|copilot|amp|openhands|openai|anthropic)$"
)
#: Flags and subcommands that run an agent without a terminal session (headless).
_HEADLESS = {"-p", "--print", "--prompt", "--message", "exec", "--headless", "--non-interactive"}
_STRING = re.compile(r"""[rfbu]{0,2}(['"])((?:\\.|(?!\1).)*)\1""")


def _command_text(pf: PyFile, c: Call) -> str:
    """The call's command as written; a command held in a variable is read from that
    variable's last assignment before the call in the same function."""
    arg = c.positional[0] if c.positional else c.kwargs.get("args", c.kwargs.get("cmd", ""))
    name = arg.strip()
    if re.fullmatch(r"[A-Za-z_]\w*", name):
        for a in reversed(pf.assigns):
            if (
                a.extra.get("lhs") == name
                and a.symbol == c.symbol
                and a.start_line < c.start_line
                and "=" in a.text
            ):
                return a.text.split("=", 1)[1]
    return arg


def _program(command: str) -> tuple[str, list[str]]:
    """(program name, the words after it) of a command written as a list of string
    literals or as one shell string; launchers (``npx``, ``uvx``…) are looked through."""
    words: list[str] = []
    for m in _STRING.finditer(command):
        words.extend(m.group(2).split())
    while words and words[0].startswith("-"):
        words.pop(0)
    if not words:
        return "", []
    prog, rest = words[0].rsplit("/", 1)[-1], words[1:]
    if prog in _LAUNCHERS:
        while rest and (rest[0].startswith("-") or rest[0] in _LAUNCH_WORDS):
            rest.pop(0)
        if not rest:
            return prog, []
        prog, rest = rest[0], rest[1:]
        if prog.startswith("@"):  # @scope/package@version
            prog = prog.split("/", 1)[-1]
        prog = prog.split("@", 1)[0]
    return prog.lower(), rest


def cli_model_calls(pf: PyFile) -> list[Hit]:
    """A model or agent CLI started as a process (``claude -p``, ``npx @openai/codex
    exec``, ``gemini --prompt``): the system hands text to a model through a command.
    The program is recognised by name, or as an ``*agent*`` program run headless."""
    hits: list[Hit] = []
    for c in pf.calls:
        if not c.full.startswith(_PROCESS_CALLS):
            continue
        command = _command_text(pf, c)
        prog, rest = _program(command)
        if not prog:
            continue
        headless = any(w in _HEADLESS for w in rest)
        if not (_AGENT_CLI.match(prog) or ("agent" in prog and headless)):
            continue
        detail: ModelCallDetail = {
            "provider": prog,
            "call": clip(c.callee, 80),
            "command": clip(" ".join(command.split()), 120),
        }
        hits.append(Hit.at_call(pf, c, category=Category.MODEL_CALL, kind="cli", detail=detail))
    return hits


def model_calls(pf: PyFile, local_modules: set[str]) -> list[Hit]:
    hits: list[Hit] = []
    for c in pf.calls:
        got = _classify(pf, c)
        if got is None:
            continue
        provider, kind = got
        if kind == "wrapper" and c.full.rsplit(".", 1)[0] in local_modules:
            continue  # a repository function: the call graph follows it instead
        detail: ModelCallDetail = {"provider": provider, "call": clip(c.callee, 80)}
        detail.update(_model_of(pf, c))
        m = _ENDPOINT_RE.search(c.args_text)
        if m:
            detail["endpoint"] = m.group(1)
        for key in ("base_url", "api_base", "url"):
            if key in c.kwargs:
                detail["endpoint"] = clip(c.kwargs[key], 80)
        if "tools" in c.kwargs:
            detail["tools"] = clip(c.kwargs["tools"], 60)
        if "system" in c.kwargs:
            detail["system"] = clip(c.kwargs["system"], 60)
        hits.append(Hit.at_call(pf, c, category=Category.MODEL_CALL, kind=kind, detail=detail))
    return hits + cli_model_calls(pf)
