"""The execution package exports its nodes and the tool loop (issue 14, item 7)."""

from __future__ import annotations

import subprocess
import sys


def test_the_nodes_and_the_tool_loop_are_exported():
    from codur.graph.execution import (
        AgentExecutor,
        delegate_node,
        execute_node,
        patch_node,
        repair_node,
        review_node,
    )
    from codur.graph.execution.agent_executor import AgentExecutor as loop
    from codur.graph.execution.delegate import delegate_node as delegate
    from codur.graph.execution.patch import patch_node as patch

    assert AgentExecutor is loop and delegate_node is delegate
    assert repair_node is patch_node is patch
    for node in (delegate_node, execute_node, review_node, patch_node):
        assert callable(node) and callable(node.body)  # the graph node wrapper around the body


def test_each_export_imports_first_in_a_fresh_interpreter():
    """No import cycle: each name can be the first thing imported from codur."""
    for name in ("delegate_node", "execute_node", "review_node", "AgentExecutor", "repair_node", "patch_node"):
        proc = subprocess.run([sys.executable, "-c", f"from codur.graph.execution import {name}; print({name})"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, f"{name}: {proc.stderr[-800:]}"


def test_an_unknown_name_is_an_attribute_error():
    import codur.graph.execution as execution

    try:
        execution.no_such_node  # noqa: B018
    except AttributeError as exc:
        assert "no_such_node" in str(exc)
    else:
        raise AssertionError("no AttributeError")
