"""grep and find_definition on real files."""

from __future__ import annotations

from pathlib import Path

from codur.tools import ToolExecutor

SHAPES = '''\
import math

RATE: float = 0.5
LIMIT = 10


class Shape:
    """A shape."""

    def area(self) -> float:
        raise NotImplementedError


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    @property
    def area(self) -> float:
        return math.pi * self.r ** 2


async def fetch(url: str, *, retries: int = 3) -> bytes:
    return b""
'''


def test_grep_regex_globs_case_and_limits(ex: ToolExecutor, repo: Path) -> None:
    (repo / "shapes.py").write_text(SHAPES)
    out = ex.execute("grep", {"pattern": r"def \w+\(a, b\)"}).output
    assert out.splitlines() == ["calc.py:1: def add(a, b):", "calc.py:5: def mul(a, b):"]
    assert ex.execute("grep", {"pattern": "calc", "glob": "*.md"}).output == "README.md:1: # calc"
    assert ex.execute("grep", {"pattern": "CALC", "glob": "*.md", "ignore_case": True}).output == "README.md:1: # calc"
    assert ex.execute("grep", {"pattern": "assert", "path": "tests"}).output.count("\n") == 1
    assert "no match for 'nowhere'" in ex.execute("grep", {"pattern": "nowhere"}).output
    (repo / "many.txt").write_text("hit\n" * 150)
    many = ex.execute("grep", {"pattern": "^hit$", "glob": "many.txt"}).output
    assert many.count("many.txt:") == 100 and "… 50 more matches" in many


def test_grep_skips_binary_secret_ignored_and_outside_files(ex: ToolExecutor, repo: Path, outside: Path) -> None:
    (repo / "blob.bin").write_bytes(b"needle\0\0\0")
    (repo / ".env").write_text("needle=1\n")
    (repo / ".gitignore").write_text("dist/\n")
    (repo / "dist").mkdir()
    (repo / "dist" / "out.py").write_text("needle\n")
    (repo / "escape.txt").symlink_to(outside)
    (repo / "ok.txt").write_text("a needle here\n")
    assert ex.execute("grep", {"pattern": "needle|top secret"}).output == "ok.txt:1: a needle here"


def test_grep_invalid_regex_is_a_clear_error(ex: ToolExecutor, repo: Path, snapshot) -> None:
    before = snapshot(repo)
    result = ex.execute("grep", {"pattern": "add(a, b"})
    assert not result.ok and "invalid regex 'add(a, b': missing ), unterminated subpattern" in result.output
    assert "escape special characters" in result.output and snapshot(repo) == before


def test_find_definition_functions_classes_methods_variables(ex: ToolExecutor, repo: Path) -> None:
    (repo / "pkg").mkdir()
    (repo / "pkg" / "shapes.py").write_text(SHAPES)
    (repo / "pkg" / "broken.py").write_text("def area(:\n")
    add = ex.execute("find_definition", {"symbol": "add"}).output
    assert add == "calc.py:1-2: def add(a, b)\n   1| def add(a, b):\n   2|     return a - b"
    circle = ex.execute("find_definition", {"symbol": "Circle"}).output
    assert circle.startswith("pkg/shapes.py:14-20: class Circle(Shape)\n  14| class Circle(Shape):")
    prop = ex.execute("find_definition", {"symbol": "Circle.area"}).output
    assert prop.startswith("pkg/shapes.py:18-20: def area(self) -> float (in class Circle)\n  18|     @property")
    both = ex.execute("find_definition", {"symbol": "area"}).output
    assert both.count("def area(self) -> float (in class ") == 2
    assert ex.execute("find_definition", {"symbol": "Shape.area"}).output.startswith("pkg/shapes.py:10-11")
    assert ex.execute("find_definition", {"symbol": "fetch"}).output.startswith(
        "pkg/shapes.py:23-24: async def fetch(url: str, *, retries: int=3) -> bytes")
    assert ex.execute("find_definition", {"symbol": "RATE"}).output.startswith("pkg/shapes.py:3-3: variable")
    assert "no definition of 'nothing'" in ex.execute("find_definition", {"symbol": "nothing"}).output
    bad = ex.execute("find_definition", {"symbol": "not a name"})
    assert not bad.ok and "is not a Python name" in bad.output


def test_list_symbols_of_a_file_and_a_directory(ex: ToolExecutor, repo: Path) -> None:
    (repo / "pkg").mkdir()
    (repo / "pkg" / "shapes.py").write_text(SHAPES)
    (repo / "pkg" / "broken.py").write_text("def f(:\n")
    out = ex.execute("list_symbols", {"path": "pkg/shapes.py"}).output
    assert out.splitlines() == [
        "pkg/shapes.py:", "  7-11: class Shape", "      10-11: def area(self) -> float",
        "  14-20: class Circle(Shape)", "      15-16: def __init__(self, r)", "      18-20: def area(self) -> float",
        "  23-24: async def fetch(url: str, *, retries: int=3) -> bytes"]
    tree = ex.execute("list_symbols", {"path": "."}).output
    assert "calc.py:\n  1-2: def add(a, b)\n  5-6: def mul(a, b)" in tree
    assert "pkg/broken.py:\n  Error: pkg/broken.py:1: cannot parse" in tree and "tests/test_calc.py:" in tree
    assert not ex.execute("list_symbols", {"path": "README.md"}).ok
