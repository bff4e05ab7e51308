import { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
import type { ApprovalMode } from "../approval.js";

export interface ToolContext {
  cwd: string;
  mode: ApprovalMode;
}

export interface Tool<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  description: string;
  schema: S;
  run: (input: z.infer<S>, ctx: ToolContext) => Promise<string>;
}

const tools = new Map<string, Tool>();

export function registerTool<S extends z.ZodTypeAny>(tool: Tool<S>): void {
  tools.set(tool.name, tool as unknown as Tool);
}

/** The tool list in the shape the Messages API expects. */
export function toolDefinitions() {
  return [...tools.values()].map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: zodToJsonSchema(t.schema) as { type: "object" },
  }));
}

export async function dispatch(name: string, input: unknown, ctx: ToolContext): Promise<string> {
  const tool = tools.get(name);
  if (!tool) return `error: no tool named ${name}`;
  const parsed = tool.schema.safeParse(input);
  if (!parsed.success) return `error: bad input for ${name}: ${parsed.error.message}`;
  try {
    return await tool.run(parsed.data, ctx);
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}
