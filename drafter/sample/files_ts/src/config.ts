// Settings read once from the environment; everything else is a flag.
export const MODEL = process.env.SHELLWRIGHT_MODEL ?? "claude-sonnet-4-5";
export const MAX_TOKENS = 4096;
export const MAX_TURNS = Number(process.env.SHELLWRIGHT_MAX_TURNS ?? "12");
export const STATE_DIR = process.env.SHELLWRIGHT_HOME ?? ".shellwright";

/** Commands that --yes may run without asking (matched at the start of the command). */
export const ALLOWLIST = ["ls", "cat", "git status", "git diff", "npm test"];

export function apiKey(): string {
  const key = process.env.ANTHROPIC_API_KEY;
  if (!key) throw new Error("ANTHROPIC_API_KEY is not set");
  return key;
}
