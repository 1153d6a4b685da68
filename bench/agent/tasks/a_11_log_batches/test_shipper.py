from shipper import encode_batch, make_batches


def test_no_records():
    assert make_batches([]) == []


def test_everything_fits_in_one_batch():
    assert make_batches(["a", "b", "c"]) == [["a", "b", "c"]]


def test_count_limit():
    records = ["r1", "r2", "r3", "r4", "r5"]
    assert make_batches(records, max_count=2) == [["r1", "r2"], ["r3", "r4"], ["r5"]]


def test_byte_limit():
    records = ["aaaa", "bbbb", "cccc", "dd", "eeeeee"]
    assert make_batches(records, max_bytes=8) == [["aaaa", "bbbb"], ["cccc", "dd"], ["eeeeee"]]


def test_oversized_record_sent_alone():
    big = "x" * 50
    assert make_batches([big, "ok"], max_bytes=10) == [[big], ["ok"]]


def test_encode_batch():
    assert encode_batch(["GET /", "héllo"]) == "GET /\nhéllo\n".encode("utf-8")
