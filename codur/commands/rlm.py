"""``codur rlm QUESTION --context PATH|-``: a recursive language model over a long input.

Prints the answer on stdout; with ``--trace`` also the tree of iterations and
sub-calls. The trace JSON goes under ``--run-dir`` (default ``.codur/runs/<id>/rlm/``).
Exit codes: 0 answered; 1 the run failed (answer source ``error``); 2 bad input
or no model.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import typer

from codur.rlm.model import build_model, window_tokens


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"codur rlm: {message}", err=True)
    return typer.Exit(code)


def read_context(source: str) -> str:
    """The context text from a file path, or stdin for ``-``.

    Raises:
        ValueError: the file is missing, a directory, unreadable, or the text is empty.
    """
    if source == "-":
        text = sys.stdin.read()
    else:
        path = Path(source)
        if not path.exists():
            raise ValueError(f"no such file: {source}")
        if path.is_dir():
            raise ValueError(f"{source} is a directory; give a file (or use the ask_codebase tool for a repo)")
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ValueError(f"cannot read {source}: {exc.strerror}") from None
    if not text:
        raise ValueError("the context is empty")
    return text


def write_result(folder: Path, question: str, result: Any, seconds: float) -> Path:
    """Write ``<folder>/result.json`` for ``codur runs`` and ``codur show``: the folder's name as the
    run id, the question as the task, status ``success`` (an answer), ``failed`` (none) or ``error``,
    the answer, tokens, cost (USD), wall seconds and the trace's path. Returns the file's path.

    Raises:
        OSError: the folder cannot be written.
    """
    import json

    from codur.core.files import atomic_write_bytes

    usage = result.trace.usage
    status = "error" if result.answer_source == "error" else "success" if result.answer else "failed"
    body = {"run_id": folder.name, "task": question, "status": status,
            "reason": result.trace.error or f"answer: {result.answer_source}", "output_text": result.answer or "",
            "duration_s": round(seconds, 3), "tokens": usage.input_tokens + usage.output_tokens,
            "cost_usd": usage.cost_usd, "metadata": {"kind": "rlm", "trace_path": str(result.trace_path or ""),
                                                     "answer_source": result.answer_source}}
    path = folder / "result.json"
    atomic_write_bytes(path, json.dumps(body, indent=1, ensure_ascii=False).encode())
    return path


def rlm_command(
    question: str = typer.Argument(..., help="The question to answer about the context."),
    context: str = typer.Option(..., "--context", "-c", help="file path or - for stdin"),
    trace: bool = typer.Option(False, "--trace", help="Print the tree of iterations and sub-calls."),
    max_iterations: int = typer.Option(6, "--max-iterations", min=1, help="Model turns of the root loop."),
    max_depth: int = typer.Option(1, "--max-depth", min=0, help="Deepest sub-RLM level."),
    max_cost: float = typer.Option(1.0, "--max-cost", min=0, help="Spend limit, USD (the local model costs 0)."),
    max_tokens: int = typer.Option(200_000, "--max-tokens", min=1, help="Token limit, sub-calls included."),
    timeout: float = typer.Option(900.0, "--timeout", min=1, help="Wall-clock limit, seconds."),
    check_answers: bool = typer.Option(False, "--check-answers",
                                       help="One model call checks each FINAL against the printed outputs."),
    vote: int = typer.Option(1, "--vote", min=1, metavar="K",
                             help="K runs at temperatures 0, 0.7, 1.0 and a majority vote, within one budget."),
    run_dir: Path | None = typer.Option(  # noqa: B008 - Typer declares options this way
        None, "--run-dir", help="Where the trace goes (default .codur/runs/<id>)."),
    model: str | None = typer.Option(None, "--model", help="Model name at the endpoint (default: the one it serves)."),
    base_url: str | None = typer.Option(None, "--base-url", metavar="URL",
                                        help="OpenAI-compatible endpoint (default: the embedded model)."),
    api_key_env: str | None = typer.Option(None, "--api-key-env", metavar="VAR",
                                           help="Environment variable holding the API key."),
) -> None:
    """Answer a question over a long input with a recursive language model."""
    from codur.rlm.config import RLMConfig
    from codur.rlm.engine import RLMEngine

    if not question.strip():
        raise _fail("the question is empty")
    try:
        text = read_context(context)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    config = RLMConfig(max_iterations=max_iterations, max_depth=max_depth, max_cost_usd=max_cost,
                       max_tokens=max_tokens, max_wall_s=timeout, check_answers=check_answers)
    from codur.config import ConfigError
    from codur.llm.local import LocalModelUnavailable, stop_shared_server

    try:
        chat_model, prices = build_model(model=model, base_url=base_url, api_key_env=api_key_env)
        window, answer_tokens = window_tokens(model=model, base_url=base_url, api_key_env=api_key_env)
        config = config.model_copy(update={"context_window_tokens": window, "direct_answer_tokens": answer_tokens})
    except (LocalModelUnavailable, ConfigError) as exc:
        raise _fail(str(exc)) from None
    started = time.monotonic()
    try:
        engine = RLMEngine(chat_model, config, prices=prices)  # the trace is written below, once its id is known
        result = engine.run_voted(question, text, k=vote) if vote > 1 else engine.run(question, text)
    finally:
        stop_shared_server()
    folder = run_dir or Path(".codur") / "runs" / result.trace.id  # one id: the folder's is the trace's
    result = dataclasses.replace(result, trace_path=result.trace.save(folder))
    write_result(folder, question, result, time.monotonic() - started)
    if result.answer_source == "error":
        raise _fail(f"the run failed: {result.trace.error}", 1)
    typer.echo(result.answer)
    if trace:
        typer.echo("\n" + result.trace.render_tree())
    for warning in result.trace.warnings:
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(f"trace: {result.trace_path}", err=True)
