import datetime as dt

import pytest
from library import Book, Library, LibraryError

DUNE = Book("978-0-441-17271-9", "Dune", "Frank Herbert", 1965)
EMMA = Book("978-0-14-143958-7", "Emma", "Jane Austen", 1815)
DAY = dt.date(2024, 3, 1)


def test_isbn_and_search() -> None:
    assert Book.valid_isbn(DUNE.isbn)
    assert not Book.valid_isbn("978-0-441-17271-8")
    library = Library.with_books([DUNE, EMMA])
    assert library.search("AUSTEN") == ["Jane Austen: Emma (1815)"]


def test_fines_follow_the_members_tier() -> None:
    library = Library.with_books([DUNE, EMMA])
    ann = library.join("ann", "student")
    bob = library.join("bob")
    library.lend(DUNE.isbn, ann.member_id, DAY)
    library.lend(EMMA.isbn, bob.member_id, DAY)
    later = DAY + dt.timedelta(days=17)
    assert library.overdue(later) == ["Dune", "Emma"]
    assert library.give_back(DUNE.isbn, later) == 30
    assert library.give_back(EMMA.isbn, later) == 75


def test_rules() -> None:
    library = Library.with_books([DUNE])
    ann = library.join("ann")
    library.lend(DUNE.isbn, ann.member_id, DAY)
    with pytest.raises(LibraryError):
        library.lend(DUNE.isbn, ann.member_id, DAY)
    with pytest.raises(LibraryError):
        library.join("cy", "vip")
