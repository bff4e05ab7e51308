"""The keys a finding's ``detail`` carries, per category, as typed dictionaries.

Why: rules record what they saw in ``detail`` (the model expression, the path written,
the command run) and proposers read it back by key.  Declaring the keys here lets the
type checker catch a misspelt key or a wrong value type on both sides, and tells a
reader what each key holds without hunting through the rule that wrote it.

Every key is optional (``total=False``): a rule writes a key only when the source
shows it.  The stored form stays a plain dict, so survey JSON is unchanged.
"""

from __future__ import annotations

from typing import TypedDict


class EntryDetail(TypedDict, total=False):
    """``entry_point``: how the run starts and which call-graph node it starts at."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    module: str  # main_guard: the dotted module the guard sits in
    does: list[str]  # main_guard: what the block does (entry.main_block_does)
    description: str  # argparse: the parser's description literal
    decorator: str  # click/typer: the command decorator as written
    function: str  # click/typer: the decorated function's symbol
    script: str  # console_script: the declared command name
    command: str  # shell/dockerfile: the line that starts Python
    target_module: str  # console_script, ``python -m``: the module started
    target_function: str  # console_script: the function started
    target_path: str  # shell/dockerfile: the script file started
    target_node: str  # set by the runner: the call-graph node the entry starts at


class ModelCallDetail(TypedDict, total=False):
    """``model_call``: who is called, with which model, and where it really goes."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    provider: str  # anthropic, openai, litellm, http, transformers, a wrapper's package...
    call: str  # the callee as written
    model: str  # the model expression as written
    model_value: str  # its value when the file makes it plain (literal, constant, env default)
    endpoint: str  # an HTTP path or base URL passed to the call
    tools: str  # the ``tools=`` argument as written
    system: str  # the ``system=`` argument as written
    via: str  # via_wrapper: the repository function the call goes through
    reaches: str  # via_wrapper: ID of the direct model call it reaches
    command: str  # cli: the command line a subprocess starts, as written


class ToolDetail(TypedDict, total=False):
    """``tool_dispatch``: how a name chosen at run time becomes code that runs."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    target: str  # dynamic import / exec_module: the module or spec expression
    name_expr: str  # getattr_dispatch: the computed attribute name
    callee: str  # subscript_dispatch: ``tools[name]`` as written
    tool: str  # wrappers, decorators, schemas, tool modules: the tool's name
    description: str  # tool_decorator / tool_schema: the description shown to a model
    callables: str  # callable_registry: the registered callables, comma-separated


class ExecDetail(TypedDict, total=False):
    """``exec_effect``: a command or code run outside the system's own logic."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    call: str  # the callee as written
    command: str  # the command or code argument as written
    shell: bool  # run through a shell
    runs_docker: bool  # the command starts a container
    #: exec_effect: True when the command runs git; persistence: the git subcommand.
    #: Both categories share the key, so both declare the union.
    git: bool | str


class PersistenceDetail(TypedDict, total=False):
    """``persistence``: what is written that outlives the call."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    mode: str  # open(): the mode literal
    call: str  # save calls: the callee as written
    target: str  # the path (or object) written, as written
    target_value: str  # its value when the file makes it plain
    statement: str  # sqlite: the SQL statement
    command: str  # git: the command as written
    git: bool | str  # git: the subcommand (commit, reset...); see ExecDetail


class ReadBackDetail(TypedDict, total=False):
    """``read_back``: a read of something the system wrote, and which write it matches."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    target: str  # the path read, as written
    target_value: str  # its value when plain
    written_as: str  # the matching write's target as written
    written_value: str  # the matching write's value when plain
    file: str  # the file name read and write share (``metadata.json``), when they do


