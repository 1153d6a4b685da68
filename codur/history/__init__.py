"""Run history: the runs a repo kept (:mod:`.runs`), a run's trace as a tree (:mod:`.trace`),
undoing a run's changes (:mod:`.undo`), and the commands for them (:mod:`.commands`)."""
