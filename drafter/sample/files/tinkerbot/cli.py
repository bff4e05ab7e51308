"""Command line: `tinkerbot run` solves tasks, `tinkerbot improve` rewrites the prompt."""

import argparse
import sys

from tinkerbot.agent import MAX_TURNS, run_task
from tinkerbot.improve import improve
from tinkerbot.plugins import load_plugins
from tinkerbot.scoring import check, load_tasks, passes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tinkerbot")
    sub = parser.add_subparsers(dest="command", required=True)
    run_p = sub.add_parser("run", help="solve tasks")
    run_p.add_argument("--task", help="only this task id")
    run_p.add_argument("--max-turns", type=int, default=MAX_TURNS)
    imp_p = sub.add_parser("improve", help="rewrite the system prompt")
    imp_p.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)

    load_plugins()
    if args.command == "improve":
        best = improve(args.rounds)
        print(f"best score {best:.2f}")
        return 0 if passes(best) else 1
    tasks = [t for t in load_tasks() if args.task in (None, t["id"])]
    ok = 0
    for task in tasks:
        run_task(task, max_turns=args.max_turns)
        ok += check(task)
    print(f"{ok}/{len(tasks)} tasks passed")
    return 0 if ok == len(tasks) else 1


if __name__ == "__main__":
    sys.exit(main())
