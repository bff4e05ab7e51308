import { createInterface } from "node:readline/promises";
import { ALLOWLIST } from "./config.js";

export type ApprovalMode = "ask" | "allowlist";

/** Decide whether a shell command may run: the user's answer, or the allowlist with --yes. */
export async function approve(command: string, mode: ApprovalMode): Promise<boolean> {
  if (mode === "allowlist" && ALLOWLIST.some((prefix) => command.startsWith(prefix))) {
    return true;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`run \`${command}\`? [y/N] `);
    return answer.trim().toLowerCase() === "y";
  } finally {
    rl.close();
  }
}
