"""File tools on real files: list, read, write, replace, apply_patch, move, delete."""

from __future__ import annotations

from pathlib import Path

import pytest

from codur.tools import ToolExecutor

FIX_ADD = """\
--- a/calc.py
+++ b/calc.py
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
"""


def ok(ex: ToolExecutor, name: str, **args) -> str:
    result = ex.execute(name, args)
    assert result.ok, result.output
    return result.output


def refused(ex: ToolExecutor, snapshot, name: str, **args) -> str:
    """The call fails with a readable error and the repo is unchanged."""
    before = snapshot(ex.root)
    result = ex.execute(name, args)
    assert not result.ok and result.output.startswith("Error: "), result.output
    assert snapshot(ex.root) == before
    return result.output


def test_list_files_honours_nested_gitignore_and_globs(ex: ToolExecutor, repo: Path) -> None:
    (repo / ".gitignore").write_text("build/\n*.log\n")
    (repo / "build").mkdir()
    (repo / "build" / "gen.py").write_text("")
    (repo / "run.log").write_text("")
    (repo / "pkg" / "data").mkdir(parents=True)
    (repo / "pkg" / ".gitignore").write_text("data/\n!keep.log\n")
    (repo / "pkg" / "data" / "blob.py").write_text("")
    (repo / "pkg" / "mod.py").write_text("")
    (repo / "pkg" / "keep.log").write_text("")
    (repo / "__pycache__").mkdir()
    (repo / "__pycache__" / "calc.cpython-311.pyc").write_bytes(b"\0")
    listing = ok(ex, "list_files").splitlines()
    assert listing == [".gitignore", "README.md", "calc.py", "pkg/.gitignore", "pkg/keep.log", "pkg/mod.py",
                       "tests/conftest.py", "tests/test_calc.py"]
    assert ok(ex, "list_files", pattern="*.py").splitlines() == ["calc.py", "pkg/mod.py", "tests/conftest.py",
                                                                 "tests/test_calc.py"]
    assert ok(ex, "list_files", directory="tests", pattern="test_*.py") == "tests/test_calc.py"
    assert ok(ex, "list_files", pattern="tests/*.py,*.md").splitlines() == [
        "README.md", "tests/conftest.py", "tests/test_calc.py"]
    assert "no files match '*.rs'" in ok(ex, "list_files", pattern="*.rs")
    assert "no such file or directory" in ex.execute("list_files", {"directory": "nope"}).output


def test_read_file_with_line_ranges(ex: ToolExecutor) -> None:
    assert ok(ex, "read_file", path="calc.py").splitlines()[:3] == [
        "calc.py (lines 1-6 of 6):", "   1| def add(a, b):", "   2|     return a - b"]
    assert ok(ex, "read_file", path="calc.py", start_line=5, end_line=99).splitlines() == [
        "calc.py (lines 5-6 of 6):", "   5| def mul(a, b):", "   6|     return a * b"]
    assert "has only 6 lines" in ex.execute("read_file", {"path": "calc.py", "start_line": 7}).output
    assert "bad line range 3..2" in ex.execute("read_file", {"path": "calc.py", "start_line": 3, "end_line": 2}).output


def test_read_file_reads_a_range_of_a_huge_file(ex: ToolExecutor, repo: Path) -> None:
    (repo / "huge.log").write_text("".join(f"event {i}\n" for i in range(150_000)))
    assert "over the 1000000-byte limit" in ex.execute("read_file", {"path": "huge.log"}).output
    assert ok(ex, "read_file", path="huge.log", start_line=100_000, end_line=100_001).splitlines()[1:] == [
        "100000| event 99999", "100001| event 100000"]


def test_read_files_reads_several_and_reports_each_error(ex: ToolExecutor) -> None:
    out = ok(ex, "read_files", paths=["calc.py", "missing.py", "README.md"])
    assert "   1| def add(a, b):" in out and "missing.py: Error: no such file" in out and "# calc" in out
    assert "at most 10" in ex.execute("read_files", {"paths": ["calc.py"] * 11}).output
    assert "escapes" in ex.execute("read_files", {"paths": ["calc.py", "../x"]}).output


def test_write_file_creates_and_overwrites_atomically(ex: ToolExecutor, repo: Path) -> None:
    (repo / "calc.py").chmod(0o755)
    assert ok(ex, "write_file", path="pkg/sub/new.py", content="X = 1\nY = 2\n") == "created pkg/sub/new.py (2 lines)"
    assert (repo / "pkg/sub/new.py").read_text() == "X = 1\nY = 2\n"
    assert ok(ex, "write_file", path="calc.py", content="") == "overwrote calc.py (0 lines)"
    assert (repo / "calc.py").read_text() == "" and (repo / "calc.py").stat().st_mode & 0o777 == 0o755
    assert not list(repo.rglob("*.codur-tmp"))
    assert "is a directory" in ex.execute("write_file", {"path": "tests", "content": "x"}).output


def test_replace_in_file_requires_a_unique_exact_match(ex: ToolExecutor, repo: Path, snapshot) -> None:
    assert ok(ex, "replace_in_file", path="calc.py", old="a - b", new="a + b") == "replaced 1 occurrence in calc.py"
    assert "return a + b" in (repo / "calc.py").read_text()
    assert "occurs 2 times" in refused(ex, snapshot, "replace_in_file", path="calc.py", old="(a, b)", new="(x, y)")
    assert "not found" in refused(ex, snapshot, "replace_in_file", path="calc.py", old="a / b", new="x")
    hint = refused(ex, snapshot, "replace_in_file", path="calc.py", old="  def mul(a, b):  ", new="x")
    assert "whitespace" in hint
    assert "not found" in refused(ex, snapshot, "replace_in_file", path="calc.py", old="", new="x")


