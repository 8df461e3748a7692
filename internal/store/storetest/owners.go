package storetest

import (
	"errors"
	"sync"
	"testing"

	"parley/internal/domain"
	"parley/internal/store"
)

// testDeleteOwnersConcurrent: owners deleting each other at once never
// leave their account without an owner. Each round, every owner but one
// is deleted at the same moment as the others; exactly one deletion per
// round must be refused with store.ErrLastOwner.
func testDeleteOwnersConcurrent(t *testing.T, s store.Store) {
	ctx := t.Context()
	const rounds, owners = 5, 3
	for round := range rounds {
		a := newAccount(t, s, domain.DefaultLimits)
		ids := []string{owner(t, s, a).ID}
		for range owners - 1 {
			ids = append(ids, newUser(t, s, a.ID, domain.UserOwner).ID)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		deleted, refused := 0, 0
		var other error
		start := make(chan struct{})
		for _, id := range ids {
			wg.Go(func() {
				<-start
				err := s.DeleteUser(ctx, a.ID, id)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					deleted++
				case errors.Is(err, store.ErrLastOwner) && errors.Is(err, domain.ErrConflict):
					refused++
				default:
					other = err
				}
			})
		}
		close(start)
		wg.Wait()
		users, err := s.Users(ctx, a.ID)
		noErr(t, "Users", err)
		if deleted != owners-1 || refused != 1 || other != nil || len(users) != 1 || users[0].Role != domain.UserOwner {
			t.Fatalf("round %d: %d deleted, %d refused (other error %v), users left %+v; want %d, 1, nil, one owner",
				round, deleted, refused, other, users, owners-1)
		}
	}
}
