"""Files as Markdown list lines: one line a family, copies and notes after the path, lake text kept inline."""

from lakeboard.common.file_lists import file_lines


def test_a_family_is_one_line_and_copies_and_notes_follow_the_path():
    lines = file_lines(["rain/2021.csv", "rain/2022.csv", "sub`mission.csv", "fires.csv"],
                       {"rain/2021.csv": "rain/{year}.csv", "rain/2022.csv": "rain/{year}.csv"},
                       copies_of={"fires.csv": ["old/fires.csv"]}, notes={"sub`mission.csv": "an answer template"})
    assert lines == [
        "- `rain/2021.csv` and 1 more files of the same layout",
        "- `sub'mission.csv` (an answer template)",
        "- `fires.csv` (the same bytes as `old/fires.csv`)",
    ]


def test_a_long_list_is_cut_with_a_count():
    lines = file_lines([f"f{i}.csv" for i in range(5)], {}, limit=3)
    assert lines[-1] == "- ... and 2 more" and len(lines) == 4
