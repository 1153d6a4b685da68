"""records(text): formats read per block and line, typed fields, the query methods, and the REPL's
records() with its note on a filter that keeps nothing (issue 54). Inputs of our own."""

from datetime import datetime

import pytest

from codur.rlm.records import records, typed
from codur.rlm.sandbox import Sandbox, SandboxLimits
from codur.rlm.table import above, contains, one_of, startswith

KEY_VALUE = """\
2026-02-03T08:00:01Z INFO gateway started port=8080 region="eu north"
2026-02-03T08:00:02Z [error] auth-eu login failed user=kim attempts=3
2026-02-03 08:00:03 WARN auth-us slow request user=ola latency=1.25 bytes=5120
this line is prose and holds no field
2026-02-03T08:00:04Z ERROR auth-us login failed user=ola attempts=1
level=error service=billing msg='card declined' bytes=300
"""

JSON_LINES = """\
{"sku": "A-1", "shelf": "B2", "qty": 4, "price": 2.5}
{"sku": "A-2", "shelf": "B2", "qty": 10, "price": 1.0, "meta": {"color": "red"}}
{"sku": "A-3", "shelf": "C1", "qty": 0
{"sku": "A-4", "shelf": "C1", "qty": 7, "price": 3.25}
"""

JSON_ARRAY = '[{"flight": "QX12", "gate": "D4", "pax": 120}, {"flight": "QX13", "gate": "D7", "pax": 88}]'

TABLES = """\
station_id,city,opened
ST-1,Vaasa,2019-04-01
ST-2,Kotka,2020-09-15
ST-3,"Pori, west",2021-01-30

reading_id\tstation_id\ttemp_c\tnote
R-1\tST-1\t-3.5\tcold
R-2\tST-2\t1.0\t
R-3\tST-1\t-7.25\tcold, windy
R-4\tST-9
R-5\tST-3\t2.5\tok
"""


def test_key_value_lines_with_time_level_quotes_and_the_unparsed_line_kept():
    recs = records(KEY_VALUE)
    assert recs.count() == 5 and recs.unparsed == ["this line is prose and holds no field"]
    first = recs.first()
    assert first["time"] == datetime.fromisoformat("2026-02-03T08:00:01+00:00") and first["level"] == "INFO"
    assert first["port"] == 8080 and first["region"] == "eu north" and first["message"] == "gateway started"
    assert first.raw == KEY_VALUE.splitlines()[0] and first.line == 1 and first["missing"] is None
    assert recs.where(level="error").count() == 3  # [error], ERROR and level=error
    assert recs.where(level="ERROR", user="ola").first()["attempts"] == 1
    assert recs.where(message=startswith("auth-")).count() == 3
    assert recs.sum("bytes") == 5420 and recs.where(latency=above(1)).values("user") == ["ola"]
    assert recs.values("msg") == ["card declined"]
    assert recs.where(time="2026-02-03T08:00:03").first()["user"] == "ola"


def test_json_lines_and_a_json_array_flattened_with_a_malformed_line_unparsed():
    recs = records(JSON_LINES)
    assert recs.count() == 3 and len(recs.unparsed) == 1 and '"A-3"' in recs.unparsed[0]
    assert recs.sum("price") == 6.75 and recs.sum("qty") == 21
    assert recs.group_count("shelf").most_common(1) == [("B2", 2)]
    assert recs.where(**{"meta.color": "red"}).first()["sku"] == "A-2"
    array = records(JSON_ARRAY)
    assert array.count() == 2 and array.where(pax=above(100)).first()["gate"] == "D4"
    assert "json 2" in repr(array)


def test_two_tables_with_headers_typed_cells_a_join_and_a_short_row_unparsed():
    recs = records(TABLES)
    assert recs.count() == 7 and recs.unparsed == ["R-4\tST-9"]
    assert recs.where(station_id="ST-3").first()["city"] == "Pori, west"
    assert recs.first()["opened"] == "2019-04-01"  # a date alone stays text
    readings = recs.where(lambda r: r["reading_id"] is not None)
    assert readings.sum("temp_c") == -7.25 and readings.values("note") == ["cold", "", "cold, windy", "ok"]
    joined = recs.join("station_id")
    assert joined.where(reading_id="R-3").first()["city"] == "Vaasa"
    assert joined.where(reading_id="R-5").first()["city"] == "Pori, west"
    assert joined.group_count("city").most_common(1) == [("Vaasa", 2)]  # stations pair only with readings
    assert records(TABLES).join("reading_id", "station_id").count() == 0


