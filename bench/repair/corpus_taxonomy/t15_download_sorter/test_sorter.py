from sorter import folder_for, free_name, plan_moves, split_name


def test_extension_is_the_part_after_the_last_dot():
    assert split_name("report.v2.pdf") == ("report.v2", "pdf")


def test_names_without_extension():
    assert split_name("README") == ("README", "")
    assert split_name(".bashrc") == (".bashrc", "")


def test_folder_by_type():
    assert folder_for("notes.txt") == "Documents"
    assert folder_for("IMG.final.JPG") == "Pictures"
    assert folder_for("backup.tar.gz") == "Archives"


def test_clashing_names_are_numbered():
    assert free_name("report.pdf", {"report.pdf", "report (1).pdf"}) == "report (2).pdf"


def test_plan_moves():
    assert plan_moves(["song.mp3", "setup"]) == {"song.mp3": "Music/song.mp3", "setup": "Other/setup"}
