"""A small TypeScript agent the ES survey tests build as a git repository.

Shapes chosen for what they test: a re-export through ``index.ts``, a default export,
an aliased import, a class whose method another file calls, an arrow function bound to
a name, ``this.method()``, a template-literal prompt sent to a model, a model call made
through a wrapper the code defines, a ``require.main === module`` block, and a
``package.json`` whose ``bin`` names build output built from ``src/``.
"""

from __future__ import annotations

FILES: dict[str, str] = {
    "package.json": """{
  "name": "tiny-agent",
  "bin": { "tiny": "./dist/cli.js" },
  "main": "dist/index.js",
  "scripts": {
    "start": "node dist/cli.js",
    "lint": "eslint ."
  }
}
""",
    "src/cli.ts": """#!/usr/bin/env node
import { Command } from "commander";
import { Agent as Runner } from "./agent";
import shell from "./tools/shell";

const program = new Command();
program.option("--task <t>");

async function main(): Promise<void> {
  const runner = new Runner();
  await runner.run(program.opts().task);
  shell("echo done");
}

main();
""",
    "src/agent/index.ts": """export { Agent } from "./agent";
export * from "./prompts";
""",
    "src/agent/prompts.ts": """export const buildPrompt = (task: string): string =>
  `You are a careful coding assistant. You must solve the task below step by step
and never run destructive commands without asking. Task: ${task}`;
""",
    "src/agent/agent.ts": """import OpenAI from "openai";
import { buildPrompt } from "./prompts";
import { writeFileSync, readFileSync } from "node:fs";
import * as cp from "node:child_process";

const STATE = "state.json";

export class Agent {
  private client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });

  async run(task: string): Promise<void> {
    const answer = await this.ask(task);
    if (this.approvalMode === "auto" || (await this.confirm(answer))) {
      cp.execSync(answer, { shell: "/bin/sh" });
    }
    writeFileSync(STATE, JSON.stringify({ answer }));
  }

  approvalMode = "ask";

  async confirm(cmd: string): Promise<boolean> {
    const allowedCommands = ["ls", "cat"];
    if (allowedCommands.includes(cmd.split(" ")[0])) {
      return true;
    }
    return false;
  }

  async ask(task: string): Promise<string> {
    const res = await this.client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "system", content: buildPrompt(task) }],
    });
    return res.choices[0].message.content ?? "";
  }
}

export function lastAnswer(): string {
  return JSON.parse(readFileSync(STATE, "utf8")).answer;
}
""",
    "src/tools/shell.ts": """import { spawn } from "child_process";

const shell = (cmd: string) => {
  spawn(cmd, { shell: true });
};
export default shell;
""",
    "src/llm.ts": """import Anthropic from "@anthropic-ai/sdk";

const anthropic = new Anthropic();

export async function complete(prompt: string): Promise<string> {
  const msg = await anthropic.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 512,
    messages: [{ role: "user", content: prompt }],
  });
  return msg.content[0].type === "text" ? msg.content[0].text : "";
}
""",
    "src/summarise.ts": """import { complete as llm } from "./llm";

export async function summarise(text: string): Promise<string> {
  return llm(`Summarise: ${text}`);
}
""",
    "src/server.js": """const express = require("express");
const { generateText } = require("ai");
const app = express();
app.post("/run", async (req, res) => {
  const out = await generateText({ model: req.body.model, prompt: req.body.prompt });
  res.json(out);
});
if (require.main === module) {
  app.listen(3000);
}
""",
    "src/agent/agent.test.ts": """import { Agent } from "./agent";
test("runs", () => { new Agent(); });
""",
}
