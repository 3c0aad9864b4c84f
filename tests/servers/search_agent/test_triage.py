"""The offline classifier: knowledge requests versus requests for the lake's data."""

from __future__ import annotations

import pytest

from lakeboard.servers.search_agent.triage import triage

KNOWLEDGE = [
    "How is the air quality index computed from pollutant concentrations?",
    "What does the term 'apparent temperature' mean?",
    "Define the standardized precipitation index.",
    "What is the formula for the heat index?",
    "Which algorithm is used to compute a moving-average crossover?",
    "Explain the difference between median and mean household income.",
    "What are the category breakpoints of the UV index?",
    "How do you convert degrees Fahrenheit to Celsius?",
    "What is a z-score?",
    "What does the abbreviation CPI stand for?",
    "How should a weighted average of rates be calculated?",
]

DATA = [
    "Which files contain the hourly sensor readings for March 2024?",
    "Find the dataset with county population by year.",
    "Load the CSV of monthly rainfall and compute the average.",
    "Which column holds the station identifier in the weather table?",
    "I need the list of incidents in 2020 from the lake.",
    "Get the file that has the consumer complaint reports.",
    "Open readings_2024.xlsx and list its sheets.",
]

NEITHER = [
    "What is the total number of reports in 2023?",
    "I need data about the number of complaints per state.",
]


@pytest.mark.parametrize("request_text", KNOWLEDGE)
def test_knowledge_requests(request_text: str) -> None:
    result = triage(request_text)
    assert result.asks_knowledge and not result.asks_data, result
    assert 0.0 < result.strength() <= 1.0


@pytest.mark.parametrize("request_text", DATA)
def test_data_requests(request_text: str) -> None:
    result = triage(request_text)
    assert result.asks_data and not result.asks_knowledge, result
    assert result.strength() == 0.0


@pytest.mark.parametrize("request_text", NEITHER)
def test_data_questions_are_not_knowledge(request_text: str) -> None:
    assert not triage(request_text).asks_knowledge


def test_mixed_request_leans_to_its_stronger_side() -> None:
    mixed = triage("Find the column with fine particulate values and explain what the unit of that measurement means.")
    assert mixed.knowledge > 0 and mixed.data > 0
    assert mixed.strength() < triage("Explain what the unit of a fine particulate measurement means.").strength()


def test_cues_are_reported_for_reasons() -> None:
    result = triage("Which files contain the hourly sensor readings for March 2024?")
    assert "asks to find data files or fields" in result.data_cues
    assert triage("What is the formula for the heat index?").knowledge_cues


def test_long_input_is_triaged() -> None:
    # How fast (linear in the length, < 1 s here): benchmarks/bench_triage.py.
    assert triage("what is " + "a" * 20000 + "?").knowledge_cues
    plain = triage("how is " + "x " * 20000)
    assert (plain.knowledge, plain.data) == (0, 0)  # a run of letters is no cue either way


@pytest.mark.parametrize("by", ["by", "By", "BY"])
def test_by_marks_data_in_any_case(by: str) -> None:
    assert "asks for values per entity" in triage(f"Total rainfall {by} county").data_cues
    assert "asks for a data operation" in triage(f"Sum the sales and group {by} region").data_cues
    assert "asks what something is" not in triage(f"What is rainfall {by} county?").knowledge_cues
    assert "asks what something is" in triage("What is rainfall?").knowledge_cues
