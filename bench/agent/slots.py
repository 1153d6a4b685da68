"""Do the embedded server's parallel slots raise model patch samples per minute?

Starts the embedded model with ``--slots 1`` (samples drawn one after another) or
``--slots 2`` (two samples streamed at once, llama.cpp ``n_parallel=2`` with a shared
prompt prefix), draws ``--samples`` whole-function samples of one prompt at
temperature 0.8 with distinct seeds, and prints samples per minute and completion
tokens per second, and the peak memory (resident set) of the server's process. Run each
setting on an idle machine:

    .venv/bin/python bench/agent/slots.py --slots 1
    .venv/bin/python bench/agent/slots.py --slots 2
    .venv/bin/python bench/agent/slots.py --servers 2    # one server per worker, as N codur processes

``--servers N`` is what N ``codur`` processes do without ``codur batch``: N processes, each
with its own embedded server of one slot, drawing ``--samples / N`` samples at once; the
figures are the whole's (samples over the wall time, memory summed). ``--slots N`` is what
``codur batch --workers N`` does: one server, N slots, N samples in flight.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from codur.config import CodurConfig
from codur.config.tables import LocalModelSettings
from codur.llm.factory import ConfigModelProvider
from codur.patch.prompt import PromptParts
from codur.patch.splice import function_at

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "paginate" / "pages.py"
FAILURES = ("test_pages.py::test_second_page FAILED\n    assert get_page(list(range(1, 10)), 2, 3) == [4, 5, 6]\n"
            "E   AssertionError: assert [7, 8, 9] == [4, 5, 6]")


def peak_rss_mb() -> float:
    """This process's peak resident set, MiB (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def servers(n: int, samples: int) -> None:
    """``n`` processes, each its own server with one slot, ``samples / n`` samples each."""
    start = time.monotonic()
    procs = [subprocess.Popen([sys.executable, __file__, "--slots", "1", "--samples", str(samples // n), "--child"],
                              stdout=subprocess.PIPE, text=True) for _ in range(n)]
    outs = [p.communicate()[0].split() for p in procs]
    wall = time.monotonic() - start  # with each server's start-up, as separate codur runs pay it
    tokens, memory = sum(int(o[0]) for o in outs), sum(float(o[1]) for o in outs)
    seconds = max(float(o[2]) for o in outs)  # the sampling alone (the models up, the prompt cached)
    done = n * (samples // n)
    print(f"servers={n} (1 slot each): {done} samples in {seconds:.1f}s = {60 * done / seconds:.1f} samples/min, "
          f"{tokens / seconds:.1f} completion tokens/s (with the start-ups: {wall:.1f}s), "
          f"peak memory {memory:.0f} MiB in all")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--slots", type=int, default=1)
    ap.add_argument("--servers", type=int, default=0, help="N processes with a server each (one slot)")
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.servers:
        servers(args.servers, args.samples)
        return
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

    start = time.monotonic()  # the model is up and the prompt cached
    with ThreadPoolExecutor(args.slots) as pool:
        tokens = sum(pool.map(one, range(args.samples)))
    seconds = time.monotonic() - start
    if args.child:
        print(tokens, peak_rss_mb(), seconds)
        return
    print(f"slots={args.slots}: {args.samples} samples in {seconds:.1f}s = {60 * args.samples / seconds:.1f} "
          f"samples/min, {tokens / seconds:.1f} completion tokens/s, peak memory {peak_rss_mb():.0f} MiB")


if __name__ == "__main__":
    main()
