#!/usr/bin/env node
import { Command } from "commander";
import { runAgent } from "./agent.js";
import { loadNotes } from "./memory.js";

async function main(): Promise<void> {
  const program = new Command("shellwright");
  program
    .command("run")
    .argument("<goal>", "what the agent should achieve")
    .option("-y, --yes", "run allowlisted commands without asking")
    .option("--max-turns <n>", "model turns at most", Number)
    .action(async (goal: string, opts: { yes?: boolean; maxTurns?: number }) => {
      const mode = opts.yes ? "allowlist" : "ask";
      const result = await runAgent(goal, { cwd: process.cwd(), mode }, opts.maxTurns);
      console.log(result.summary);
      console.error(`(${result.turns} turns)`);
    });
  program
    .command("memory")
    .description("print the notes kept for later sessions")
    .action(() => {
      for (const note of loadNotes()) console.log(`${note.at}  ${note.text}`);
    });
  await program.parseAsync(process.argv);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
