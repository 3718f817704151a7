"""A lending library: books, members, loans and the fines for late returns.

Dates are plain `datetime.date`s; the library is closed on no day, so a loan of
LOAN_DAYS days is due exactly that many days after it was made.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

LOAN_DAYS = 14
#: Fine per late day, by membership tier, in cents.
FINES: dict[str, int] = {
    "standard": 25,
    "student": 10,
    "senior": 10,
    "staff": 0,
}
MAX_LOANS: dict[str, int] = {"standard": 5, "student": 8, "senior": 5, "staff": 20}


class LibraryError(Exception):
    """An operation the rules forbid; the message says which rule."""


@dataclass(frozen=True)
class Book:
    isbn: str
    title: str
    author: str
    year: int

    @staticmethod
    def valid_isbn(isbn: str) -> bool:
        """ISBN-13: 13 digits whose weighted sum (1, 3, 1, 3, ...) is a multiple of 10."""
        digits = isbn.replace("-", "")
        if len(digits) != 13 or not digits.isdigit():
            return False
        total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits))
        return total % 10 == 0

    @property
    def label(self) -> str:
        return f"{self.author}: {self.title} ({self.year})"


@dataclass
class Member:
    member_id: int
    name: str
    tier: str = "standard"
    loans: list[Loan] = field(default_factory=list)

    @property
    def can_borrow(self) -> bool:
        return len(self.loans) < MAX_LOANS[self.tier]


@dataclass
class Loan:
    book: Book
    member_id: int
    start: dt.date

    @property
    def due(self) -> dt.date:
        return self.start + dt.timedelta(days=LOAN_DAYS)

    def days_late(self, returned: dt.date) -> int:
        """Whole days after the due date; 0 when returned on time."""
        return max((returned - self.due).days, 0)


class Library:
    """The catalogue, the members and the loans between them."""

    def __init__(self) -> None:
        self.books: dict[str, Book] = {}
        self.members: dict[int, Member] = {}
        self.on_loan: dict[str, Loan] = {}
        self._next_member = 1

    @classmethod
    def with_books(cls, books: list[Book]) -> Library:
        library = cls()
        for book in books:
            library.add_book(book)
        return library

    def add_book(self, book: Book) -> None:
        if not Book.valid_isbn(book.isbn):
            raise LibraryError(f"invalid ISBN {book.isbn}")
        self.books[book.isbn] = book

    def join(self, name: str, tier: str = "standard") -> Member:
        if tier not in FINES:
            raise LibraryError(f"unknown tier {tier}")
        member = Member(self._next_member, name, tier)
        self.members[member.member_id] = member
        self._next_member += 1
        return member

    def lend(self, isbn: str, member_id: int, today: dt.date) -> Loan:
        member = self.members[member_id]
        if isbn in self.on_loan:
            raise LibraryError(f"{isbn} is already on loan")
        if not member.can_borrow:
            raise LibraryError(f"{member.name} has too many loans")
        loan = Loan(self.books[isbn], member_id, today)
        self.on_loan[isbn] = loan
        member.loans.append(loan)
        return loan

    def give_back(self, isbn: str, today: dt.date) -> int:
        """End the loan of `isbn`; returns the fine in cents."""
        loan = self.on_loan.pop(isbn)
        member = self.members[loan.member_id]
        member.loans.remove(loan)
        return loan.days_late(today) * FINES["standard"]

    def overdue(self, today: dt.date) -> list[str]:
        """Titles of the books past their due date, oldest loan first."""
        late = [loan for loan in self.on_loan.values() if loan.due < today]
        return [loan.book.title for loan in sorted(late, key=lambda loan: loan.start)]

    def search(self, text: str) -> list[str]:
        """Labels of books whose title or author contains `text`, any case."""
        needle = text.lower()
        return sorted(
            book.label
            for book in self.books.values()
            if needle in book.title.lower() or needle in book.author.lower()
        )
