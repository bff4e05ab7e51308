"""Go survey rules: entry points, model calls, exec effects, persistence, environment.

Written against the standard library and the common model SDKs (``openai-go``,
``anthropic-sdk-go``, Google's ``genai``), each finding with the reason it fired.
"""

from __future__ import annotations

import re

from retrieval.languages.facts import SourceFile
from retrieval.languages.hits import call_hit
from retrieval.survey.base import Hit, clip
from retrieval.survey.details import ModelCallDetail
from retrieval.survey.model import Category, ModelCallKind, PersistenceKind
from retrieval.survey.registry import Registry

#: Import paths of model SDKs (prefix) -> provider.
MODEL_SDKS = (
    ("github.com/openai/openai-go", "openai"),
    ("github.com/sashabaranov/go-openai", "openai"),
    ("github.com/anthropics/anthropic-sdk-go", "anthropic"),
    ("google.golang.org/genai", "google-genai"),
    ("github.com/google/generative-ai-go", "google-genai"),
    ("cloud.google.com/go/vertexai", "vertex"),
    ("github.com/tmc/langchaingo", "langchain"),
)
#: Request methods of the SDK clients -> kind, and the provider whose SDK has them.
_METHODS: tuple[tuple[re.Pattern[str], ModelCallKind, str], ...] = (
    (re.compile(r"\.Chat\.Completions\.New(Streaming)?$"), "chat", "openai"),
    (re.compile(r"\.Responses\.New(Streaming)?$"), "chat", "openai"),
    (re.compile(r"\.Embeddings\.New$"), "embedding", "openai"),
    (re.compile(r"\.CreateChatCompletion(Stream)?$"), "chat", "openai"),
    (re.compile(r"\.Messages\.New(Streaming)?$"), "chat", "anthropic"),
    (re.compile(r"\.Models\.GenerateContent(Stream)?$"), "generate", "google-genai"),
    (re.compile(r"\.GenerateContent(Stream)?$"), "generate", "google-genai"),
    (re.compile(r"(^|\.)GenerateFromSinglePrompt$"), "generate", "langchain"),
)
_EXEC = {"os/exec.Command", "os/exec.CommandContext", "syscall.Exec", "os.StartProcess"}
_WRITES: dict[str, PersistenceKind] = {
    "os.WriteFile": "write",
    "io/ioutil.WriteFile": "write",
    "os.Create": "write",
    "os.OpenFile": "file",
    "os.Remove": "delete",
    "os.RemoveAll": "delete",
    "os.Rename": "move",
    "encoding/json.NewEncoder": "json",
}
_ENV = {"os.Getenv", "os.LookupEnv"}


def _sdks(pf: SourceFile) -> dict[str, str]:
    """Provider -> SDK import path, for the model SDKs the file imports."""
    out: dict[str, str] = {}
    for prefix, provider in MODEL_SDKS:
        if any(m == prefix or m.startswith(prefix + "/") for m in pf.imported_modules):
            out.setdefault(provider, prefix)
    return out


def go_entries(pf: SourceFile) -> list[Hit]:
    """``func main`` in package ``main``: where a Go program starts."""
    if pf.main_guard is None:
        return []
    return [
        Hit.at_line(
            pf.path,
            pf.main_guard[0],
            symbol="main",
            category=Category.ENTRY_POINT,
            kind="go_main",
            detail={"module": pf.module, "why": "func main in package main starts the program"},
        )
    ]


def go_model_calls(pf: SourceFile) -> list[Hit]:
    """Client constructors and request methods of the model SDKs the file imports."""
    sdks = _sdks(pf)
    if not sdks:
        return []
    out: list[Hit] = []
    for c in pf.calls:
        kind: ModelCallKind | None = None
        why = provider = ""
        ctor = c.callee.split(".")[-1] in ("NewClient", "NewClientWithConfig")
        for prov, prefix in sdks.items():
            if ctor and c.full.startswith(prefix):
                kind, why, provider = "client", f"a client of {prefix} is made", prov
        for pattern, k, prov in _METHODS:
            if kind is None and prov in sdks and pattern.search(c.callee):
                method = c.callee.split(".", 1)[-1]
                kind, provider = k, prov
                why = f"{method}() on a client, in a file importing {sdks[prov]}"
        if kind is None:
            continue
        detail: ModelCallDetail = {"provider": provider, "call": c.callee, "why": why}
        out.append(Hit.at_call(pf, c, category=Category.MODEL_CALL, kind=kind, detail=detail))
    return out


def go_effects(pf: SourceFile) -> list[Hit]:
    """``exec.Command`` and friends (processes) and ``os`` file writes (persistence)."""
    out: list[Hit] = []
    for c in pf.calls:
        if c.full in _EXEC:
            pkg, _, fn = c.full.rpartition(".")
            command = ", ".join(c.positional[1:] if "Context" in c.full else c.positional)
            out.append(
                call_hit(
                    pf,
                    c,
                    Category.EXEC_EFFECT,
                    "subprocess",
                    f"{fn}() of {pkg} starts a process",
                    command=clip(command, 120),
                    shell=bool(re.match(r"""\s*"(ba|z)?sh"\s*,\s*"-c\"""", command)),
                )
            )
        elif c.full in _WRITES:
            out.append(
                call_hit(
                    pf,
                    c,
                    Category.PERSISTENCE,
                    _WRITES[c.full],
                    f"{c.full} changes a file",
                    target=clip(c.positional[0] if c.positional else "", 120),
                )
            )
        elif c.full in _ENV and c.positional:
            name = c.positional[0].strip('"`')
            out.append(
                Hit.at_call(
                    pf,
                    c,
                    category=Category.CONFIG_READ,
                    kind="env",
                    detail={
                        "env": name,
                        "access": "get",
                        "why": f"reads the environment variable {name}",
                    },
                )
            )
    return out


def register(rules: Registry) -> None:
    """Add the Go rules to ``rules``."""
    rules.source("go", "go entry points", go_entries, applies_to="every Go file")
    rules.source("go", "go model calls", go_model_calls, applies_to="every Go file")
    rules.source("go", "go effects", go_effects, applies_to="every Go file (exec, os writes, env)")
