import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { z } from "zod";
import { saveNote } from "../memory.js";
import { registerTool } from "./registry.js";

function inside(cwd: string, path: string): string {
  const target = resolve(cwd, path);
  if (target !== cwd && !target.startsWith(cwd + sep)) {
    throw new Error(`${path} is outside the working folder`);
  }
  return target;
}

registerTool({
  name: "read_file",
  description: "Read a text file.",
  schema: z.object({ path: z.string() }),
  async run({ path }, ctx) {
    const text = await readFile(resolve(ctx.cwd, path), "utf8");
    return text.slice(0, 8000);
  },
});

registerTool({
  name: "write_file",
  description: "Write a text file inside the working folder.",
  schema: z.object({ path: z.string(), content: z.string() }),
  async run({ path, content }, ctx) {
    const target = inside(ctx.cwd, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    return `wrote ${content.length} characters to ${path}`;
  },
});

registerTool({
  name: "remember",
  description: "Save a short note for future sessions.",
  schema: z.object({ note: z.string().max(500) }),
  async run({ note }) {
    saveNote(note);
    return "noted";
  },
});