def test_apply_patch_modifies_creates_deletes_and_renames(ex: ToolExecutor, repo: Path) -> None:
    (repo / "old_name.py").write_text("A = 1\nB = 2\n")
    patch = FIX_ADD + """\
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1,3 +1,4 @@
 # calc

 Adds and multiplies.
+Subtraction is not supported.
--- /dev/null
+++ b/pkg/__init__.py
@@ -0,0 +1,2 @@
+\"\"\"A package.\"\"\"
+VERSION = 1
--- a/tests/conftest.py
+++ /dev/null
@@ -1,2 +0,0 @@
-import sys, pathlib
-sys.path.insert(0, str(pathlib.Path(__file__).parent.parent))
--- a/old_name.py
+++ b/new_name.py
@@ -1,2 +1,2 @@
 A = 1
-B = 2
+B = 3
"""
    out = ok(ex, "apply_patch", patch=patch)
    assert out == ("patched calc.py (1 hunk); patched README.md (1 hunk); created pkg/__init__.py (1 hunk); "
                   "deleted tests/conftest.py; renamed old_name.py -> new_name.py (1 hunks)")
    assert (repo / "calc.py").read_text().startswith("def add(a, b):\n    return a + b\n")
    assert (repo / "README.md").read_text() == "# calc\n\nAdds and multiplies.\nSubtraction is not supported.\n"
    assert (repo / "pkg/__init__.py").read_text() == '"""A package."""\nVERSION = 1\n'
    assert not (repo / "tests/conftest.py").exists() and not (repo / "old_name.py").exists()
    assert (repo / "new_name.py").read_text() == "A = 1\nB = 3\n"


def test_apply_patch_tolerates_offsets_wrong_counts_and_missing_prefixes(ex: ToolExecutor, repo: Path) -> None:
    patch = """--- calc.py
+++ calc.py
@@ -1,99 +1,99 @@
 def mul(a, b):
-    return a * b
+    return b * a
"""
    ok(ex, "apply_patch", patch=patch)  # the hunk says line 1 but sits at line 5
    assert (repo / "calc.py").read_text().endswith("def mul(a, b):\n    return b * a\n")
    (repo / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree")
    ok(ex, "apply_patch", patch="--- a/crlf.txt\n+++ b/crlf.txt\n@@ -2,2 +2,2 @@\n two\n-three\n"
       "\\ No newline at end of file\n+THREE\n\\ No newline at end of file\n")
    assert (repo / "crlf.txt").read_bytes() == b"one\r\ntwo\r\nTHREE"


@pytest.mark.parametrize("patch,message", [
    (FIX_ADD.replace(" def add(a, b):", " def add(x, y):"),
     "hunk 1 for calc.py does not match the file: line 1 should be 'def add(x, y):'"),
    (FIX_ADD.replace("-    return a - b", "-  return a - b"), "differ only in whitespace"),
    ("just some text, no diff", "no file header found"),
    ("@@ -1 +1 @@\n-a\n+b\n", "before any '--- a/file'"),
    ("--- a/calc.py\n+++ b/calc.py\n", "no hunks"),
    ("--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-a\n+b\n", "no such file or directory: missing.py"),
    ("--- a/../outside.txt\n+++ b/../outside.txt\n@@ -1 +1 @@\n-top secret outside the repo\n+pwned\n",
     "escapes the repository"),
    ("--- /dev/null\n+++ b/calc.py\n@@ -0,0 +1 @@\n+x = 1\n", "creates calc.py, which already exists"),
    ("--- a/calc.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def add(a, b):\n-    return a - b\n",
     "leave lines in it"),
    # all or nothing: the first file's hunk is fine, the second file's is not
    (FIX_ADD + "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# wrong title\n+# Calc\n",
     "hunk 1 for README.md does not match"),
])
def test_apply_patch_refuses_bad_patches_and_changes_nothing(ex: ToolExecutor, snapshot, outside: Path,
                                                             patch: str, message: str) -> None:
    assert message in refused(ex, snapshot, "apply_patch", patch=patch)
    assert outside.read_text() == "top secret outside the repo\n"


def test_move_file(ex: ToolExecutor, repo: Path, snapshot) -> None:
    assert ok(ex, "move_file", src="calc.py", dst="src/calc_lib.py") == "moved calc.py -> src/calc_lib.py"
    assert not (repo / "calc.py").exists() and (repo / "src/calc_lib.py").read_text().startswith("def add")
    assert "already exists" in refused(ex, snapshot, "move_file", src="README.md", dst="src/calc_lib.py")
    assert "no such file" in refused(ex, snapshot, "move_file", src="calc.py", dst="x.py")
    assert "is a directory" in refused(ex, snapshot, "move_file", src="tests", dst="t2")


def test_delete_file(ex: ToolExecutor, repo: Path, snapshot) -> None:
    assert ok(ex, "delete_file", path="README.md") == "deleted README.md"
    assert not (repo / "README.md").exists()
    assert "no such file" in refused(ex, snapshot, "delete_file", path="README.md")
    assert "is a directory" in refused(ex, snapshot, "delete_file", path="tests")
    assert "README.md" in ex.journal.diff()
