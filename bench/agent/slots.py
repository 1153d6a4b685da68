"""Do the embedded server's parallel slots raise model patch samples per minute?

Starts the embedded model with ``--slots 1`` (samples drawn one after another) or
``--slots 2`` (two samples streamed at once, llama.cpp ``n_parallel=2`` with a shared
prompt prefix), draws ``--samples`` whole-function samples of one prompt at
temperature 0.8 with distinct seeds, and prints samples per minute and completion
tokens per second. Run each setting on an idle machine:

    .venv/bin/python bench/agent/slots.py --slots 1
    .venv/bin/python bench/agent/slots.py --slots 2
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codur.config import CodurConfig
from codur.config_tables import LocalModelSettings
from codur.llm.factory import ConfigModelProvider
from codur.patch.prompt import PromptParts
from codur.patch.splice import function_at

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "paginate" / "pages.py"
FAILURES = ("test_pages.py::test_second_page FAILED\n    assert get_page(list(range(1, 10)), 2, 3) == [4, 5, 6]\n"
            "E   AssertionError: assert [7, 8, 9] == [4, 5, 6]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--slots", type=int, default=1)
    ap.add_argument("--samples", type=int, default=8)
    args = ap.parse_args()
    n_ctx = 8192 * args.slots
    config = CodurConfig(local=LocalModelSettings(parallel=args.slots, n_ctx=n_ctx))
    model = ConfigModelProvider(config).models_for("actor")[0]
    text = SOURCE.read_text()
    span = function_at(text, text.splitlines().index("    start = number * page_size") + 1, "pages.py")
    messages = PromptParts([span], text, FAILURES).messages("plain")
    model.invoke(messages, max_tokens=1)  # the prompt in the cache, as after a first sample

    def one(seed: int) -> int:
        reply = model.invoke(messages, temperature=0.8, seed=seed)
        return (reply.usage_metadata or {}).get("output_tokens", 0)

    start = time.monotonic()
    with ThreadPoolExecutor(args.slots) as pool:
        tokens = sum(pool.map(one, range(args.samples)))
    seconds = time.monotonic() - start
    print(f"slots={args.slots}: {args.samples} samples in {seconds:.1f}s = {60 * args.samples / seconds:.1f} "
          f"samples/min, {tokens / seconds:.1f} completion tokens/s")


if __name__ == "__main__":
    main()
