"""A file agent's answers as short Markdown, the text content a client's model reads.

The structured content carries the whole typed answer (matches, term weights, samples);
the text says only what a model needs to act: whether the partition helps, which files,
the code that loads them and the key steps. Lake text (file names, reasons) is shown on
one line each, so a name cannot open a new Markdown block.
"""

from __future__ import annotations

import re

from lakeboard.common.file_lists import file_lines, markdown_inline as _inline
from lakeboard.schemas.messages import FileAgentResponse, HelpDecision

_FILES = 12  # file lines shown; a family of same-layout files is one line
_STEPS = 8
_CODE_CHARS = 6000


def decision(answer: HelpDecision, partition: str) -> str:
    verdict = "can help" if answer.can_help else "cannot help"
    return (f"**Partition `{_inline(partition)}` {verdict}** (confidence {answer.confidence:.2f}): "
            f"{_inline(answer.reason)}")


def response(answer: FileAgentResponse, partition: str) -> str:
    head = decision(HelpDecision(agent_name=answer.agent_name, can_help=answer.can_help, reason=answer.reason,
                                 confidence=answer.confidence), partition)
    if not answer.can_help:
        return head
    parts = [head]
    if answer.files:
        family_of = {m.path: m.group for m in answer.matches}
        copies_of = {m.path: m.copies for m in answer.matches}
        parts.append("**Files**, most relevant first:\n" + "\n".join(file_lines(answer.files, family_of, _FILES,
                                                                                copies_of)))
    if answer.code:
        code = answer.code.strip()
        if len(code) > _CODE_CHARS:
            code = code[:_CODE_CHARS] + "\n# ... (cut here: the whole program is in the structured content's `code`)"
        fence = _fence(code)
        parts.append(f"**How to load them**:\n{fence}python\n{code}\n{fence}")
    if answer.necessary_steps:
        steps = answer.necessary_steps[:_STEPS]
        more = len(answer.necessary_steps) - len(steps)
        parts.append("**Key steps**:\n" + "\n".join(f"- {_inline(s)}" for s in steps)
                     + (f"\n- ... and {more} more steps" if more else ""))
    return "\n\n".join(parts)


def _fence(code: str) -> str:
    """A code fence longer than any run of backticks in `code` (a lake name may hold some), so the
    code stays exactly as written and cannot close its block early."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)
