from lakeboard.schemas.clusters import LakeVocabulary
from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.relevance import LexicalEngine, vocabulary_of


def test_best_file_covers_the_request(small_lake):
    eng = LexicalEngine(small_lake)
    top = eng.score("How many riders did the Red line have in 2024?")[0]
    assert top.path == "transit/ridership.csv"
    assert {"riders", "red", "line"} <= set(top.matched_terms)  # as the request wrote them


def test_categorical_values_are_matched(small_lake):
    top = LexicalEngine(small_lake).score("total amount spent by the Parks department")[0]
    assert top.path == "budget/city_budget_2023.csv"


def test_unusable_files_are_never_returned(small_lake):
    paths = [m.path for m in LexicalEngine(small_lake).score("broken parquet truncated")]
    assert "broken.parquet" not in paths


def test_year_ranges_distinguish_tables(small_lake):
    eng = LexicalEngine(small_lake)
    m = {x.path: x for x in eng.score("riders in 2010")}
    assert "2010" in m["transit/ridership.csv"].matched_terms  # 2001..2024 covers 2010


def test_dictionary_is_linked_and_marked(small_lake):
    eng = LexicalEngine(small_lake)
    assert eng.dictionaries == {"transit/ridership.csv": ["transit/ridership_dictionary.csv"]}
    by_path = {m.path: m for m in eng.score("boardings per transit line")}
    assert by_path["transit/ridership_dictionary.csv"].role == "dictionary"
    assert by_path["transit/ridership.csv"].companions == ["transit/ridership_dictionary.csv"]


def test_sibling_family_shares_a_group_and_the_folder_name(small_lake):
    eng = LexicalEngine(small_lake)
    ms = [m for m in eng.score("population by district") if m.path.startswith("people/")]
    assert len(ms) == 3 and len({m.group for m in ms}) == 1 and ms[0].group


def test_scores_are_on_the_lake_scale_whatever_the_partition(small_lake):
    vocab = vocabulary_of(small_lake)
    whole = {m.path: m.score for m in LexicalEngine(small_lake, vocab).score("Red line riders")}
    part = {m.path: m.score for m in LexicalEngine(small_lake[2:4], vocab).score("Red line riders")}
    assert part["transit/ridership.csv"] == whole["transit/ridership.csv"]
    assert isinstance(vocab, LakeVocabulary) and vocab.n_files == len(small_lake)


def test_request_with_no_known_words_scores_nothing_high(small_lake):
    ms = LexicalEngine(small_lake).score("quantum chromodynamics on a lattice")
    assert all(m.score < 0.2 for m in ms)


def test_a_data_table_whose_values_name_another_files_columns_is_no_dictionary():
    """Observations by region, next to a table with a column per region: not a dictionary."""
    from tests.servers.relevance.conftest import table_profile

    regions = ["Alaska", "Northwest", "Great Basin", "Southwest"]
    wide = table_profile("fires_by_region.csv", {"Year": ["2020"], **{r: ["1"] for r in regions}})
    long_rows = table_profile(
        "incidents.csv",
        {"region": regions * 5, "incident_name": [f"Long incident name number {i}" for i in range(20)]},
    )
    long_rows.tables[0].n_rows = 5000
    long_rows.tables[0].columns[0].n_unique = 4
    assert LexicalEngine([wide, long_rows]).dictionaries == {}


