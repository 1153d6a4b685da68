"""The RLM executor: the REPL loop of a recursive language model.

After Zhang, Kraska & Khattab, "Recursive Language Models" (2025): the long input lives
in the REPL variable ``context``; each iteration the model writes code, the code
runs in the sandbox (and may call models on pieces of the input through the
bridge), and the printed output — truncated — comes back in the next turn, until
the model writes FINAL(answer) / FINAL_VAR(name) or the budget runs out.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from codur.core.usage import Usage
from codur.rlm import prompts, provenance, slots, view
from codur.rlm.alone import answer_alone
from codur.rlm.answers import evidence_of, extract_answer, forced_answer
from codur.rlm.bridge import Bridge, ModelClient
from codur.rlm.budget import Budget
from codur.rlm.config import RLMConfig
from codur.rlm.evidence import is_aggregate
from codur.rlm.finals import FinalJudge, Finished
from codur.rlm.helpers import FINAL_NAME, truncate
from codur.rlm.notes import only_longer, quoted_lines, whole_name
from codur.rlm.parser import FinalAnswer, parse_response, without_final
from codur.rlm.sandbox import Sandbox
from codur.rlm.trace import AnswerSource, Iteration, RLMTrace
from codur.rlm.trajectory import Trajectory
from codur.rlm.vote import remaining, tally, vote_key

FORCED_WARNING = "Budget exhausted, answer was forced"


@dataclass(frozen=True)
class RLMResult:
    """The answer, how it was reached, the trace, and where the trace was written (or None);
    ``votes``: every trajectory's answer of :meth:`RLMEngine.run_voted`, in order (empty for one run)."""

    answer: str | None
    answer_source: AnswerSource
    trace: RLMTrace
    trace_path: Path | None = None
    votes: tuple[str | None, ...] = ()


def model_name_of(model: Any) -> str:
    """The name a chat model reports (``model_name`` or ``model``), for pricing."""
    return str(getattr(model, "model_name", None) or getattr(model, "model", None) or "unknown")


