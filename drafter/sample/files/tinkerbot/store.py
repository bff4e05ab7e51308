"""Where results go: a JSONL log of runs and a sqlite table of scores."""

import json
import sqlite3
import time

from tinkerbot.config import STATE_DIR

RUNS_FILE = STATE_DIR / "runs.jsonl"
DB_FILE = STATE_DIR / "scores.db"


def append_run(record: dict) -> None:
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    record = {**record, "at": time.time()}
    with open(RUNS_FILE, "a") as f:
        f.write(json.dumps(record) + "\n")


def _db() -> sqlite3.Connection:
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(DB_FILE)
    conn.execute("CREATE TABLE IF NOT EXISTS scores (at REAL, prompt_hash TEXT, score REAL)")
    return conn


def record_score(prompt_hash: str, score: float) -> None:
    conn = _db()
    conn.execute("INSERT INTO scores VALUES (?, ?, ?)", (time.time(), prompt_hash, score))
    conn.commit()
    conn.close()


def best_score() -> float:
    conn = _db()
    row = conn.execute("SELECT MAX(score) FROM scores").fetchone()
    conn.close()
    return row[0] if row[0] is not None else 0.0
