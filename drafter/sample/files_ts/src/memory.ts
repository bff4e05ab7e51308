import { existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { STATE_DIR } from "./config.js";

export interface Note {
  text: string;
  at: string;
}

const MEMORY_FILE = join(STATE_DIR, "memory.json");
const TRANSCRIPT_FILE = join(STATE_DIR, "transcript.jsonl");

/** Notes saved by earlier sessions; a missing or broken file means none. */
export function loadNotes(): Note[] {
  if (!existsSync(MEMORY_FILE)) return [];
  try {
    return JSON.parse(readFileSync(MEMORY_FILE, "utf8")) as Note[];
  } catch {
    return [];
  }
}

export function saveNote(text: string): void {
  const notes = loadNotes();
  notes.push({ text, at: new Date().toISOString() });
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(MEMORY_FILE, JSON.stringify(notes, null, 2));
}

export function logTurn(entry: Record<string, unknown>): void {
  mkdirSync(STATE_DIR, { recursive: true });
  appendFileSync(TRANSCRIPT_FILE, JSON.stringify(entry) + "\n");
}
