"""The modes, defined once: each name has its prompt text, and an unknown name is refused with the list."""

from __future__ import annotations

import pytest

from lakeboard.host.baselines.modes import MODE_TEXTS, MODES, AgentMode, check_mode


def test_every_mode_has_its_prompt_text_and_an_agent_mode_follows_its_name() -> None:
    assert MODES == ("blackboard", "master-slave", "rag", "all-files")
    assert tuple(MODE_TEXTS) == MODES
    assert len({id(text) for text in MODE_TEXTS.values()}) == len(MODES)
    assert [AgentMode(mode).text for mode in MODES] == [MODE_TEXTS[mode] for mode in MODES]
    assert [mode for mode in MODES if AgentMode(mode).broadcasts] == ["blackboard"]
    assert [mode for mode in MODES if AgentMode(mode).names_a_helper] == ["master-slave"]
    assert AgentMode() == AgentMode("blackboard")


def test_an_unknown_mode_is_refused_with_the_modes_listed() -> None:
    assert check_mode("rag") == "rag"
    with pytest.raises(ValueError, match="unknown mode 'table-qa': use blackboard, master-slave, rag or all-files"):
        check_mode("table-qa")
