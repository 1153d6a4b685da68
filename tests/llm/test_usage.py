"""The usage meter counts every model call's tokens and prices them per profile (USD per 1M tokens)."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from codur.llm import ScriptedChatModel
from codur.llm.usage import UsageMeter


def test_meter_prices_each_call():
    meter = UsageMeter()
    reply = AIMessage(content="ok", usage_metadata={"input_tokens": 1000, "output_tokens": 200, "total_tokens": 1200})
    callback = meter.callback(usd_per_mtok_in=3.0, usd_per_mtok_out=15.0)
    model = ScriptedChatModel(replies=[reply, reply], callbacks=[callback])
    model.invoke("a")
    model.invoke("b")
    u = meter.usage
    assert (u.calls, u.input_tokens, u.output_tokens, u.total_tokens) == (2, 2000, 400, 2400)
    assert abs(u.cost_usd - 2 * (1000 * 3.0 + 200 * 15.0) / 1e6) < 1e-12


def test_local_model_costs_nothing():
    meter = UsageMeter()
    model = ScriptedChatModel(replies=["hello there"], callbacks=[meter.callback()])
    model.invoke("hi")
    assert meter.usage.calls == 1 and meter.usage.total_tokens > 0 and meter.usage.cost_usd == 0.0
