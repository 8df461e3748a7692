package agent

import "runtime"

// buildQueue takes accounts in turn, so one account's many agents cannot
// keep another's waiting for more than one build.
type buildQueue struct {
	accounts []string
	agents   map[string][]*kbAgent // by account, oldest first
}

func (q *buildQueue) push(ag *kbAgent) {
	if q.agents == nil {
		q.agents = make(map[string][]*kbAgent)
	}
	if len(q.agents[ag.accountID]) == 0 {
		q.accounts = append(q.accounts, ag.accountID)
	}
	q.agents[ag.accountID] = append(q.agents[ag.accountID], ag)
}

func (q *buildQueue) pop() *kbAgent {
	if len(q.accounts) == 0 {
		return nil
	}
	acc := q.accounts[0]
	q.accounts = q.accounts[1:]
	ags := q.agents[acc]
	ag := ags[0]
	if len(ags) == 1 {
		delete(q.agents, acc)
	} else {
		q.agents[acc] = ags[1:]
		q.accounts = append(q.accounts, acc) // its next agent waits its turn
	}
	return ag
}

// defaultBuilders is half the CPUs, at least one.
func defaultBuilders() int { return max(1, runtime.GOMAXPROCS(0)/2) }
