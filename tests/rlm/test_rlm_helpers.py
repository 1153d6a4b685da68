"""The REPL helpers: chunk_text, search_context, count_matches, extract_json, extract_sections, truncate."""

import pytest

from codur.rlm.helpers import (
    chunk_text,
    count_matches,
    extract_json,
    extract_sections,
    search_context,
    truncate,
)


def test_chunk_text_covers_everything_with_overlap():
    text = "".join(f"line {i}\n" for i in range(1000))
    chunks = chunk_text(text, size=500, overlap=50)
    assert all(len(c) <= 500 for c in chunks)
    assert chunks[0] + "".join(c[50:] for c in chunks[1:]) == text
    assert all(c.endswith("\n") for c in chunks[:-1])  # cut at line ends
    assert chunks[1].startswith(chunks[0][-50:])


def test_chunk_text_edges():
    assert chunk_text("", size=10) == []
    assert chunk_text("abc", size=10) == ["abc"]
    assert chunk_text("abcdefghij", size=4, overlap=0) == ["abcd", "efgh", "ij"]
    assert chunk_text("abcdefgh", size=4, overlap=9) == ["abcd", "cdef", "efgh"]  # overlap cut to size // 2
    with pytest.raises(ValueError):
        chunk_text("x", size=0)


def test_search_context_regex_case_insensitive_with_window():
    text = "aaa The Needle bbb needle ccc"
    hits = search_context(text, "needle", window=4)
    assert hits == ["[@8] The Needle bbb", "[@19] bbb needle ccc"]
    assert len(search_context(text, "needle", max_results=1)) == 1


def test_invalid_regex_is_matched_literally():
    assert count_matches("call f(x and f(x again", "f(x") == 2
    assert search_context("a [b", "[b", window=1) == ["[@2]  [b"]


def test_count_matches():
    assert count_matches("ERROR x\nerror y\nwarn", r"^error") == 2
    assert count_matches("abc", "z") == 0


@pytest.mark.parametrize("text, value", [
    ('Sure: ```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
    ('the list [3, 4] and more', [3, 4]),
    ('noise {broken: } then {"ok": true}', {"ok": True}),
    ("no json here", None),
])
def test_extract_json(text, value):
    assert extract_json(text) == value


def test_extract_sections_markdown_and_file_headers():
    md = "intro\n# One\nbody 1\n## Two\nbody 2\n"
    assert extract_sections(md) == {"": "intro\n", "# One": "body 1", "## Two": "body 2"}
    repo = "=== a.py ===\nx = 1\n=== b/c.py ===\ny = 2\n"
    assert extract_sections(repo) == {"=== a.py ===": "x = 1", "=== b/c.py ===": "y = 2"}
    assert extract_sections("A: 1\nB: 2", r"^[AB]:") == {"A:": " 1", "B:": " 2"}
    assert extract_sections("# N\na\n# N\nb\n# N\nc") == {"# N": "a", "# N (2)": "b", "# N (3)": "c"}


def test_truncate_says_how_much_was_cut():
    assert truncate("short", 10) == "short"
    cut = "\n[output truncated: 20 characters in total, showing the first 4 and the last 1]\n"
    assert truncate("x" * 20, 5) == "xxxx" + cut + "x"
    assert truncate("x" * 20, 3) == "xxx\n[output truncated: 20 characters in total, showing the first 3]"
    # the last line a block printed (its result, after the lines it counted) survives the cut, whole
    hits = "".join(f"2026-03-11 07:{i:02d}:00 ERROR catalog upstream returned 502\n" for i in range(60)) + "293\n"
    shown = truncate(hits, 1_500)
    assert shown.startswith(hits[:1_000]) and shown.endswith("returned 502\n293\n") and len(shown) < 1_600
    assert "showing the first 1,125 and the last" in shown and "\n2026-03-11" in shown.split("]")[-1]


# -- the helpers of issue 26 (grep, count, lines_with, between, chunks) on a real text ---------------

def _real_text() -> str:
    """The standard library's json package source: a real text of ~14,000 characters."""
    import json
    from pathlib import Path

    return Path(json.__file__).read_text(encoding="utf-8")


def test_grep_and_count_ignore_case_and_agree_on_a_real_text():
    from codur.rlm.helpers import count, grep

    text = _real_text()
    expected = [line for line in text.splitlines() if "jsondecodeerror" in line.lower()]
    assert grep(text, "JSONDecodeError") == grep(text, "jsondecodeerror") == expected
    assert len(expected) >= 3 and count(text, "jsondecodeerror") == len(expected)
    assert grep(text, r"^def dumps\(") == ["def dumps(obj, *, skipkeys=False, ensure_ascii=True, check_circular=True,"]
    assert count(text, "jsondecodeerror", ignore_case=False) == 0
    assert grep(text, "dumps(") == [line for line in text.splitlines() if "dumps(" in line]  # invalid regex: literal


def test_lines_with_between_and_chunks_on_a_real_text():
    from codur.rlm.helpers import between, chunks, lines_with

    text = _real_text()
    both = lines_with(text, "def", "LOADS")
    assert both == [line for line in text.splitlines() if "def" in line and "loads" in line.lower()]
    assert any(line.startswith("def loads(") for line in both)
    assert between(text, "__version__ = '", "'") == text.split("__version__ = '")[1].split("'")[0]
    assert between(text, "no such marker", "x") == ""
    pieces = chunks(text, 4)
    assert "".join(pieces) == text and len(pieces) == 4
    assert all(p.endswith("\n") for p in pieces[:-1]) and max(map(len, pieces)) < len(text) / 2
    with pytest.raises(ValueError):
        chunks(text, 0)
    with pytest.raises(ValueError):
        lines_with(text)


def test_empty_outputs_and_search_literal_notes():
    from codur.rlm.helpers import looks_empty
    from codur.rlm.notes import search_literal_notes

    assert looks_empty("") and looks_empty("0\n") and looks_empty("hits: []\nNone")
    assert not looks_empty("172") and not looks_empty("['a line']")
    text = _real_text()
    notes = search_literal_notes("import re\nn = len(re.findall('JSONDECODER', context))\nprint('n:', n)", text)
    assert len(notes) == 1 and "'JSONDECODER' matches 0 times as written but" in notes[0]
    notes = search_literal_notes("print('zebra' in context)", text)
    assert notes == [f"'zebra' -> 0 matches in {len(text):,} characters: check case and spelling"]
    assert search_literal_notes("print(count('JSONDecoder'))", text) == []  # found as written: no note
    assert search_literal_notes("this is not python(", text) == []
