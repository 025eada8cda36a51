// Package lockorder is a bank whose transfers lock two accounts. Transfer
// locks them in argument order, so two opposite transfers can each hold
// one lock and wait for the other: a lock-order inversion.
// TransferOrdered always locks the account with the lower ID first.
package lockorder

import (
	"errors"
	"sync"
)

// ErrInsufficientFunds is returned when the source account cannot pay.
var ErrInsufficientFunds = errors.New("insufficient funds")

// Account is a bank account.
type Account struct {
	ID      int
	mu      sync.Mutex
	balance int
}

// NewAccount returns an account holding balance.
func NewAccount(id, balance int) *Account {
	return &Account{ID: id, balance: balance}
}

// Balance returns the account's balance.
func (a *Account) Balance() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.balance
}

// Transfer moves amount from one account to another.
//
// Bug: it locks from, then to. Transfer(a, b) and Transfer(b, a) running
// at once can deadlock.
func Transfer(from, to *Account, amount int) error {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	return move(from, to, amount)
}

// TransferOrdered moves amount like Transfer, but locks the two accounts in
// the order of their IDs, so that concurrent transfers cannot deadlock.
func TransferOrdered(from, to *Account, amount int) error {
	first, second := from, to
	if to.ID < from.ID {
		first, second = to, from
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	return move(from, to, amount)
}

func move(from, to *Account, amount int) error {
	if from.balance < amount {
		return ErrInsufficientFunds
	}
	from.balance -= amount
	to.balance += amount
	return nil
}
