import pytest

from lakeboard.common.request_text import data_part


@pytest.mark.parametrize(
    "request_text, kept",
    [
        ("On which day of 2016 did the tide peak? Answer as YYYY-MM-DD.", "On which day of 2016 did the tide peak?"),
        ("What is the mean depth? Round your answer to 2 decimal places.", "What is the mean depth?"),
        ("Which crane lifted most? Give the crane number. No explanation needed.", "Which crane lifted most?"),
        ("Give the total rainfall of 2020.", "Give the total rainfall of 2020."),  # the question itself stays
        ("Readings in YYYYMMDD form from sensor 4", "Readings in   form from sensor 4"),
    ],
)
def test_instructions_about_the_answer_are_left_out(request_text, kept):
    assert data_part(request_text).strip() == kept.strip()


def test_hostile_text_is_handled():
    for text in ["", "...", "?!\n\n", "\u2028Answer\x00", "a" * 10000]:
        data_part(text)
