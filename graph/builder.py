"""Build the drafting workflow as an *uncompiled* LangGraph StateGraph.

The caller compiles it with its own checkpointer (a SqliteSaver per run in the CLI,
an in-memory or temporary one in tests), so durability is a choice of the caller and
the graph itself stays pure.  Shape::

    resolve_snapshot → ensure_index → survey → plan ─Send×N→ draft_record ─┐
                                                                          ▼
               ┌──────────── repair ◀─Send×M── verify ──(no misses)──▶ account → assemble
               └──────────────────────────────▶ ▲
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from graph.configuration import RunContext
from graph.nodes.account import account
from graph.nodes.assemble import assemble
from graph.nodes.draft_record import draft_record
from graph.nodes.ensure_index import ensure_index
from graph.nodes.plan import plan
from graph.nodes.repair import repair
from graph.nodes.resolve_snapshot import resolve_snapshot
from graph.nodes.survey import survey
from graph.nodes.verify import route_after_verify, verify
from graph.state import DraftState

NODES = (
    "resolve_snapshot",
    "ensure_index",
    "survey",
    "plan",
    "draft_record",
    "verify",
    "repair",
    "account",
    "assemble",
)


def fan_out_records(state: DraftState) -> list[Send] | str:
    """One Send per planned record; an empty plan goes straight to verify."""
    plan_ = state.get("plan") or {}
    items = plan_.get("items", [])
    if not items:
        return "verify"
    return [Send("draft_record", {"item": item, "plan": plan_}) for item in items]


def build_graph() -> StateGraph[DraftState, RunContext]:
    g = StateGraph(DraftState, context_schema=RunContext)
    g.add_node("resolve_snapshot", resolve_snapshot)
    g.add_node("ensure_index", ensure_index)
    g.add_node("survey", survey)
    g.add_node("plan", plan)
    g.add_node("draft_record", draft_record)
    g.add_node("verify", verify)
    g.add_node("repair", repair)
    g.add_node("account", account)
    g.add_node("assemble", assemble)
    g.add_edge(START, "resolve_snapshot")
    g.add_edge("resolve_snapshot", "ensure_index")
    g.add_edge("ensure_index", "survey")
    g.add_edge("survey", "plan")
    g.add_conditional_edges("plan", fan_out_records, ["draft_record", "verify"])
    g.add_edge("draft_record", "verify")
    g.add_conditional_edges("verify", route_after_verify, ["repair", "account"])
    g.add_edge("repair", "verify")
    g.add_edge("account", "assemble")
    g.add_edge("assemble", END)
    return g
