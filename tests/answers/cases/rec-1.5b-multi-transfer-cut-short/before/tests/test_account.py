import pytest

from bank.account import Account, InsufficientFunds, transfer


def test_transfer_moves_money():
    alice, bob = Account("alice", 100), Account("bob", 0)
    transfer(alice, bob, 30)
    assert (alice.balance, bob.balance) == (70, 30)


def test_an_overdraft_is_refused():
    alice, bob = Account("alice", 10), Account("bob", 500)
    with pytest.raises(InsufficientFunds):
        transfer(alice, bob, 50)
    assert (alice.balance, bob.balance) == (10, 500)
