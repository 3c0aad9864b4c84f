"""Log files: web servers' access logs and applications' timestamped lines.

Read as text they are a wall of lines; read as records they are one row per request or event.
An access log in the NCSA common or combined format (Apache, nginx) gives the client, the
time, the request's method, path and protocol, the status, the size, and the referrer and user
agent when combined. An application's log gives each line that starts with a timestamp as a
record: its time, its level, its logger when the line names one ("time - name - LEVEL - text",
Python's logging), and its message, with the lines under it (a traceback) joined to it.
`read_access_log` and `read_app_log` are also the loader's parsers (`text_records`).
"""

from __future__ import annotations

from lakeboard.schemas.profiles import FileProfile
from lakeboard.servers.profiling.text_records import records_table
from lakeboard.servers.profiling.text_sample import TextSample

HEAD_LINES = 40
COVERED = 0.8  # share of the first lines that must be records

def read_access_log(lines):
    """One dict per request line of an access log (NCSA common or combined format); lines that
    are no request are skipped. '-' for no user, size or referrer is None; the time stays text
    as written ('15/Mar/2024:06:25:21 +0100': pd.to_datetime(..., format='%d/%b/%Y:%H:%M:%S %z'))."""
    import re

    pattern = re.compile(
        r'^(?P<client>\S+) (?P<ident>\S+) (?P<user>\S+) \[(?P<time>[^\]]+)\] "(?P<request>[^"]*)" (?P<status>\d{3}) '
        r'(?P<size>\S+)(?: "(?P<referrer>[^"]*)" "(?P<user_agent>[^"]*)")?'
    )
    rows = []
    for line in lines:
        m = pattern.match(line.strip())
        if not m:
            continue
        method, _, rest = m["request"].partition(" ")
        path, _, protocol = rest.rpartition(" ") if " " in rest else (rest, "", "")
        rows.append({
            "client": m["client"],
            "user": None if m["user"] == "-" else m["user"],
            "time": m["time"],
            "method": method or None,
            "path": path or None,
            "protocol": protocol or None,
            "status": int(m["status"]),
            "size": int(m["size"]) if m["size"].isdigit() else None,
            "referrer": None if m["referrer"] in (None, "-") else m["referrer"],
            "user_agent": None if m["user_agent"] in (None, "-") else m["user_agent"],
        })
    return rows


def read_app_log(lines):
    """One dict per event of an application's log: a line that starts with a timestamp starts
    one (its time, level, logger and message), and the lines under it up to the next (a
    traceback) join its message."""
    import re

    stamp = re.compile(r"^\[?(?P<time>\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{3,9})?(?:Z|[+-]\d{2}:?\d{2})?)\]?\s*(?P<rest>.*)$")
    level = re.compile(r"^[-|:]?\s*\[?(?P<level>TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|SEVERE|CRITICAL|FATAL)\]?\s*[-|:]?\s*",
                       re.IGNORECASE)
    rows = []
    for line in lines:
        line = line.rstrip("\r\n")
        m = stamp.match(line)
        if not m:
            if rows and line.strip():
                rows[-1]["message"] += "\n" + line
            continue
        rest, logger, found = m["rest"].lstrip("-| "), None, None
        parts = rest.split(" - ")
        if len(parts) >= 3 and level.fullmatch(parts[1].strip()):  # Python's "name - LEVEL - message"
            logger, found, rest = parts[0].strip(), parts[1].strip(), " - ".join(parts[2:])
        elif lm := level.match(rest):
            found, rest = lm["level"], rest[lm.end():]
        rows.append({"time": m["time"], "level": found.upper() if found else None, "logger": logger, "message": rest})
    return rows


def kind(lines: list[str]) -> str | None:
    """'access_log' or 'app_log' when most of the first lines are such records, else None."""
    head = [ln.strip() for ln in lines[: HEAD_LINES * 2] if ln.strip()][:HEAD_LINES]
    if len(head) < 3:
        return None
    if len(read_access_log(head)) >= COVERED * len(head):
        return "access_log"
    # lines under an event (a traceback's) are part of it: the stamped lines need only start and lead
    events = read_app_log(head)
    if not read_app_log(head[:1]) or len(events) < max(3, len(head) // 2):
        return None
    # as many commas (tabs, ...) after every stamp, or nothing after most: a table whose first column is a time
    if any(len({e["message"].count(c) for e in events}) == 1 and events[0]["message"].count(c) for c in ",\t;|"):
        return None
    if sum(1 for e in events if e["message"].strip()) < COVERED * len(events):
        return None
    return "app_log"


def looks_like(lines: list[str]) -> bool:
    return kind(lines) is not None


def profile(prof: FileProfile, sample: TextSample, lines: list[str]) -> None:
    fmt = kind(lines) or "app_log"
    if fmt == "access_log":
        rows = read_access_log(lines)
        names = ["client", "user", "time", "method", "path", "protocol", "status", "size", "referrer", "user_agent"]
        note = "a web server's access log (NCSA common or combined format): one row per request"
    else:
        rows = read_app_log(lines)
        names = ["time", "level", "logger", "message"]
        note = "an application's log: one row per timestamped event, with its level and message"
    if not sample.complete and len(rows) > 1:
        rows = rows[:-1]  # the head may end inside the last record
    tp = records_table(prof, sample, fmt, rows, names, note)
    times = [r["time"] for r in rows]
    span = f", {times[0]} to {times[-1]}" if times else ""
    what = "access log" if fmt == "access_log" else "application log"
    prof.summary = f"{what}: {tp.n_rows:,} {'requests' if fmt == 'access_log' else 'events'}{span} ({', '.join(names)})"
