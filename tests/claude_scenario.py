"""The scripted Claude conversation about the shipped sample used by the graph tests.

Six planned records exercise every path: a 529 then success, a 429 with retry-after,
a route whose model reads a file and greps before submitting (a tool loop), a wrong
quote repaired only in the second round (its model ignoring the one fix-up turn
``submit_record`` gives a submission with misses, in each conversation), a quote that
can never be repaired (dropped, record flagged), a schema-invalid answer fixed by the
corrective retry, and one that stays invalid (record dropped with its reason).
Material for the graph, resume, redraft and end-to-end tests; it holds no tests of
its own.
"""

from __future__ import annotations

from typing import Any

from fakes import FakeAPI, error, tool, use

from drafter.model import VerifyStatus

PLAN = {
    "system": "tinkerbot",
    "items": [
        {
            "id": "RT-CMP-claude",
            "kind": "CMP",
            "label": "Claude task model",
            "files": ["tinkerbot/agent.py"],
            "rationale": "The agent loop calls it.",
            "facts": [],
        },
        {
            "id": "RT-OBJ-run-log",
            "kind": "OBJ",
            "label": "Run log",
            "files": ["tinkerbot/store.py"],
            "rationale": "Every run is appended.",
            "facts": [],
        },
        {
            "id": "RT-RTE-run-task",
            "kind": "RTE",
            "label": "Task run",
            "files": ["tinkerbot/agent.py", "tinkerbot/tools.py"],
            "rationale": "The main route.",
            "facts": [],
        },
        {
            "id": "RT-CLM-sandbox",
            "kind": "CLM",
            "label": "Sandbox claim",
            "files": ["tinkerbot/tools.py"],
            "rationale": "The tool description promises isolation.",
            "facts": [],
        },
        {
            "id": "RT-BAP-system-prompt",
            "kind": "BAP",
            "label": "System prompt",
            "files": ["tinkerbot/agent.py", "prompts/system.md"],
            "rationale": "The prompt steers the model.",
            "facts": [],
        },
        {
            "id": "RT-CMP-mystery",
            "kind": "CMP",
            "label": "Mystery",
            "files": ["../../etc/passwd"],
            "rationale": "Never valid.",
            "facts": [],
        },
    ],
}

STATUSES = [
    {"name": "implementation conclusion status", "value": "wired"},
    {"name": "operation conclusion status", "value": "uninspected"},
]


def rec(label: str, lead: str, witnesses: list[tuple[str, str]], **extra: Any) -> dict[str, Any]:
    return {
        "label": label,
        "lead": lead,
        "fields": STATUSES,
        "paragraphs": extra.get("paragraphs", [f"{label} as seen in the source (SRC-1)."]),
        "witnesses": [{"quote": q, "path": p} for q, p in witnesses],
    }


GOOD_RUN_TASK = "output = dispatch(block.name, block.input)"
BAD_RUN_TASK_1 = "output = dispatch(block.name, block.args)"
BAD_RUN_TASK_2 = "output = dispatch(name, block.args)"
NEVER = "the sandbox blocks all network traffic"
SANDBOX = "Run a shell command in an isolated sandbox with no network access."

RUN_TASK_1 = rec(
    "Task run",
    "Endpoints/progression: tinkerbot.cli.main → agent.run_task → tools.dispatch",
    [
        ("for turn in range(max_turns):", "tinkerbot/agent.py"),
        (BAD_RUN_TASK_1, "tinkerbot/agent.py"),
    ],
)
RUN_TASK_2 = {
    **RUN_TASK_1,
    "witnesses": [
        RUN_TASK_1["witnesses"][0],
        {"quote": BAD_RUN_TASK_2, "path": "tinkerbot/agent.py"},
    ],
}
RUN_TASK_3 = {
    **RUN_TASK_1,
    "witnesses": [
        RUN_TASK_1["witnesses"][0],
        {"quote": GOOD_RUN_TASK, "path": "tinkerbot/agent.py"},
    ],
}

