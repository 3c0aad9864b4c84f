"""What the main agent is given in each mode: the prompt's text, what it sees with the question,
and whom a help request may reach."""

from __future__ import annotations

from dataclasses import dataclass

from lakeboard.host.agents.main_agent_prompts import BLACKBOARD_TEXT, ModeText


@dataclass(frozen=True)
class AgentMode:
    name: str = "blackboard"
    text: ModeText = BLACKBOARD_TEXT
    context: str = ""  # shown with the question: the helpers (master-slave), the files (rag, all-files)
    helpers: tuple[str, ...] = ()  # master-slave: the helpers it may name; rag: the search agents

    @property
    def broadcasts(self) -> bool:
        return self.name == "blackboard"
