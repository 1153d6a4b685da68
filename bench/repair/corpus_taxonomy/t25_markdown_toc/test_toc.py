from toc import anchor, headings, table_of_contents

DOC = """\
# Guide
Some intro.
## Install
```
# not a heading
```
### From source
#hashtag is not a heading either
#### Deep
"""


def test_headings_with_levels():
    assert headings(DOC) == [(1, "Guide"), (2, "Install"), (3, "From source"), (4, "Deep")]


def test_code_blocks_are_skipped():
    assert headings("```\n# x\n```\n") == []


def test_anchor():
    assert anchor("From source!") == "from-source"


def test_table_of_contents_stops_at_max_level():
    assert table_of_contents(DOC) == (
        "- [Guide](#guide)\n"
        "  - [Install](#install)\n"
        "    - [From source](#from-source)"
    )