SANDBOX_REC = rec(
    "Sandbox claim",
    "Claimed operation: shell commands run without network access.",
    [(SANDBOX, "tinkerbot/tools.py"), (NEVER, "tinkerbot/tools.py")],
)

BAP_INVALID = {
    "label": "System prompt",
    "lead": "Consumer: Claude.",
    "witnesses": [{"quote": "system = load_system_prompt()"}],
}
BAP_OK = rec(
    "System prompt",
    "Consumer: the task model. Channel: system prompt. Force: instruction. Horizon: every turn.",
    [
        ("system = load_system_prompt()", "tinkerbot/agent.py"),
        ("Never try to reach the internet.", "prompts/system.md"),
    ],
)

ACCOUNT = {
    "sections": [
        {
            "title": "Scope and ordinary invocation",
            "items": [
                {
                    "type": "paragraph",
                    "text": "tinkerbot run drives RT-RTE-run-task, calling RT-CMP-claude.",
                },
                {"type": "witness", "text": "MAX_TURNS = 8", "path": "tinkerbot/agent.py"},
                {"type": "witness", "text": "MAX_TURNS = 800", "path": "tinkerbot/agent.py"},
                {"type": "numbered", "text": "RT-OBJ-run-log grows without bound."},
            ],
        }
    ]
}

# cache figures: the first call writes the shared block, later calls read it
FIRST = {"cache_creation_input_tokens": 900}
LATER = {"cache_read_input_tokens": 900}


def script_sample(fake: FakeAPI) -> None:
    fake.script("plan", tool(PLAN, **FIRST))
    fake.script(
        "record:RT-CMP-claude",
        error(529),
        tool(
            rec(
                "Claude task model",
                "Source-native identity: config.MODEL. Representational form: hosted model. "
                "Storage substrate: provider.",
                [("client = anthropic.Anthropic(api_key=config.api_key())", "tinkerbot/agent.py")],
            ),
            **LATER,
        ),
    )
    fake.script(
        "record:RT-OBJ-run-log",
        error(429, **{"retry-after": "0.01"}),
        tool(
            rec(
                "Run log",
                "Source-native identity: runs.jsonl. Representational form: JSON lines. "
                "Storage substrate: local file.",
                [('RUNS_FILE = STATE_DIR / "runs.jsonl"', "tinkerbot/store.py")],
            ),
            **LATER,
        ),
    )
    # the route's model investigates before it submits: two tool turns, two paid calls
    fake.script(
        "record:RT-RTE-run-task",
        use(
            ("read_file", {"path": "tinkerbot/agent.py", "start_line": 1, "end_line": 40}), **LATER
        ),
        use(("grep", {"pattern": r"dispatch\(", "path_glob": "tinkerbot/*"}), **LATER),
        tool(RUN_TASK_1, **LATER),
        # submit_record names the miss; this model resubmits unchanged (its one fix-up)
        tool(RUN_TASK_1, **LATER),
    )
    # each repair conversation has its own fix-up turn, ignored the same way
    fake.script(
        "repair:RT-RTE-run-task",
        tool(RUN_TASK_2, **LATER),
        tool(RUN_TASK_2, **LATER),
        tool(RUN_TASK_3, **LATER),
    )
    fake.script("record:RT-CLM-sandbox", tool(SANDBOX_REC, **LATER), tool(SANDBOX_REC, **LATER))
    fake.script("repair:RT-CLM-sandbox", *[tool(SANDBOX_REC, **LATER) for _ in range(4)])
    fake.script("record:RT-BAP-system-prompt", tool(BAP_INVALID, **LATER))
    fake.script("record:RT-BAP-system-prompt+retry", tool(BAP_OK, **LATER))
    fake.script("record:RT-CMP-mystery", tool({"label": 3}, **LATER))
    fake.script("record:RT-CMP-mystery+retry", tool({"lead": None}, **LATER))
    fake.script("account", tool(ACCOUNT, **LATER))


def all_verified(report: Any) -> bool:
    return all(
        w.verification is not None and w.verification.status == VerifyStatus.verified
        for w in report.witnesses
    )
