"""The main agent's prompts in the paper's baselines, beside the blackboard's (host/agents/main_agent_prompts.py).

- master-slave (the paper's Fig. 8): the helpers are listed by name with what each knows, and
  the main agent asks one of them by name;
- rag (Fig. 9): the five files closest to the question are given with their profiles; help
  requests go to the search agent only;
- all-files (DS-GRU): every file of the lake is given with its profile; nobody helps, and the
  main agent corrects its own code from the errors it sees.
"""

from __future__ import annotations

from collections.abc import Sequence

from lakeboard.common.code_text import comment_text
from lakeboard.common.prompt_data import data_block
from lakeboard.host.agents.main_agent_prompts import BLACKBOARD_TEXT, ModeText
from lakeboard.schemas.profiles import FileEntry

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

MODE_TEXTS = {
    "blackboard": BLACKBOARD_TEXT,
    "master-slave": MASTER_SLAVE_TEXT,
    "rag": RAG_TEXT,
    "all-files": ALL_FILES_TEXT,
}

FILES_CHARS = 60_000  # all-files: the listing stops here, saying how many files it left out


def helpers_context(helpers: Sequence[tuple[str, str]]) -> str:
    """The master-slave listing: each helper's name and what it knows (from the lake: data, fenced)."""
    lines = [f"- {comment_text(name, 120)}: {comment_text(about, 600)}" for name, about in helpers]
    return "The helpers you can ask by name:\n" + data_block("\n".join(lines))


def files_context(entries: Sequence[FileEntry], heading: str, limit: int = FILES_CHARS) -> str:
    """Files with their profiles' summaries, at most `limit` characters (lake text: data, fenced)."""
    lines, used = [], 0
    for i, e in enumerate(entries):
        line = f"- {comment_text(e.path, 500)} ({comment_text(e.format, 40)}): {comment_text(e.summary, 1000)}"
        if used + len(line) > limit:
            lines.append(f"- ... and {len(entries) - i} more files, left out for length")
            break
        lines.append(line)
        used += len(line)
    return heading + "\n" + data_block("\n".join(lines))