def test_group_by_a_function_top_by_a_field_and_the_fields_summary():
    recs = records(KEY_VALUE)
    by_service = recs.where(level="ERROR").group_count(lambda r: r["message"].split()[0].split("-")[0])
    assert by_service.most_common(1) == [("auth", 2)]
    assert [r["user"] for r in recs.top(2, by="bytes")] == ["ola", None]
    assert recs.top(1).count() == 1 and recs.where(user=one_of("kim", "ola")).count() == 3
    assert recs.where(msg=contains("DECLINED")).count() == 1
    summary = recs.fields()
    assert summary["level"][0] == 5 and "level: 5 records, e.g. 'INFO', 'ERROR', 'WARN'" in repr(summary)


@pytest.mark.parametrize("value, expected", [("42", 42), ("-3.5", -3.5), ("007", "007"), ("W-17", "W-17"),
                                             ("2026-02-03T08:00:01", datetime(2026, 2, 3, 8, 0, 1))])
def test_typed_values(value, expected):
    assert typed(value) == expected


def test_a_filter_that_keeps_nothing_while_each_constraint_alone_matches_is_noted():
    notes = []
    recs = records(KEY_VALUE)
    recs.on_empty = notes.append
    assert recs.where(level="WARN", user="kim").count() == 0
    assert notes and "level='WARN': 1" in notes[0] and "user='kim': 1" in notes[0]
    assert recs.where(level="WARN", user="nobody").count() == 0 and len(notes) == 1  # one matches nothing alone
    assert recs.where(user="nobody").count() == 0 and len(notes) == 1


def test_records_in_the_repl_with_its_predicates_and_note():
    with Sandbox(KEY_VALUE, limits=SandboxLimits(timeout_s=10)) as sandbox:
        result = sandbox.execute("recs = records(context)\n"
                                 "print(recs.where(level='error', message=startswith('auth-')).count())")
        assert (result.error, result.stdout) == (None, "2\n")
        empty = sandbox.execute("recs.where(level='WARN', user='kim').count()")
        assert empty.stdout == "0\n" and any("each constraint alone" in note for note in empty.notes)
        assert sandbox.execute("print(len(recs.unparsed))").stdout == "1\n"


def test_recs_is_bound_before_any_block_so_a_chain_without_its_assignment_runs():
    # the 1.5B model copied the prompt's chain and left out `recs = records(context)`: NameError at every iteration
    with Sandbox(KEY_VALUE, limits=SandboxLimits(timeout_s=10)) as sandbox:
        chain = sandbox.execute("print(recs.where(level='error', message=startswith('auth-')).count())")
        assert (chain.error, chain.stdout) == (None, "2\n")
        assert sandbox.execute("print(len(recs), bool(recs), recs[0]['level'])").stdout == "5 True INFO\n"
        empty = sandbox.execute("recs.where(level='WARN', user='kim').count()")
        assert any("each constraint alone" in note for note in empty.notes)  # the bound one notes too
        mine = sandbox.execute("recs = records('a=1\\na=2')\nprint(recs.sum('a'))")
        assert (mine.error, mine.stdout) == (None, "3\n")  # the model may still bind its own


def test_a_field_the_first_record_lacks_reads_from_the_next_record_of_the_selection_that_has_it():
    recs = records("account=A-1 amount=5\naccount=A-2 city=Oslo\naccount=A-1 city=Vaasa\naccount=A-1 city=Turku\n")
    first = recs.where(account="A-1").first()
    assert (first["amount"], first["city"], first.get("city"), first.line) == (5, "Vaasa", None, 1)
    assert recs.where(account="A-1").first()["holder"] is None and recs.where(account="A-9").first() is None
    assert "later" not in vars(recs.items[0])  # the table's own records are left as they were
    assert recs.items[0]["city"] is None


def test_a_quoted_cell_running_over_a_line_end_leaves_the_other_rows_read():
    recs = records('id,note\n1,"open\nquote"\n2,fine\n')
    assert recs.values("id") == [1, 2] and recs.unparsed == ['quote"']


def test_a_variable_named_records_still_reads_and_where_literals_get_no_case_note():
    text = "".join(f"2026-01-0{d} 10:00:00 INFO ticket T-{d} resolution={r}\n"
                   for d in range(1, 10) for r in ("duplicate", "DUPLICATE", "fixed")) * 80
    with Sandbox(text, limits=SandboxLimits(timeout_s=10)) as sandbox:
        first = sandbox.execute("records = records(context)\n"
                                "n = records.where(resolution='duplicate').count()\nprint(n)")
        assert (first.error, first.stdout, first.notes) == (None, "1440\n", [])  # where ignores case: no note
        again = sandbox.execute("records = records(context)\nprint(records.where(resolution='fixed').count())")
        assert (again.error, again.stdout) == (None, "720\n")
        plain = sandbox.execute("print(context.count('duplicate'))")
        assert any("ignoring case" in note for note in plain.notes)  # a real case-sensitive search still is


