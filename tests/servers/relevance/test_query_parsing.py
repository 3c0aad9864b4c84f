from datetime import date

from lakeboard.servers.relevance.query_parsing import parse_query


def test_a_request_is_parsed_once_into_its_parts():
    q = parse_query('Using the orbit history of satellite 80412 in 2024, count the "Sentinel B" passes in the CSV '
                    "files. Round your answer to 2 decimal places.")
    assert "round" not in q.data_text.lower()  # the answer's form is not what data it needs
    assert {"orbit", "satellit", "80412"} <= set(q.terms)
    assert q.ids == ["80412"]
    assert "sentinelb" in q.name_parts  # words written together, as names often are
    assert q.phrases == ["sentinel b"]
    assert [(p.start, p.end) for p in q.periods] == [(date(2024, 1, 1), date(2024, 12, 31))]


def test_months_are_matched_against_time_not_text():
    q = parse_query("rainfall in March and April")
    assert q.months == [3, 4]
    assert "march" not in q.terms and "rainfal" in q.terms


def test_codes_mixing_letters_and_digits_are_ids_but_years_and_dates_are_not():
    q = parse_query("readings of sensor B12 between 2001 and 2003 on 2002-05-01")
    assert q.ids == ["b12"]


def test_quotes_around_the_answers_form_name_no_column():
    q = parse_query('Is the "High Price" correlated with the "Low Price" column? Answer with only \'Yes\' or \'No\'. '
                    'Use "5" bins.')
    assert q.phrases == ["high price", "low price"]


def test_a_long_requests_sentences_are_kept_beside_its_whole_text():
    q = parse_query("Load the ferry timetable of the harbour. See above. Then drop the cancelled crossings and "
                    "count the rest by month. Round your answer to 2 decimal places.")
    assert q.sentences == ["Load the ferry timetable of the harbour.",
                           "Then drop the cancelled crossings and count the rest by month."]
    # one sentence is its whole text: nothing to embed twice
    assert parse_query("ferry crossings by month. Round to 2 decimals.").sentences == []
