"""Undo and redo for a one-line text field."""


class TextField:
    def __init__(self, text=""):
        self.text = text
        self._undo = []
        self._redo = []

    def _change(self, new_text):
        self._undo.append(self.text)
        self._redo.clear()
        self.text = new_text

    def insert(self, chars):
        self._change(self.text + chars)

    def backspace(self, count=1):
        if count > 0 and self.text:
            self._change(self.text[:-count])

    def undo(self):
        """Go back one change; False when there is nothing to undo."""
        if not self._undo:
            return False
        self._undo.append(self.text)
        self.text = self._undo.pop()
        return True

    def redo(self):
        if not self._redo:
            return False
        self._undo.append(self.text)
        self.text = self._redo.pop()
        return True
