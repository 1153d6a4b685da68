"""Batch runs: many codur tasks over many repositories (issue 25)."""
