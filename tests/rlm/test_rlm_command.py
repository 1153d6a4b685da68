"""`codur rlm QUESTION --context PATH|-` with the scripted model."""

import pytest
import typer
from typer.testing import CliRunner

from codur.commands import rlm as command
from codur.llm import ScriptedChatModel
from codur.llm.local import LocalModelUnavailable


@pytest.fixture
def app():
    cli = typer.Typer()
    cli.command()(command.rlm_command)
    return cli


def use_model(monkeypatch, replies, *, window=256):
    """The scripted model as the configured one; ``window`` (tokens, None: the configured model's): 256
    leaves no room for the 512-token answer, so every input runs the REPL."""
    model = ScriptedChatModel(replies=replies)
    monkeypatch.setattr(command, "build_model", lambda **flags: (model, {}))
    if window is not None:
        monkeypatch.setattr(command, "window_tokens", lambda **flags: (window, 512))
    return model


def test_a_short_input_is_answered_in_one_call_and_the_trace_says_so(app, monkeypatch, tmp_path):
    """Issue 40, item 4: an input that fits the configured model's window (the embedded one's n_ctx)
    goes to the model directly; a long one runs the REPL."""
    model = use_model(monkeypatch, ["It is 48213."], window=None)
    assert command.window_tokens()[0] == 8192  # the embedded model: n_ctx 8192, one slot
    ctx = tmp_path / "log.txt"
    ctx.write_text("noise " * 100 + "needle 48213")
    result = CliRunner().invoke(app, ["What is the needle?", "--context", str(ctx), "--trace",
                                      "--run-dir", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "It is 48213." and "path=direct source=final_direct" in result.stdout
    assert len(model.calls) == 1 and "needle 48213" in str(model.calls[0][0].content)
    model = use_model(monkeypatch, ["```repl\nprint(context.split()[-1])\n```", "FINAL(48213)"], window=None)
    ctx.write_text("noise " * 8000 + "needle 48213")  # ~16,000 tokens: past the window
    result = CliRunner().invoke(app, ["What is the needle?", "--context", str(ctx), "--trace",
                                      "--run-dir", str(tmp_path / "run")])
    assert result.stdout.splitlines()[0] == "48213" and "path=repl" in result.stdout


def test_answers_from_a_file_and_prints_the_trace_tree(app, monkeypatch, tmp_path):
    use_model(monkeypatch, ["```repl\nprint(context.split()[-1])\n```", "FINAL(48213)"])
    ctx = tmp_path / "log.txt"
    ctx.write_text("noise " * 1000 + "needle 48213")
    result = CliRunner().invoke(app, ["What is the needle?", "--context", str(ctx), "--trace",
                                      "--run-dir", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "48213"
    assert "iteration 1: 1 block(s)" in result.stdout and "source=final_direct" in result.stdout
    traces = list((tmp_path / "run" / "rlm").glob("rlm-*.json"))
    assert len(traces) == 1 and f"trace: {traces[0]}" in result.stderr


def test_a_run_is_listed_with_one_id_its_question_answer_tokens_and_time(app, monkeypatch, tmp_path):
    from codur.history.runs import list_runs

    use_model(monkeypatch, ["```repl\nprint(context.split()[-1])\n```", "FINAL(48213)"])
    (tmp_path / "log.txt").write_text("noise " * 100 + "needle 48213")
    monkeypatch.chdir(tmp_path)  # the default run folder: .codur/runs/<id> of the current folder
    result = CliRunner().invoke(app, ["What is the needle?", "--context", "log.txt"])
    assert result.exit_code == 0, result.output
    [run] = list_runs(tmp_path)
    assert (run.status, run.task, run.answer) == ("success", "What is the needle?", "48213")
    assert run.tokens and run.tokens > 0 and run.seconds is not None
    assert [p.name for p in (run.run_dir / "rlm").iterdir()] == [f"{run.run_id}.json"]  # one id


def test_reads_the_context_from_stdin(app, monkeypatch, tmp_path):
    model = use_model(monkeypatch, ["```repl\nprint(len(context))\n```", "FINAL(5)"])
    result = CliRunner().invoke(app, ["How long?", "--context", "-", "--run-dir", str(tmp_path)], input="hello")
    assert result.exit_code == 0 and result.stdout.strip() == "5"
    assert "5 characters" in model.calls[0][0].content


def test_budget_options_reach_the_engine(app, monkeypatch, tmp_path):
    use_model(monkeypatch, ["```repl\nx = 1\n```", "guess 3"])
    ctx = tmp_path / "c.txt"
    ctx.write_text("abc")
    result = CliRunner().invoke(app, ["q?", "--context", str(ctx), "--max-iterations", "1",
                                      "--run-dir", str(tmp_path)])
    assert result.exit_code == 0 and result.stdout.strip() == "guess 3"
    assert "warning: Budget exhausted, answer was forced" in result.stderr


@pytest.mark.parametrize("argv, message", [
    (["What?", "--context", "/no/such/file.txt"], "no such file: /no/such/file.txt"),
    (["  ", "--context", "-"], "the question is empty"),
])
def test_bad_input_is_one_line_and_exit_2(app, monkeypatch, argv, message):
    use_model(monkeypatch, [])
    result = CliRunner().invoke(app, argv, input="text")
    assert result.exit_code == 2
    assert result.stderr.strip() == f"codur rlm: {message}"


def test_directory_and_empty_context_are_bad_input(app, monkeypatch, tmp_path):
    use_model(monkeypatch, [])
    assert CliRunner().invoke(app, ["q", "--context", str(tmp_path)]).exit_code == 2
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    result = CliRunner().invoke(app, ["q", "--context", str(empty)])
    assert result.exit_code == 2 and "the context is empty" in result.stderr


def test_no_model_is_exit_2_and_a_failed_run_exit_1(app, monkeypatch, tmp_path):
    def unavailable(**flags):
        raise LocalModelUnavailable("the embedded model needs package xllamacpp")

    monkeypatch.setattr(command, "build_model", unavailable)
    result = CliRunner().invoke(app, ["q", "--context", "-"], input="x")
    assert result.exit_code == 2 and "xllamacpp" in result.stderr
    use_model(monkeypatch, [ConnectionError("endpoint down")])
    result = CliRunner().invoke(app, ["q", "--context", "-", "--run-dir", str(tmp_path)], input="x")
    assert result.exit_code == 1 and "the run failed: ConnectionError: endpoint down" in result.stderr


def test_vote_and_answer_check_flags(app, monkeypatch, tmp_path):
    yes = '{"supported": true, "answer": "7", "reason": "printed"}'
    seven, eight = (f"```repl\nn = {v}\nprint(n)\n```\nFINAL_VAR(n)" for v in (7, 8))
    model = use_model(monkeypatch, [seven, yes, eight, yes, seven, yes])
    result = CliRunner().invoke(app, ["Which number?", "--context", "-", "--vote", "3", "--check-answers",
                                      "--run-dir", str(tmp_path)], input="seven")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "7" and "self-consistency vote over 3" in result.stderr
    assert [kw.get("temperature") for kw in model.call_kwargs] == [0.0, 0.0, 0.7, 0.7, 1.0, 1.0]
    assert [kw["response_format"]["json_schema"]["name"] for kw in model.call_kwargs[1::2]] == ["answer_check"] * 3


def _greenhouse_export(seed=7):
    """Two tab-separated tables of our own: sensors, then readings (each reading names its sensor)."""
    import random

    rng = random.Random(seed)
    sensors = [(f"S-{n}", rng.choice(("Vexa", "Hortiq", "Agrol")), f"G{n % 4 + 1}") for n in range(10, 30)]
    lines = ["sensor_id\tvendor\tgreenhouse", *("\t".join(s) for s in sensors), ""]
    lines.append("reading_id\tsensor_id\tgreenhouse\tstatus\twater_ml")
    readings = []
    for n in range(1000, 1300):
        sensor = rng.choice(sensors)
        status = "alarm" if rng.random() < (0.4 if sensor[2] == "G3" else 0.1) else "ok"
        readings.append((f"R-{n}", sensor[0], sensor[2], status, rng.randint(50, 900)))
        lines.append("\t".join(map(str, readings[-1])))
    return "\n".join(lines) + "\n", sensors, readings


def test_counts_sums_group_bys_and_joins_through_records(app, monkeypatch, tmp_path):
    """Issue 54: a scripted model answers through records(context), each aggregate checked by a second
    program written without records (the evidence rule), each answer handed in as the value alone."""
    text, sensors, readings = _greenhouse_export()
    ctx = tmp_path / "export.tsv"
    ctx.write_text(text)
    alarms_g2 = sum(1 for r in readings if r[2] == "G2" and r[3] == "alarm")
    water_g3 = sum(r[4] for r in readings if r[2] == "G3")
    by_house = {h: sum(1 for r in readings if r[2] == h and r[3] == "alarm") for h in ("G1", "G2", "G3", "G4")}
    vendor = {s[0]: s[1] for s in sensors}[readings[43][1]]

    def ask(question, replies):
        model = use_model(monkeypatch, replies)
        result = CliRunner().invoke(app, [question, "--context", str(ctx), "--run-dir", str(tmp_path / "run")])
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()[0], model

    count = ("```repl\nrecs = records(context)\nanswer = recs.where(greenhouse='G2', status='alarm').count()\n"
             "print(answer)\n```\nFINAL_VAR(answer)")
    regex = ("```repl\nimport re\nhits = re.findall(r'(?m)^R-\\d+\\tS-\\d+\\tG2\\talarm\\t', context)\n"
             "print(hits[:3])\nsecond = len(hits)\nprint(second)\n```\nFINAL_VAR(second)")
    answer, model = ask("How many readings of greenhouse G2 have the status alarm? Answer with the number.",
                        [count, regex])
    assert answer == str(alarms_g2) and len(model.calls) == 2
    first_turn = str(model.calls[0][1].content)
    assert "records(context) reads it as <320 records (table 320)" in first_turn and "vendor: 20 records" in first_turn
    assert "second program" in str(model.calls[1][-1].content)

    total = ("```repl\nrecs = records(context)\nanswer = recs.where(greenhouse='G3').sum('water_ml')\n"
             "print(answer)\n```\nFINAL_VAR(answer)")
    split = ("```repl\nsecond = float(sum(int(l.split('\\t')[4]) for l in context.splitlines()\n"
             "             if l.startswith('R-') and l.split('\\t')[2] == 'G3'))\nprint(second)\n```\n"
             "FINAL_VAR(second)")
    answer, _ = ask("What is the total water_ml of greenhouse G3? Answer with the number only.", [total, split])
    assert answer == str(water_g3)  # the second program's N.0 handed in as N

    group = ("```repl\nrecs = records(context)\nanswer = recs.where(status='alarm').group_count('greenhouse')"
             ".most_common(1)[0][0]\nprint(answer)\n```\nFINAL_VAR(answer)")
    tally = ("```repl\nfrom collections import Counter\nc = Counter(l.split('\\t')[2] for l in context.splitlines() "
             "if '\\talarm\\t' in l)\nprint(c)\nsecond = c.most_common(1)[0][0]\n```\nFINAL_VAR(second)")
    answer, _ = ask("Which greenhouse has the most readings with the status alarm? Answer with the greenhouse only.",
                    [group, tally])
    assert answer == max(by_house, key=by_house.get) == "G3"

    join = ("```repl\nrecs = records(context)\nrow = recs.join('sensor_id').where(reading_id='R-1043').first()\n"
            "print(row)\nanswer = row['vendor']\n```\nFINAL_VAR(answer)")
    answer, model = ask("Reading R-1043 came from a sensor. Which vendor made that sensor? Answer with the vendor.",
                        [join])
    assert answer == vendor and len(model.calls) == 1
