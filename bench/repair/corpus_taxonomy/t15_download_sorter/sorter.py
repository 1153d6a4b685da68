"""Tidying a downloads folder: files go to a folder by type; clashing names get ' (n)'."""

FOLDERS = {
    "pdf": "Documents", "docx": "Documents", "txt": "Documents",
    "jpg": "Pictures", "png": "Pictures", "mp3": "Music", "zip": "Archives", "gz": "Archives",
}


def split_name(filename):
    """('report.v2', 'pdf') for 'report.v2.pdf'; ('README', '') when there is no extension."""
    if "." not in filename.lstrip("."):
        return filename, ""
    stem, ext = filename.split(".", 1)
    return stem, ext.lower()


def folder_for(filename):
    return FOLDERS.get(split_name(filename)[1], "Other")


def free_name(filename, existing):
    """``filename``, or 'name (1).ext', 'name (2).ext', ... if it is in ``existing``."""
    stem, ext = split_name(filename)
    suffix = f".{ext}" if ext else ""
    candidate, n = filename, 1
    while candidate in existing:
        candidate = f"{stem} ({n}){suffix}"
        n += 1
    return candidate


def plan_moves(filenames):
    """{filename: 'Folder/filename'} for the files of one download folder."""
    return {name: f"{folder_for(name)}/{name}" for name in filenames}
