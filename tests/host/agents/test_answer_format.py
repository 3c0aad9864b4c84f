"""The answer formats of the paper and of KramaBench, end to end: a scripted model over HTTP
writes the final program, a real kernel runs it, and the printed answer is found and scored."""

from __future__ import annotations

import json

import pytest

from lakeboard.host.agents.main_agent import MainAgent
from lakeboard.host.agents.main_agent_prompts import MAIN_AGENT_MARKER
from lakeboard.host.eval.answer_scores import score_answer
from lakeboard.host.llm import ChatProvider
from tests.support.scripted_llm import ScriptedLLM

pytestmark = pytest.mark.asyncio(loop_scope="module")

KRAMABENCH_PROGRAM = """\
import json
import pandas as pd
df = pd.read_csv({path!r})
print("loaded", len(df), "rows")
print(df.head())
print(json.dumps({{"subtask-1": len(df), "main-task": int(df["count"].sum())}}, indent=4))
"""


async def test_kramabench_output_after_other_output_with_a_structured_response(kernel, tiny_lake):
    client, board, trace = kernel
    program = KRAMABENCH_PROGRAM.format(path=str(tiny_lake / "counts.csv"))
    reply = json.dumps({
        "action": "answer",
        "code": program,
        "structured_response": {  # the paper's name for the response
            "data_sources": ["counts.csv"],
            "subtasks": [{"id": "subtask-1", "query": "How many cities are listed?"}],
        },
    })
    with ScriptedLLM() as model:
        model.route(MAIN_AGENT_MARKER, reply)
        async with ChatProvider(model.settings()) as llm:
            agent = MainAgent(llm, board, client, tiny_lake, lake_paths=["counts.csv"], trace=trace)
            result = await agent.run("How many things were counted?")

    assert result.status == "answered", result.error
    assert result.answer == 7 and result.response.answer == 7
    assert result.data_sources == ["counts.csv"]
    assert [(s.id, s.answer) for s in result.response.subtasks] == [("subtask-1", 2)]
    assert score_answer(result.answer, 7, "numeric_exact").correct
