"""Answer templates told apart from data by their values: keys, blanks and placeholders only."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeboard.servers.profiling.profile import profile_file
from lakeboard.servers.relevance.answer_templates import is_answer_template


def _profiled(tmp_path: Path, text: str):
    path = tmp_path / "t.csv"
    path.write_text(text)
    return profile_file(path, tmp_path)


ids = "".join(f"{892 + i}," for i in range(300)).split(",")[:-1]


@pytest.mark.parametrize("text", [
    "PassengerId,Survived\n" + "".join(f"{i},0\n" for i in ids),  # a sample submission
    "id,probability\n" + "".join(f"{i},0.5\n" for i in ids[:40]),
    "city,average_temperature,total_rain\nOslo,0.0,\nRome,0.0,\nLima,0.0,\n",  # an output template
    "city,average_temperature\nOslo,0\nRome,0\nLima,0\n",
])
def test_keys_with_blanks_or_placeholders_are_a_template(tmp_path, text):
    assert is_answer_template(_profiled(tmp_path, text))


@pytest.mark.parametrize("text", [
    "station,country\nS1,NO\nS2,NO\nS3,NO\n",  # one country for every station: data all the same
    "station,year\nS1,2024\nS2,2024\nS3,2024\n",
    "id,count\n1,0\n",  # one row: a summary
    "id,fare\n1,7.25\n2,0\n3,0\n",  # a column that varies
    "city,average_temperature\n",  # no rows at all: not usable data, and not a template either
    "id,city,average_temperature\n1,Oslo,\n2,Rome,\n3,Lima,\n",  # two keys: a list of cities
    "name,value\na,0\na,0\nb,0\n",  # the first column repeats: not a key
    "country,population,flag\nNO,5400000,0\nSE,10400000,0\nFI,5500000,0\n",  # two columns of distinct values
    "time,volts_a,volts_b,spare\n" + "".join(f"{i},{i * 1.37:.2f},{i * 2.11:.2f},0\n" for i in range(30)),
    "reading,spare\n" + "".join(f"{i * 1.37:.2f},0\n" for i in range(30)),  # distinct decimals are measurements
])
def test_data_even_small_or_constant_is_not_a_template(tmp_path, text):
    assert not is_answer_template(_profiled(tmp_path, text))
