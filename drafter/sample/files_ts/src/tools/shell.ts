import { spawn } from "node:child_process";
import { z } from "zod";
import { approve } from "../approval.js";
import { registerTool } from "./registry.js";

const MAX_OUTPUT = 8000;

function runCommand(command: string, cwd: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-lc", command], { cwd, timeout: 120_000 });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.on("close", (code) => resolve(`exit=${code}\n${out.slice(-MAX_OUTPUT)}`));
  });
}

registerTool({
  name: "run_shell",
  description: "Run a shell command in the working folder after the user approves it.",
  schema: z.object({ command: z.string().describe("the command line to run") }),
  async run({ command }, ctx) {
    if (!(await approve(command, ctx.mode))) {
      return "the user refused this command";
    }
    return runCommand(command, ctx.cwd);
  },
});
