package lockorder

import (
	"sync"
	"testing"
)

func testTransfers(t *testing.T, transfer func(from, to *Account, amount int) error) {
	alice, bob := NewAccount(1, 100), NewAccount(2, 100)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := transfer(alice, bob, 30); err != nil {
			t.Errorf("alice to bob: %v", err)
		}
	}()
	go func() {
		defer wg.Done()
		if err := transfer(bob, alice, 20); err != nil {
			t.Errorf("bob to alice: %v", err)
		}
	}()
	wg.Wait()
	if got := alice.Balance() + bob.Balance(); got != 200 {
		t.Errorf("the bank holds %d after the transfers, want 200", got)
	}
}

// TestTransferDeadlock: Alice pays Bob while Bob pays Alice.
func TestTransferDeadlock(t *testing.T) { testTransfers(t, Transfer) }

func TestTransferFixed(t *testing.T) { testTransfers(t, TransferOrdered) }