ORDERS = """\
[
  {
    "order": "O-1",
    "id": 11,
    "customer": {"id": "C-7", "country": "FI"},
    "payment": {"status": "paid", "total": 12.5}
  },
  {
    "order": "O-2",
    "id": 12,
    "customer": {"id": "C-8", "country": "SE"},
    "payment": {"status": "refunded", "total": 4.0}
  },
  {
    "order": "O-3",
    "id": 13,
    "customer": {"id": "C-7", "country": "FI"},
    "payment": {"status": "paid", "total": 30}
  }
]
"""


def test_a_nested_field_is_named_by_its_own_key_so_a_keyword_argument_can_name_it():
    # `where(payment.status="paid")` is a SyntaxError: a dotted name is no keyword argument
    recs = records(ORDERS)
    assert list(recs.fields()) == ["order", "id", "customer.id", "country", "status", "total"]
    assert recs.where(status="paid", country="FI").count() == 2 and recs.where(status="paid").sum("total") == 42.5
    assert recs.where(customer_id="C-7").values("order") == ["O-1", "O-3"]  # customer.id beside id
    assert recs.where(**{"payment.status": "refunded"}).first()["Customer.ID"] == "C-8"  # the path still reads
    assert recs.group_count("country").most_common(1) == [("FI", 2)] and recs.first()["id"] == 11


def test_a_nested_object_reads_whole_and_as_empty_in_a_record_of_another_kind():
    # the 1.5B model loops `for r in records(context): if r["payment"]["status"] == ...` over mixed objects
    mixed = records(ORDERS.replace("[\n", '[\n  {"courier": "K-1", "depot": {"city": "Oulu"}},\n', 1))
    assert mixed.count() == 4 and mixed.first()["depot"]["city"] == "Oulu" and mixed.first()["payment"]["total"] is None
    assert sum(r["payment"]["total"] for r in mixed if r["payment"]["status"] == "paid") == 42.5
    assert mixed.where(order="O-2").first()["customer"] == {"id": "C-8", "country": "SE"}
    assert mixed[1].get("payment") is None and mixed[1]["depot"] == {}  # get() keeps the flat fields only
    assert records('{"a": 1}\n' * 3)[0]["payment"] is None  # no nested object anywhere: a missing field


def test_a_nested_json_count_in_the_repl_through_a_field_by_its_own_key():
    with Sandbox(ORDERS, limits=SandboxLimits(timeout_s=10)) as sandbox:
        done = sandbox.execute("n = recs.where(country='FI', status='paid').count()\nprint(n)")
        assert (done.error, done.stdout) == (None, "2\n")


def test_a_field_the_selection_lacks_reads_from_the_record_it_links_to_by_an_id():
    # a join's two hops in one chain, as the 1.5B model writes it: the reading names its station, the
    # station's row has the city (the held-out builds joins printed None at this hop: 0 of 5)
    recs = records(TABLES)
    assert recs.where(reading_id="R-3").first()["city"] == "Vaasa"
    assert recs.where(note="ok").first()["opened"] == "2021-01-30"
    assert recs.where(reading_id="R-3").first()["altitude"] is None  # no record has it
    assert recs.where(reading_id="R-3")[0]["city"] is None  # a record of a loop does not join
    orders = records(ORDERS)
    assert orders.where(order="O-2").first()["id"] == 12  # its own field first


def test_a_field_read_from_a_searched_line_gets_the_records_note():
    with Sandbox(ORDERS, limits=SandboxLimits(timeout_s=10)) as sandbox:
        failed = sandbox.execute("hits = grep('paid')\nprint(sum(h['payment']['total'] for h in hits))")
        assert "string indices must be integers" in failed.error
        assert any("a line has no fields" in n and "3 records" in n for n in failed.notes), failed.notes
        other = sandbox.execute("x = 'abc'['k']")  # not a searched line: no note
        assert other.error and not any("a line has no fields" in n for n in other.notes)


def test_a_nested_field_named_with_double_underscores_as_in_an_orm_query_reads_its_path():
    """The builds sum at 50k (seed 2): the 1.5B model wrote `recs.where(result__status="timed_out")`, the
    keyword spelling of a path that ORMs use; it matched nothing and its 0 was the answer."""
    recs = records(ORDERS)
    assert recs.where(payment__status="paid").count() == recs.where(status="paid").count() == 2
    assert recs.where(customer__country="FI", payment__status="paid").sum("payment__total") == 42.5
    assert recs.first()["customer__id"] == "C-7"


def test_a_filter_on_a_field_no_record_has_is_noted_with_the_fields():
    notes = []
    recs = records(KEY_VALUE)
    recs.on_empty = notes.append
    assert recs.where(colour="red").count() == 0
    assert notes and "no record has a field colour" in notes[0] and "level" in notes[0] and "fields()" in notes[0]
    assert recs.where(level="nothing-like-it").count() == 0 and len(notes) == 1  # a value: the field exists
