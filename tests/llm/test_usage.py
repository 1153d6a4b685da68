"""The usage ledger records every model call's tokens, priced per profile (USD per 1M tokens),
and splits the run's time by one rule."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from codur.core.usage import UsageLedger
from codur.llm import ScriptedChatModel
from codur.llm.factory import record_in, with_ledger
from codur.llm.usage import call_usage, ledger_callback


def test_ledger_prices_each_call():
    ledger = UsageLedger()
    reply = AIMessage(content="ok", usage_metadata={"input_tokens": 1000, "output_tokens": 200, "total_tokens": 1200})
    model = ScriptedChatModel(replies=[reply, reply], callbacks=[ledger_callback(ledger, (3.0, 15.0))])
    model.invoke("a")
    model.invoke("b")
    u = ledger.usage
    assert (u.calls, u.input_tokens, u.output_tokens, u.total_tokens) == (2, 2000, 400, 2400)
    assert abs(u.cost_usd - 2 * (1000 * 3.0 + 200 * 15.0) / 1e6) < 1e-12
    assert ledger.usage_figures()["llm_calls"] == 2 and ledger.cost_usd == u.cost_usd


def test_local_model_costs_nothing():
    ledger = UsageLedger()
    model = ScriptedChatModel(replies=["hello there"], callbacks=[ledger_callback(ledger)])
    model.invoke("hi")
    assert ledger.usage.calls == 1 and ledger.total_tokens > 0 and ledger.cost_usd == 0.0


def test_call_usage_computes_cost_in_usd():
    u = call_usage({"input_tokens": 1_000_000, "output_tokens": 100_000}, (2.5, 10.0), 2.0)
    assert u.cost_usd == pytest.approx(2.5 + 1.0)
    assert u.calls == 1 and u.model_s == 2.0
    assert call_usage({"input_tokens": 5000, "output_tokens": 500}, None).cost_usd == 0
    assert call_usage(None, (1.0, 1.0)).total_tokens == 0


def test_a_provider_without_a_ledger_gets_one_and_a_model_records_in_one_ledger():
    class Custom:
        def __init__(self):
            self.model = ScriptedChatModel(replies=["a", "b"])

        def models_for(self, role):
            return [self.model]

    custom = Custom()
    provider = with_ledger(custom)
    provider.models_for("actor")[0].invoke("x")
    provider.models_for("actor")[0].invoke("y")
    assert provider.ledger.usage.calls == 2
    other = UsageLedger()
    record_in(provider.models_for("actor")[0], other)
    assert [getattr(c, "ledger", None) for c in custom.model.callbacks] == [other]


def test_a_stream_closed_by_its_reader_is_recorded_with_estimated_tokens():
    """A patch sample stops reading once its block is complete: the call still counts."""
    from langchain_core.language_models import GenericFakeChatModel

    ledger = UsageLedger()
    model = GenericFakeChatModel(messages=iter([AIMessage(content="def f():\n    return 1\n" + "x " * 200)]),
                                 callbacks=[ledger_callback(ledger, (1.0, 2.0))])
    stream = model.stream("p" * 400)
    text = next(stream).content
    stream.close()
    u = ledger.usage
    assert u.calls == 1 and u.input_tokens == 101 and u.output_tokens == len(text) // 4 + 1
    assert u.cost_usd == pytest.approx((101 * 1.0 + u.output_tokens * 2.0) / 1e6)