class PromptDetail(TypedDict, total=False):
    """``prompt``: instructions shipped to a model and how they reach it."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    file: str  # prompt_file/prompt_load/prompt_read: the prompt file's path
    lines: int  # prompt_file: its line count
    first_instruction: str  # prompt_file: the anchored instruction line
    of: str  # prompt_rule: the group (``file:path`` or ``str:path:name``) it belongs to
    name: str  # instruction_string/prompt_load: the name it is assigned to
    string_lines: str  # instruction_string: ``start-end`` of the whole string
    chars: int  # instruction_string: its length
    fstring: bool  # instruction_string: an f-string
    content: str  # system_message: the content expression
    via: str  # prompt_read: the name through which the file is read


class LoopDetail(TypedDict, total=False):
    """``model_loop``: a loop that calls a model, and the steps in its body."""

    header: str  # the loop's first line
    calls: str  # the model call (or repository node reaching one) in the body
    body_lines: str  # ``start-end`` of the loop
    call: str  # loop_step: the callee as written
    step: str  # loop_step: the call-graph node it calls
    loop_line: int  # loop_step: the line of the loop it belongs to


class GatingDetail(TypedDict, total=False):
    """``gating``: where outputs become scores and scores become decisions."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    comparison: str  # threshold/answer_check: the comparison as written
    call: str  # selection: the selecting call
    args: str  # selection: its arguments
    decorator: str  # retry: the retry decorator
    function: str  # retry: the decorated function
    loop: str  # retry: the retry loop's header
    name: str  # score_report/score_aggregate/answer_extraction/reference_def: the name
    scale: str  # grading_scale: the line mapping verdicts to points
    stores: str  # promotion: where the selected value is stored
    selected: str  # promotion: the selected name
    selected_at: str  # promotion: the line it was selected on


class ConfigDetail(TypedDict, total=False):
    """``config_read``: knobs the system takes from outside (secrets by name only)."""

    why: str  # rules of the ES and Go languages: the shape that made the rule fire

    env: str  # env/env_write: the variable's name
    access: str  # env: get/getenv/setdefault/pop/subscript/set
    default: str  # env: a non-secret default literal; cli_option: the default
    secret: bool  # env: the name looks like a secret, so no value is recorded
    call: str  # yaml/toml/dotenv/hydra...: the loading call
    source: str  # the loaded file expression
    name: str  # model_setting: the assigned name
    value: str  # model_setting: the assigned expression
    option: str  # cli_option: the option flag


class ClaimDetail(TypedDict, total=False):
    """``claim``: a sentence where the repository promises behaviour."""

    sentence: str
    function: str  # docstring: the function whose docstring it is
    why: str  # why the sentence counts as a promise (ES claims)


class StateDetail(TypedDict, total=False):
    """``state``: a collection or state object a run keeps in memory and changes."""

    why: str
    state: str  # the state as the code names it: ``RunContext.#approvals``, ``tools``
    holds: str  # what it is made as: Map, Set, array, object, a class
    touched_by: str  # the functions that use it, comma-joined
    written_by: str  # those that change it, comma-joined
    access: str  # state_write / state_read: "write" or "read"
    uses: int  # how many functions use it
    changes: int  # how many of them change it


#: What one rule writes: exactly one category's keys (the rules' side of the contract).
AnyDetail = (
    EntryDetail
    | ModelCallDetail
    | ToolDetail
    | ExecDetail
    | PersistenceDetail
    | ReadBackDetail
    | PromptDetail
    | LoopDetail
    | GatingDetail
    | ConfigDetail
    | ClaimDetail
    | StateDetail
)


class Detail(
    EntryDetail,
    ModelCallDetail,
    ToolDetail,
    ExecDetail,
    PersistenceDetail,
    ReadBackDetail,
    PromptDetail,
    LoopDetail,
    GatingDetail,
    ConfigDetail,
    ClaimDetail,
    StateDetail,
    total=False,
):
    """Any finding's ``detail`` as proposers read it: every category's keys in one
    dictionary type (a key two categories share has one meaning and type in both,
    ``git`` aside), so a lookup needs no narrowing by category first."""
