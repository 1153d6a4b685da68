from textfield import TextField


def test_insert_and_backspace():
    field = TextField("ab")
    field.insert("cd")
    field.backspace(3)
    assert field.text == "a"


def test_undo_restores_the_previous_text():
    field = TextField()
    field.insert("hello")
    field.insert(" world")
    assert field.undo()
    assert field.text == "hello"


def test_redo_after_undo():
    field = TextField()
    field.insert("hello")
    field.undo()
    assert field.redo()
    assert field.text == "hello"


def test_new_change_clears_redo():
    field = TextField()
    field.insert("a")
    field.undo()
    field.insert("b")
    assert not field.redo()
    assert field.text == "b"


def test_nothing_to_undo():
    assert not TextField("x").undo()
