"""Scripts that run under the *repository's* interpreter (pytest plugin, fork server).

They import nothing from codur: the directory is put on PYTHONPATH of the test process.
"""
