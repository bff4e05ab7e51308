"""The TypeScript/JavaScript walk calls its visitor only for the node types it has a
branch for; walking every node through the visitor gives the very same facts.

Why a guard: the skip list is written beside the visitor, and a branch added to the
visitor without its type in ``_VISITED`` would silently find nothing.
"""

from __future__ import annotations

import pytest

from retrieval.languages import for_path
from retrieval.languages.javascript import extract

SOURCES = {
    "src/agent.ts": (
        "#!/usr/bin/env node\n"
        "import OpenAI from 'openai';\n"
        "export * from './tools';\n"
        "export default class Agent extends Base implements Runner {\n"
        "  private client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });\n"
        "  handle = async (msg: string): Promise<string> => {\n"
        "    for (const t of this.tools) { if (t.name === msg) { return t.run(msg); } }\n"
        "    while (true) { const r = await this.client.responses.create({ model: 'gpt-5',"
        " input: `Answer ${msg}` }); if (r) break; }\n"
        "    switch (msg) { case 'x': throw new Error('x'); default: return '';}\n"
        "  };\n"
        "  constructor(readonly model: Model, opts?: Options) { super(); this.opts = opts; }\n"
        "}\n"
        "namespace Inner { export function run() { return execSync(['ls', '-l'].join(' ')); } }\n"
        "const f = function named() { return settings['key']; };\n"
        "if (require.main === module) { main(); }\n"
    ),
    "lib/server.js": (
        "const express = require('express');\n"
        "const app = express();\n"
        "app.post('/run', (req, res) => { const { spawn } = require('child_process');\n"
        "  spawn('sh', ['-c', req.body.cmd]); res.json({ ok: true }); });\n"
        "module.exports = { start: () => app.listen(3000) };\n"
        "let counter = 0; do { counter += 1; } while (counter < 3);\n"
        "class Store { save(x) { fs.writeFileSync(`${this.dir}/s.json`, JSON.stringify(x)); } }\n"
    ),
}


#: A model call in a class inside exported nested namespaces: the class and its method
#: sit under node types the visitor has no branch for, so the walk must still descend.
NESTED = """import Anthropic from "@anthropic-ai/sdk";

namespace Agents {
  export namespace Inner {
    export class Planner {
      private client = new Anthropic();

      async plan(task: string): Promise<string> {
        const reply = await this.client.messages.create({
          model: "claude-x",
          messages: [{ role: "user", content: `Plan: ${task}` }],
        });
        return String(reply);
      }
    }
  }
}
"""
SOURCES["src/nested.ts"] = NESTED


class _Every:
    """A container holding every node type: the visitor sees every node."""

    def __contains__(self, _: object) -> bool:
        return True


@pytest.mark.parametrize("path", sorted(SOURCES))
def test_skipping_unvisited_nodes_changes_no_fact(path: str, monkeypatch) -> None:
    lang = for_path(path)
    assert lang is not None
    skipped = lang.parse(path, SOURCES[path])
    monkeypatch.setattr(extract, "_VISITED", _Every())
    every = lang.parse(path, SOURCES[path])
    assert repr(skipped) == repr(every)
    # the sources do hold facts of every kind the visitor records
    assert skipped.defs and skipped.calls and skipped.assigns


def test_a_model_call_in_a_class_in_exported_nested_namespaces_is_found() -> None:
    lang = for_path("src/nested.ts")
    assert lang is not None
    sf = lang.parse("src/nested.ts", NESTED)
    calls = [c for c in sf.calls if c.callee.endswith("messages.create")]
    assert len(calls) == 1
    assert calls[0].symbol == "Planner.plan"
    assert calls[0].start_line == 9
    assert "Planner.plan" in {d.symbol for d in sf.defs}
    assert any("Plan: " in s.value for s in sf.strings)
