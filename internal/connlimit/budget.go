package connlimit

// Budget returns how many connections to allow under a descriptor limit:
// the limit less a reserve for every other file the process opens (the
// listener, the database and its journal, Redis, log files, outbound
// calls to an LLM or a webhook). The reserve is a tenth of the limit, at
// least 200 descriptors but never more than half of a small limit. 0 for
// an unknown limit (no budget).
func Budget(fdLimit uint64) int {
	if fdLimit == 0 {
		return 0
	}
	const maxBudget = 1 << 30 // an "unlimited" limit needs no exactness
	limit := min(fdLimit, maxBudget)
	reserve := max(limit/10, min(200, limit/2))
	return int(limit - reserve)
}
