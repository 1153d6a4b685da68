from upload import check_upload, extension, safe_name


def test_extension_is_lower_case():
    assert extension("IMG_2041.JPG") == ".jpg"
    assert extension(".profile") == ""


def test_common_photo_files_are_accepted():
    assert check_upload("holiday.jpg", 1000) == []
    assert check_upload("IMG_2041.JPEG", 2_000_000) == []


def test_other_files_are_refused():
    assert check_upload("cv.pdf", 1000) == [".pdf files are not accepted"]


def test_size_limits():
    assert check_upload("big.png", 9 * 1024 * 1024) == ["file is 9.0 MB, the limit is 8 MB"]
    assert check_upload("empty.png", 0) == ["file is empty"]


def test_safe_name():
    assert safe_name("My Holiday (2).JPG") == "My-Holiday-2.jpg"
    assert safe_name("***.png") == "photo.png"