def test_vocabulary_carries_word_specificity_so_servers_need_no_word_lists(small_lake, tmp_path):
    import subprocess
    import sys

    vocab = vocabulary_of(small_lake)
    assert vocab.specificity["rider"] > vocab.specificity["line"]  # "riders" is rarer than "line"
    (tmp_path / "vocab.json").write_text(vocab.model_dump_json())
    code = (
        "import sys, json\n"
        "from lakeboard.schemas.clusters import LakeVocabulary\n"
        "from lakeboard.servers.relevance import LexicalEngine\n"
        "from tests.servers.relevance.conftest import table_profile\n"
        f"v = LakeVocabulary.model_validate_json(open({str(tmp_path / 'vocab.json')!r}).read())\n"
        "p = table_profile('transit/ridership.csv', {'line': ['Red'], 'riders': ['5']})\n"
        "LexicalEngine([p], v).score('How many riders did the Red line have? Some unusual words here.')\n"
        "print('wordfreq' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_vocabulary_gives_every_lake_term_its_specificity(small_lake):
    prose = FileProfile(path="docs/guide.md", format="markdown", kind="document",
                        text="Roadside suburban fares rose after the industrial census.")
    vocab = vocabulary_of([*small_lake, prose])
    assert set(vocab.specificity) == set(vocab.doc_freq)  # prose and year terms too, not only names and values
    assert vocab.specificity["roadsid"] > vocab.specificity["rose"]


def _inspections() -> list[FileProfile]:
    from tests.servers.relevance.conftest import table_profile

    yearly = [table_profile(f"insp/inspections-{y}.csv", {"site": ["quarry", "mill"], "violations": ["1", "4"]},
                            notes=[f"Safety inspections {y}"]) for y in range(2001, 2025)]
    towns = [table_profile(f"rain/rainfall_{t}.csv", {"day": ["2020-01-01", "2020-12-31"], "rainfall_mm": ["0", "9"]},
                           notes=[f"Daily rain gauge at {t.replace('_', ' ').title()}"])
             for t in ("upton", "lowfield", "marsh_end", "elsworth_quay")]
    other = [table_profile("staff/daily_roster.csv", {"name": ["ann", "bo"], "shift": ["early", "late"]})]
    return yearly + towns + other


def test_a_family_is_one_unit_and_the_request_picks_its_members():
    eng = LexicalEngine(_inspections())
    ranking = eng.rank("safety violations found in inspections from 2005 to 2016 (inclusive)")
    picked = [m for m in ranking.matches if m.path.startswith("insp/")]
    assert sorted(m.path[-8:-4] for m in picked) == [str(y) for y in range(2005, 2017)]
    assert len({m.score for m in picked}) == 1  # one score for the unit
    (choice,) = ranking.choices.values()
    assert "one file per year, 2001-2024" in choice.reason and "chosen 12" in choice.reason


def test_named_members_are_chosen_and_a_members_own_name_is_no_evidence_for_the_family():
    eng = LexicalEngine(_inspections())
    picked = [m.path for m in eng.score("rainfall at Upton and Marsh End") if m.path.startswith("rain/")]
    assert sorted(picked) == ["rain/rainfall_marsh_end.csv", "rain/rainfall_upton.csv"]
    # "quay" is only in one member's own name (and title): it says which member, not what the family holds
    assert not [m for m in eng.score("cargo handled at each quay") if m.path.startswith("rain/")]


def test_a_file_matching_only_framing_words_ranks_below_one_matching_content():
    # "daily" is rarer in this lake than "safety" or "violations", yet it says nothing of what is needed
    ranked = LexicalEngine(_inspections()).score("daily safety violations")
    assert ranked[0].path.startswith("insp/")
    framing_only = {m.path: m.score for m in ranked if not m.path.startswith("insp/")}
    assert max(framing_only.values()) < ranked[0].score


def test_files_outside_the_requested_period_rank_lower():
    from tests.servers.relevance.conftest import table_profile

    old = table_profile("a/visits_old.csv", {"date": ["1999-01-01", "2003-12-31"], "visits": ["1", "2"]})
    new = table_profile("a/visits_new.csv", {"date": ["2019-01-01", "2023-12-31"], "visits": ["1", "2"]})
    scores = {m.path: m.score for m in LexicalEngine([old, new]).score("visits in 2021")}
    assert scores["a/visits_new.csv"] > scores["a/visits_old.csv"]


def test_month_words_of_a_requests_times_are_no_evidence_but_years_are():
    from lakeboard.servers.relevance.engine import request_terms
    from tests.servers.relevance.conftest import table_profile

    lifts = table_profile("ops/crane_lifts.csv", {"date": ["2024-03-01", "2024-03-02"], "lifts": ["40", "52"]})
    # a footnote's month says when the table was revised, not what it holds
    revised = table_profile("fin/charges.csv", {"item": ["berth", "crane"], "charge": ["5", "9"]},
                            notes=["Revised March 2024"])
    assert set(request_terms("How many lifts did crane 7 make in March 2024?")) == {"lift", "crane", "make", "2024"}
    matches = {m.path: m for m in LexicalEngine([lifts, revised]).score("How many lifts did crane 7 make in March 2024?")}
    assert "March" not in matches["fin/charges.csv"].matched_terms
    assert matches["ops/crane_lifts.csv"].score > 2 * matches["fin/charges.csv"].score
