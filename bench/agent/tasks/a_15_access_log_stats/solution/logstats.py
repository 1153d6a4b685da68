"""Quick statistics over web server access logs (common log format).

Used by the nightly report: parse yesterday's log, then compute the 5xx
error rate and the most requested paths.
"""
import re
from collections import Counter

LINE_RE = re.compile(
    r'(?P<ip>\S+) \S+ \S+ \[(?P<time>[^\]]+)\] '
    r'"(?P<method>[A-Z]+) (?P<path>\S+) [^"]*" (?P<status>\d{3}) (?P<size>\d+|-)'
)


def parse_line(line):
    """Parse one log line into a dict, or return None if it is malformed."""
    match = LINE_RE.match(line)
    if not match:
        return None
    entry = match.groupdict()
    entry["status"] = int(entry["status"])
    entry["size"] = 0 if entry["size"] == "-" else int(entry["size"])
    return entry


def parse_log(lines):
    """Parse all well-formed lines, silently skipping the rest."""
    entries = []
    for line in lines:
        entry = parse_line(line)
        if entry is not None:
            entries.append(entry)
    return entries


def error_rate(entries):
    """Fraction of requests answered with a 5xx status (0.0 if there were none)."""
    if not entries:
        return 0.0
    errors = sum(1 for entry in entries if entry["status"] >= 500)
    return errors / len(entries)


def top_paths(entries, n=3):
    """The ``n`` most requested paths as (path, hits) pairs."""
    return Counter(entry["path"] for entry in entries).most_common(n)