class RLMEngine:
    """Runs recursive language model executions with one chat model.

    Args:
        model: a LangChain chat model (``.invoke(messages)`` → AIMessage with usage_metadata).
        config: :class:`RLMConfig`.
        prices: {model name prefix: (USD per Mtok in, USD per Mtok out)} over the built-in table.
        run_dir: the run's folder; the root trace is written under ``run_dir/rlm/``.
        masked, replaced: a repo's files its code reads as empty, and cleaned copies (see :class:`Sandbox`).
    """

    def __init__(self, model: Any, config: RLMConfig | None = None, *,
                 prices: Mapping[str, tuple[float, float]] | None = None, run_dir: Path | None = None,
                 masked: tuple[Path, ...] = (), replaced: tuple[tuple[Path, Path], ...] = ()) -> None:
        self.config = config or RLMConfig()
        self.masked, self.replaced, self.run_dir = masked, replaced, run_dir
        self.client = ModelClient(model, model_name_of(model), dict(prices or {}))
        self.measured = Usage()  # this model's calls in earlier runs: the prompt's time and cost estimates

    def run(self, question: str, context: Any) -> RLMResult:
        """Answer ``question`` over ``context`` (a str, or a JSON-serialisable list/dict).

        Never raises for model or sandbox failures: they end the run with
        answer_source ``error`` and the reason in ``trace.error``.
        """
        trace = self.execute(question, context, Budget(self.config.budget_limits()))
        self.measured = self.measured + trace.usage
        path = trace.save(self.run_dir) if self.run_dir is not None else None
        return RLMResult(trace.answer, trace.answer_source or "error", trace, path)

    def run_voted(self, question: str, context: Any, *, k: int = 3,
                  temperatures: tuple[float, ...] = (0.0, 0.7, 1.0)) -> RLMResult:
        """Up to ``k`` runs at different temperatures and a majority vote on their answers
        (self-consistency, Wang et al. 2023, "Self-Consistency Improves Chain of Thought Reasoning
        in Language Models"), within one budget.

        Trajectory ``i`` runs at ``temperatures[i % len(temperatures)]`` with what the config's
        cost (USD), tokens and wall time (seconds) have left after the earlier ones; none starts
        once one is spent, and none after an answer holds a majority of ``k``. Answers are compared
        by :func:`vote_key`; the most voted wins (a tie: the earliest), errors and empty answers do
        not vote.

        Returns:
            The :class:`RLMResult` of the first trajectory with the winning answer (the last one
            when none answered), with ``votes``: every trajectory's answer in order.

        Raises:
            ValueError: ``k`` < 1 or no temperature.
        """
        if k < 1 or not temperatures:
            raise ValueError("run_voted needs k >= 1 and at least one temperature")
        limits, t0, used, base = self.config.budget_limits(), time.monotonic(), Usage(), self.client
        runs: list[tuple[RLMTrace, Path | None]] = []
        try:
            for i in range(k):
                left = remaining(limits, used, time.monotonic() - t0)
                if left is None:
                    break
                temperature = temperatures[i % len(temperatures)]
                self.client = replace(base, options={**base.options, "temperature": temperature})
                trace = self.execute(question, context, Budget(left))
                used = used + trace.usage
                runs.append((trace, trace.save(self.run_dir) if self.run_dir is not None else None))
                votes = tally(runs)
                if votes and votes.most_common(1)[0][1] * 2 > k:  # a majority of k: the rest cannot change it
                    break
        finally:
            self.client = base
        self.measured = self.measured + used
        counts = tally(runs)
        keys = [vote_key(t.answer) for t, _ in runs]
        winner = max(counts, key=lambda key: (counts[key], -keys.index(key)), default=None)
        trace, path = runs[keys.index(winner)] if winner is not None else runs[-1]
        if len(runs) > 1:
            trace.warn(f"self-consistency vote over {len(runs)} trajectories: {counts.get(winner, 0)} for this answer")
            path = trace.save(self.run_dir) if self.run_dir is not None else None  # again, with the vote
        return RLMResult(trace.answer, trace.answer_source or "error", trace, path, tuple(t.answer for t, _ in runs))

    def execute(self, question: str, context: Any, budget: Budget, parent_id: str | None = None) -> RLMTrace:
        """Run one executor (root or sub-RLM) under ``budget`` and return its finished trace."""
        trace = RLMTrace(task=question, depth=budget.depth, parent_id=parent_id)
        if self.client.usd_per_mtok() is None:
            trace.warn(f"no price known for model {self.client.name!r}: its cost is counted as 0 USD")
        t0 = time.monotonic()
        bridge = Bridge(client=self.client, budget=budget, trace=trace,
                        spawn=lambda task, ctx, child: self.execute(task, ctx, child, trace.id),
                        sub_max_iterations=self.config.sub_max_iterations, rlm_share=self.config.rlm_share,
                        batch_share=self.config.batch_share, sub_call_chars=self.config.sub_call_chars)
        try:
            if parent_id is None and self.fits_context(question, context):
                answer, source = self._direct(question, context, budget, trace)
            else:
                with Sandbox(context, bridge=bridge, limits=self.config.sandbox_limits(), masked=self.masked,
                             replaced=self.replaced) as sandbox:
                    answer, source = self._loop(Trajectory(context, sandbox, budget, trace))
        except Exception as exc:  # noqa: BLE001 - a failed run is a trace with answer_source error
            answer, source = None, "error"
            trace.error = f"{type(exc).__name__}: {exc}"
        if parent_id is None and self.config.answer_alone and (alone := answer_alone(question, answer)) != answer:
            trace.warn(f"the answer alone: {answer!r} handed in as {alone!r}")  # issue 54, item 4
            answer = alone
        trace.answer, trace.answer_source = answer, source
        trace.usage, trace.budget = budget.spent, budget.snapshot()
        trace.duration_s = time.monotonic() - t0
        return trace

    def fits_context(self, question: str, context: Any) -> bool:
        """True when ``context`` (a str) fits the model's window whole with room for the answer: the
        direct path (issue 40, item 4). Its tokens are estimated at
        :data:`codur.rlm.estimate.DIRECT_CHARS_PER_TOKEN` characters each (dense logs and JSON run ~3, prose ~4);
        the prompt's own words, the question and ``direct_answer_tokens`` must fit beside it in
        ``context_window_tokens`` (None: never direct)."""
        window = self.config.context_window_tokens
        if window is None or not isinstance(context, str):
            return False
        need = prompts.direct_tokens(question, context) + self.config.direct_answer_tokens
        return need <= window

    def _direct(self, question: str, context: str, budget: Budget, trace: RLMTrace) -> tuple[str, AnswerSource]:
        """The whole input and the question in one call: a short input needs no REPL, and a small
        model loses accuracy in one (issue 40, item 4). ``trace.path`` is ``direct``; the answer
        is the reply's ``FINAL(...)`` when it writes one, else the reply itself (answer_source
        ``final_direct``)."""
        trace.path = "direct"
        budget.start_iteration()
        text, usage = self.client.invoke([HumanMessage(prompts.direct_answer_prompt(question, context))])
        budget.record(usage)
        parsed = parse_response(text)
        iteration = Iteration(index=1, response=text, thinking=parsed.thinking, usage=usage,
                              notes=[f"direct: the input ({len(context):,} chars) fits the model's window"])
        answer = parsed.final.value if parsed.final is not None and parsed.final.kind == "direct" else text.strip()
        iteration.final = {"kind": "direct", "value": answer, "accepted": True}
        trace.iterations.append(iteration)
        return answer, "final_direct"

    def _system(self, budget: Budget, info: Mapping[str, Any]) -> SystemMessage:
        """The system prompt with the budget and the estimates as the run starts. It is built once:
        the server's prompt cache holds a conversation whose start does not change, so each call
        reads only the turns added since the last (a prompt rebuilt with the budget left made the
        embedded model read the whole conversation again at every iteration). The budget left and
        the time per call measured from this run's first call on are in each later user turn."""
        return SystemMessage(prompts.system_prompt(
            budget, context_type=info.get("context_type", "str"), context_len=info.get("context_len", 0),
            estimate=self._estimate(budget), sub_chars=self.config.sub_call_chars,
            output_chars=self.config.output_chars, sub_iterations=self.config.sub_max_iterations))

    def _estimate(self, budget: Budget) -> prompts.CallEstimate:
        """One model call's estimated seconds and cost, measured so far."""
        return prompts.CallEstimate.from_budget(budget, measured=self.measured, usd_per_mtok=self.client.usd_per_mtok(),
                                                prompt_chars=self.config.sub_call_chars)

    def _loop(self, run: Trajectory) -> tuple[str, AnswerSource]:
        question, context, budget, trace = run.question, run.context, run.budget, run.trace
        info = run.sandbox.context_info
        preview = view.preview(context, self.config.preview_chars)
        # issue 54: the text as records, the first block queries it, unless the question's ids are in free text
        if as_records := bool(table := view.records_summary(context)) and slots.names_in_fields(question, context):
            preview = f"{preview}\n\n{table}\nThe question's words among the records' values: " \
                      f"{slots.value_links(question, context)}."  # value linking: where(field=value) to copy
        if found := provenance.key_lines(question, context):
            trace.retrieved = found
            preview = f"{preview}\n\nWhat a search of the whole text finds of the question's names:\n{found}"
        messages: list[BaseMessage] = [self._system(budget, info), HumanMessage(
            prompts.first_turn(question, preview, as_records=as_records))]
        try:
            while (reason := budget.check("iteration")) is None:
                budget.start_iteration()
                iteration = self._step(messages, run)
                premature = bool(iteration.final and iteration.final.get("premature"))
                shown = (iteration.final or {}).get("shown")  # a FINAL_VAR of several items, shown as an output
                outputs = self._outputs(iteration) + (truncate(shown, self.config.output_chars) + "\n" if shown else "")
                last = next((e for e in reversed(iteration.executions) if e.stdout.strip()), None)
                hint = "" if last is None or last.error else prompts.answer_hint(question, last.stdout, context)
                if searched := _search_hint(iteration, question, context):  # what the code's searches found
                    hint = searched
                # a FINAL written before the output existed is never shown back (issue 26, item 1)
                messages.append(AIMessage(without_final(iteration.response) if premature else iteration.response))
                # no FINAL, but the output holds the line naming the question's name among look-alikes, or
                # the model repeated a block whose output is a value of the kind asked (a count), or it printed only
                # look-alikes of a name the text lacks: ask too
                unanswered = bool(searched) or iteration.final is None and last is not None and not last.error \
                    and bool(provenance.whole_name_lines(question, last.stdout) or iteration.repeated and hint
                             or provenance.look_alikes_only(question, last.stdout, context)[0])
                if (premature and view.readable(iteration, shown) or unanswered) and budget.check("call") is None:
                    asked = [*messages, HumanMessage(prompts.answer_turn(question, outputs, hint))]
                    answer = extract_answer(self.client, asked, run, iteration, "after_output")
                    if answer is None or not prompts.fits_question(question, answer, context):  # a whole line
                        iteration.notes.append("the output above does not hold the answer yet")
                        hint = ""
                    else:
                        FinalJudge(self.config, self.client).accept(answer, "extracted", iteration, run,
                                                                    last_chance=False)
                if stuck := _stuck(iteration):  # a fresh conversation: the evidence, not the replies to copy
                    iteration.notes.append(f"conversation restarted: {stuck}")
                    messages[1:] = [HumanMessage(prompts.restart_turn(
                        question, preview, evidence_of(trace, self.config.check_chars, notes=True), stuck))]
                    continue
                messages.append(HumanMessage(prompts.next_turn(question, outputs, iteration.notes, budget, hint,
                                                               call_cost=self._estimate(budget).describe(1))))
                view.elide_old_outputs(messages, self.config.history_chars)
        except Finished as done:
            return done.answer, done.source
        return self._forced(reason, run)

    def _step(self, messages: list[BaseMessage], run: Trajectory) -> Iteration:
        """One iteration of ``run``: call the model, run every block in order, then honour a FINAL."""
        budget, trace = run.budget, run.trace
        t0 = time.monotonic()
        client = self.client
        if trace.iterations and trace.iterations[-1].repeated:  # break the loop: sample, once
            warmer = max(self.config.repeat_temperature, float(client.options.get("temperature") or 0.0))
            client = replace(client, options={**client.options, "temperature": warmer})
        text, usage = client.invoke(messages)
        budget.record(usage)
        parsed = parse_response(text)
        iteration = Iteration(index=budget.iterations, response=text, thinking=parsed.thinking, usage=usage)
        if any(previous.response.strip() == text.strip() for previous in trace.iterations):
            iteration.repeated = True
            iteration.notes.append("you repeated an earlier reply word for word: write different code")
        trace.iterations.append(iteration)
        for code in parsed.code_blocks:
            iteration.executions.append(run.sandbox.execute(code))
        iteration.duration_s = time.monotonic() - t0
        judge = FinalJudge(self.config, self.client)
        if any(e.submitted for e in iteration.executions):
            # FINAL / FINAL_VAR called in code (a small model's commonest way): its value came from
            # the run, so it is judged as a FINAL_VAR of the variable it was left in; a FINAL
            # written outside the code, before the output existed, is not taken over it
            judge.finish(FinalAnswer("variable", FINAL_NAME), iteration, run)
        elif parsed.final is not None:
            judge.finish(parsed.final, iteration, run)
        elif not parsed.code_blocks:
            iteration.notes.append("your reply had no ```repl block and no FINAL(...): write one of them")
        return iteration

    def _outputs(self, iteration: Iteration) -> str:
        return view.render_turn(iteration.executions, self.config.output_chars)

    def _forced(self, reason: str, run: Trajectory) -> tuple[str, AnswerSource]:
        """``run``'s budget exhausted (``reason``) without FINAL: for an aggregate a program already
        answered, that program's answer (:meth:`codur.rlm.aggregates.SecondProgram.standing`); else
        :func:`codur.rlm.answers.forced_answer` from the run's printed outputs and notes and the first
        turn's search of the whole text for the question's names (no code runs, no conversation)."""
        trace = run.trace
        trace.warn(FORCED_WARNING)
        iteration = Iteration(index=run.budget.iterations + 1, notes=[f"forced: {reason}"])
        trace.iterations.append(iteration)
        if self.config.check_evidence and self.config.second_program and is_aggregate(run.question) \
                and (standing := trace.second_program.standing(run.question, vote_key)) is not None:
            iteration.notes.append(f"the answer a program computed stands, unchecked by a second one: {standing}")
            return standing, "forced"
        found = truncate(trace.retrieved, self.config.check_chars // 2) if trace.retrieved else ""
        evidence = evidence_of(trace, self.config.check_chars - len(found), notes=True)
        if found:  # what the first turn showed: the model read it too (the logs join: W-84 on its hop line)
            evidence = f"[first turn: a search of the whole text for the question's names]\n{found}\n{evidence}"
        answer, replaced = forced_answer(self.client, run, reason, evidence, iteration)
        if replaced:
            trace.warn(replaced)
        iteration.response = iteration.extraction["response"] if iteration.extraction else ""
        iteration.thinking = parse_response(iteration.response).thinking
        return answer or "", "forced"


def _search_hint(iteration: Iteration, question: str, context: object) -> str:
    """The answer hint from what ``iteration``'s searches found, when its code ran without error and
    no FINAL was taken from it ("" otherwise): the lines naming a searched name whole that its notes
    quote (:func:`codur.rlm.notes.quoted_lines`: the search found the line the answer is on, and the
    code printed a look-alike's), or, for a name of the question its search found only inside longer
    names and no line of the whole text names whole, that it is not there. The answer is then asked
    at once; the 1.5B model otherwise went on to the iteration limit."""
    if any(e.error for e in iteration.executions) or iteration.final and iteration.final.get("accepted"):
        return ""
    notes = [note for e in iteration.executions for note in e.notes]
    if quoted := list(dict.fromkeys(quoted_lines(notes)))[:3]:
        return prompts.whole_name_hint(quoted)
    names = {name.lower() for name in provenance.key_names(question)}
    for name, alikes in only_longer(notes):
        if name.lower() in names and isinstance(context, str) and not whole_name(name).search(context):
            return prompts.absent_hint(name, alikes)
    return ""


def _stuck(iteration: Iteration) -> str:
    """Why the conversation should start afresh after ``iteration`` ("" when it should not): the
    reply repeated an earlier one word for word, or held neither code nor a FINAL. A small model
    copies its own earlier replies from the history; a restart shows it the evidence instead."""
    if iteration.repeated:
        return "a reply repeated an earlier one word for word"
    if not iteration.executions and iteration.final is None:
        return "a reply held no ```repl block and no FINAL"
    return ""
