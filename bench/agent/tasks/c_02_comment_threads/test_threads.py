from threads import Comment, authors, count, depth, too_deep


def thread():
    return Comment("ana", "first!", [
        Comment("bo", "hi", [Comment("ana", "hello", [Comment("cy", "welcome")])]),
        Comment("dee", "nice post"),
    ])


def test_count():
    assert count(thread()) == 5


def test_authors():
    assert authors(thread()) == {"ana", "bo", "cy", "dee"}


def test_depth_of_single_comment():
    assert depth(Comment("ana", "alone")) == 1


def test_depth_of_thread():
    assert depth(thread()) == 4


def test_too_deep():
    assert too_deep(thread(), 3)
    assert not too_deep(thread(), 4)
