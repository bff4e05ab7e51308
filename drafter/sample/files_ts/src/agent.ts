import Anthropic from "@anthropic-ai/sdk";
import { MAX_TOKENS, MAX_TURNS, MODEL, apiKey } from "./config.js";
import { loadNotes, logTurn } from "./memory.js";
import { systemPrompt } from "./prompt.js";
import { dispatch, toolDefinitions, type ToolContext } from "./tools/index.js";

export interface RunResult {
  turns: number;
  summary: string;
}

/** Work towards one goal: ask the model, run the tools it asks for, until it stops. */
export async function runAgent(goal: string, ctx: ToolContext, maxTurns = MAX_TURNS): Promise<RunResult> {
  const client = new Anthropic({ apiKey: apiKey() });
  const system = systemPrompt(ctx.cwd, loadNotes());
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: goal }];
  for (let turn = 1; turn <= maxTurns; turn++) {
    const response = await client.messages.create({
      model: MODEL,
      max_tokens: MAX_TOKENS,
      system,
      tools: toolDefinitions(),
      messages,
    });
    messages.push({ role: "assistant", content: response.content });
    logTurn({ turn, stop: response.stop_reason, content: response.content });
    if (response.stop_reason !== "tool_use") {
      const text = response.content.find((b) => b.type === "text");
      return { turns: turn, summary: text?.type === "text" ? text.text : "" };
    }
    const results: Anthropic.ToolResultBlockParam[] = [];
    for (const block of response.content) {
      if (block.type !== "tool_use") continue;
      const output = await dispatch(block.name, block.input, ctx);
      results.push({ type: "tool_result", tool_use_id: block.id, content: output });
    }
    messages.push({ role: "user", content: results });
  }
  return { turns: maxTurns, summary: "stopped: turn limit reached" };
}
