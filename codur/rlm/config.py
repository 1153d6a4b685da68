"""RLMConfig: the settings of an RLM run (iterations, depth, budget, sandbox limits, what the
model is shown, the answer check)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from codur.rlm.budget import BudgetLimits
from codur.rlm.sandbox import SandboxLimits


class RLMConfig(BaseModel):
    """Settings of an RLM run (the root executor; sub-RLMs inherit them)."""

    max_iterations: int = Field(6, ge=1, description="Model turns of the root REPL loop.")
    sub_max_iterations: int = Field(4, ge=1, description="Model turns of each sub-RLM.")
    max_depth: int = Field(1, ge=0, description="Deepest sub-RLM level (0: rlm_query answers directly).")
    max_cost_usd: float | None = Field(1.0, description="Spend limit, USD; None for none (local model: 0).")
    max_tokens: int | None = Field(200_000, description="Prompt + completion tokens, sub-calls included.")
    max_wall_s: float | None = Field(900.0, description="Wall-clock limit, seconds.")
    downgrade_threshold: float = Field(0.25, ge=0, le=1, description="rlm_query → llm_query below this fraction left.")
    max_parallel: int = Field(4, ge=1, description="Most concurrent sub-RLMs of one batch_rlm_query.")
    rlm_share: float = Field(0.5, gt=0, le=1, description="Fraction of the budget left one rlm_query child gets.")
    batch_share: float = Field(0.8, gt=0, le=1, description="Fraction of the budget left a batch shares.")
    block_timeout_s: float = Field(60.0, gt=0, description="Wall time per code block, seconds (bridge time excluded).")
    memory_mb: int = Field(1024, ge=64, description="Address-space limit of the sandbox worker, MiB.")
    cpu_s: int = Field(600, ge=1, description="CPU seconds of the sandbox worker over its life.")
    capture_chars: int = Field(20_000, ge=100, description="stdout/stderr kept per block in the trace, characters.")
    output_chars: int = Field(1_500, ge=100, description="Output per block shown to the model, characters.")
    sub_call_chars: int = Field(12_000, ge=100, description="Context chars a direct/downgraded answer sees.")
    history_chars: int = Field(24_000, ge=1_000, description="Older outputs are elided past this prompt size.")
    preview_chars: int = Field(300, ge=0, description="Characters of `context` shown in the first turn.")
    confirm_final_with_code: bool = Field(
        True, description="A direct FINAL written with code needs confirming after the output is shown "
                          "(False: honoured once that code ran without error).")
    repeat_temperature: float = Field(
        0.8, ge=0, le=2, description="Sampling temperature of the call after a reply that repeated an earlier one "
        "word for word (a small model's loop: the same code, the same empty output); the call after it goes back "
        "to the run's own.")
    check_answers: bool = Field(
        False, description="Before a FINAL is accepted, one short model call checks it against the printed "
                           "outputs; a 'not supported' returns to the loop with the reason.")
    max_check_refusals: int = Field(1, ge=0, description="Answers a run's checks may send back; later ones stand.")
    check_chars: int = Field(3_000, ge=200, description="Printed evidence the answer check sees, characters.")

    check_evidence: bool = Field(
        True, description="Judge an answer by the lines the run's code printed (codur.rlm.evidence): the value on a "
        "printed line naming the question's id or every hop of a join printed, 'not present' only after a search "
        "for the id that printed none; off: the whole-text look-alike and unconnected rules instead.")
    second_program: bool = Field(
        True, description="An aggregate answer (how many, total, most, distinct...) is taken when a second program "
                          "written differently agrees (needs check_evidence).")
    max_evidence_asks: int = Field(2, ge=0, description="Times per run each evidence check may send an answer back.")
    context_window_tokens: int | None = Field(
        None, ge=256, description="The model's context window, tokens: an input that fits it whole with "
        "direct_answer_tokens to spare is answered in one direct call (trace.path 'direct'); None: always the REPL "
        "(`codur rlm` and ask_codebase set it from the configured model: codur.rlm.model.window_tokens).")
    direct_answer_tokens: int = Field(512, ge=1, description="Room kept for the direct answer, tokens.")
    answer_alone: bool = Field(
        True, description="The root's answer reduced to the value asked (codur.rlm.alone: 'city=Tampere' -> "
        "'Tampere', '48 lines' -> '48'); ask_codebase keeps the model's words (an agent reads them).")

    def budget_limits(self) -> BudgetLimits:
        return BudgetLimits(self.max_cost_usd, self.max_tokens, self.max_iterations, self.max_depth,
                            self.max_wall_s, self.downgrade_threshold, self.max_parallel)

    def sandbox_limits(self) -> SandboxLimits:
        return SandboxLimits(timeout_s=self.block_timeout_s, memory_mb=self.memory_mb, cpu_s=self.cpu_s,
                             max_output_chars=self.capture_chars)
