"""The modes the main agent runs in: the blackboard and the paper's baselines (Salemi et al., Table 2).

- blackboard: the request is broadcast; every helper decides on its own whether to help;
- master-slave (its Fig. 8): the helpers are listed by name with what each knows, and the main
  agent names the one that must answer;
- rag (its Fig. 9): the five files closest to the question are given up front with their
  profiles; help requests go to the search agent only;
- all-files (DS-GRU): every file of the lake is given up front with its profile; nobody helps,
  and the main agent corrects its own code from the errors it sees.

This module is where a mode is defined: its name (`Mode`), the text the main agent's prompt
(host/agents/main_agent_prompts.py) gets in it (`ModeText`), and what the agent is given with
the question (`AgentMode`). `mode_setup.py` builds an `AgentMode` over a lake's running servers;
`offline_modes.py` runs each mode's data discovery with no model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast, get_args

Mode = Literal["blackboard", "master-slave", "rag", "all-files"]
MODES: tuple[Mode, ...] = get_args(Mode)


def check_mode(name: str) -> Mode:
    """`name` as a mode, or a ValueError that lists the modes."""
    if name not in MODES:
        raise ValueError(f"unknown mode {name!r}: use {', '.join(MODES[:-1])} or {MODES[-1]}")
    return cast(Mode, name)


@dataclass(frozen=True)
class ModeText:
    """What changes in the main agent's prompt between the modes."""

    lake_note: str  # ends the lake's bullet: who knows its files
    helpers: str  # the inputs' bullet on who helps ("" for nobody)
    help_action: str | None  # what request_help does (None: no such action)
    help_json: str  # its JSON form
    code_files: str  # whose files run_code loads
    first_rule: str


BLACKBOARD_TEXT = ModeText(
    lake_note="You cannot list or read the\n  lake yourself; other agents know its files.",
    helpers="""\
- A blackboard. When you post a request on it, every helper agent reads the request and decides by
  itself whether it can help. The file agents each know one part of the lake: a file agent that
  helps answers with the relevant files, code that loads them correctly, an explanation of the data,
  a sample of it and the steps needed to use it. A search agent answers questions that need general
  or domain knowledge.
""",
    help_action="""Post a request on the blackboard for data or knowledge that you need. Describe what
   you need in plain words (the quantities, the places and the period); do not guess file names.""",
    help_json='{{"action": "request_help", "request": "...", "reason": "why you need it"}}',
    code_files="the files that\n   the helpers suggested",
    first_rule="""Ask the blackboard before you guess where data is. Use the code and the steps that the helpers give
  you, and check the data (headers, units, missing values and footnotes) before you compute with it.""",
)

MASTER_SLAVE_TEXT = ModeText(
    lake_note="You cannot list or read the\n  lake yourself; the helper agents know its files.",
    helpers="""\
- Helper agents, listed with the question. Each file agent knows one part of the lake, and the search
  agent (if there is one) general and domain knowledge. You ask one helper at a time, by its name,
  and it answers: a file agent with the relevant files, code that loads them correctly, an
  explanation of the data, a sample of it and the steps needed to use it.
""",
    help_action="""Ask one helper, by its name, for data or knowledge that you need. Choose the helper
   from the list; describe what you need in plain words (the quantities, the places and the period).""",
    help_json='{{"action": "request_help", "helper": "name", "request": "...", "reason": "why you need it"}}',
    code_files="the files that\n   the helpers suggested",
    first_rule="""Ask the helper whose part of the lake fits before you guess where data is. Use the code and the
  steps that the helpers give you, and check the data (headers, units, missing values and footnotes)
  before you compute with it.""",
)

RAG_TEXT = ModeText(
    lake_note="You cannot list the lake;\n  the five files closest to the question are listed with it, with their profiles.",
    helpers="""\
- A search agent, which answers questions that need general or domain knowledge.
""",
    help_action="""Ask the search agent for general or domain knowledge that you need, in plain words.""",
    help_json='{{"action": "request_help", "request": "...", "reason": "why you need it"}}',
    code_files="the listed files",
    first_rule="""Use the listed files, and check the data (headers, units, missing values and footnotes) before you
  compute with it.""",
)

ALL_FILES_TEXT = ModeText(
    lake_note="Every file of the lake is\n  listed with the question, with its profile.",
    helpers="",
    help_action=None,
    help_json="",
    code_files="the files you need",
    first_rule="""Choose the files from the list, and check the data (headers, units, missing values and footnotes)
  before you compute with it. When your code fails, read the error and correct it.""",
)

MODE_TEXTS: dict[Mode, ModeText] = {
    "blackboard": BLACKBOARD_TEXT,
    "master-slave": MASTER_SLAVE_TEXT,
    "rag": RAG_TEXT,
    "all-files": ALL_FILES_TEXT,
}


@dataclass(frozen=True)
class AgentMode:
    """What the main agent is given in a mode: the prompt's text, what it sees with the question,
    and whom a help request may reach."""

    name: Mode = "blackboard"
    context: str = ""  # shown with the question: the helpers (master-slave), the files (rag, all-files)
    helpers: tuple[str, ...] = ()  # master-slave: the helpers it may name; rag: the search agents

    @property
    def text(self) -> ModeText:
        return MODE_TEXTS[self.name]

    @property
    def broadcasts(self) -> bool:
        return self.name == "blackboard"

    @property
    def names_a_helper(self) -> bool:
        return self.name == "master-slave"
