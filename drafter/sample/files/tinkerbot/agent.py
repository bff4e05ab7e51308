"""The agent loop: ask Claude, run the tools it asks for, repeat."""

import anthropic

from tinkerbot import config
from tinkerbot.store import append_run
from tinkerbot.tools import TOOL_SCHEMAS, dispatch

MAX_TURNS = 8


def load_system_prompt() -> str:
    return config.PROMPT_PATH.read_text()


def run_task(task: dict, max_turns: int = MAX_TURNS) -> dict:
    """Solve one task. Every tool call is logged to the run record."""
    client = anthropic.Anthropic(api_key=config.api_key())
    system = load_system_prompt()
    messages = [{"role": "user", "content": task["prompt"]}]
    calls = []
    for turn in range(max_turns):
        response = client.messages.create(
            model=config.MODEL,
            max_tokens=config.MAX_TOKENS,
            system=system,
            tools=TOOL_SCHEMAS,
            messages=messages,
        )
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            break
        results = []
        for block in response.content:
            if block.type == "tool_use":
                output = dispatch(block.name, block.input)
                calls.append({"tool": block.name, "input": block.input})
                results.append(
                    {"type": "tool_result", "tool_use_id": block.id, "content": output}
                )
        messages.append({"role": "user", "content": results})
    record = {"task": task["id"], "turns": turn + 1, "calls": calls[-20:]}
    append_run(record)
    return record
