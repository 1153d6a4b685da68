from records import Album, Collection

ALBUMS = [
    Album("Salt Road", "Mira Okafor", 1974, "M", 30.0),
    Album("Quiet Engines", "Pell Lind", 1981),
    Album("A Map of Rain", "Mira Okafor", 1979, "G", 16.0),
    Album("Harbour Lights", "Mira Okafor", 1976, "VG", 24.0),
]


def test_albums_by_artist_in_release_order():
    titles = [a.title for a in Collection(ALBUMS).by_artist("Mira Okafor")]
    assert titles == ["Salt Road", "Harbour Lights", "A Map of Rain"]


def test_search_title_and_artist():
    assert [a.title for a in Collection(ALBUMS).search("okafor RAIN")] == ["A Map of Rain"]


def test_value_by_grade():
    assert Collection(ALBUMS).value() == 61.0


def test_decades():
    assert Collection(ALBUMS).decades() == {1970: 3, 1980: 1}
