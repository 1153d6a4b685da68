from backup import by_extension, select, wanted

FILES = [
    "README.md",
    "pyproject.toml",
    "src/app/main.py",
    "src/app/__pycache__/main.cpython-311.pyc",
    "node_modules/left-pad/index.py",
    "docs/.draft.md",
    ".secrets.toml",
    "Makefile",
]


def test_selects_by_extension():
    assert wanted("src/app/main.py", [".py"])
    assert not wanted("Makefile", [".py"])


def test_skips_ignored_directories():
    assert not wanted("node_modules/left-pad/index.py", [".py"])


def test_skips_hidden_files():
    assert not wanted(".secrets.toml", [".toml"])
    assert not wanted("docs/.draft.md", [".md"])


def test_select():
    assert select(FILES) == ["README.md", "pyproject.toml", "src/app/main.py"]


def test_by_extension():
    assert by_extension(["a.py", "b.py", "Makefile"]) == {".py": 2, "(none)": 1}
