"""Abbreviations that column names use in lakes of every kind, and what they stand for.

`TMAX`, `prcp`, `spd_mean`, `qty`: a request says "maximum temperature", "rainfall",
"speed", "quantity". The expansions are added to a column's terms, never replace them.
Only abbreviations common across domains belong here (weather, finance, geography,
measurement units), not the jargon of one field.
"""

from __future__ import annotations

_TABLE = """
    temp tmp: temperature
    tmax: maximum temperature
    tmin: minimum temperature
    tavg: average temperature
    prcp precip ppt: precipitation rainfall rain
    snwd: snow depth
    wspd: wind speed
    wdir: wind direction
    spd: speed
    dir: direction
    hum rh: humidity
    pres press: pressure
    vis: visibility
    elev: elevation
    alt: altitude
    lat: latitude
    lon lng long: longitude
    pop: population
    qty: quantity
    amt: amount
    cnt: count
    num nbr: number
    pct perc: percent percentage
    avg: average mean
    max: maximum
    min: minimum
    std stdev: standard deviation
    med: median
    yr yrs: year
    mo mon mth: month
    wk: week
    hr hrs: hour
    dt: date
    ts: timestamp time
    dur: duration
    dist: distance
    wt: weight
    ht: height
    vol: volume
    rev: revenue
    exp: expenditure expense
    addr: address
    desc: description
    cat: category
    dept: department
    govt gov: government
    bldg: building
    mgmt: management
    acct: account
    emp: employee
    cust: customer
    txn: transaction
    conc: concentration
    kwh mwh: energy electricity
    kw mw: power electricity
    mph kmh kph: speed
    degc degf celsius fahrenheit: temperature
"""

# Unit symbols that end a column name (`landed_t`, `fuel_l`, `turn_min`, `depth_m`): too
# short or too ambiguous to read anywhere else in a name, but a unit at its end.
_UNIT_TABLE = """
    t: tonnes tons
    kg: kilograms
    g: grams
    m: metres meters
    km: kilometres kilometers
    cm: centimetres centimeters
    mm: millimetres millimeters
    l: litres liters
    ml: millilitres milliliters
    h hr hrs: hours
    min mins: minutes
    s sec secs: seconds
    d: days
    eur: euros
    usd: dollars
    gbp: pounds
    ha: hectares
    kn kt kts: knots
    pct: percent
"""


def _table(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.strip().splitlines():
        short, long = line.split(":")
        for word in short.split():
            out[word] = long.strip()
    return out


EXPANSIONS = _table(_TABLE)
UNIT_SUFFIXES = _table(_UNIT_TABLE)


def expand(words: list[str]) -> list[str]:
    """What the abbreviations among `words` (lower-cased identifier parts) stand for, and
    the unit that ends a name of several words."""
    out = [EXPANSIONS[w] for w in words if w in EXPANSIONS]
    if len(words) > 1 and words[-1] in UNIT_SUFFIXES:
        out.append(UNIT_SUFFIXES[words[-1]])
    return out
