package connlimit

// links are one connection's place in a queue.
type links struct{ prev, next *Conn }

// queue is an intrusive first-in first-out list of connections, oldest at
// the head: a connection joins and leaves it on every request (idle, then
// active), so it must cost no allocation. Each Conn has a slot of links per
// queue it can be in; slot says which one this queue uses.
type queue struct {
	head, tail *Conn
	slot       int
}

const (
	allIdle    = iota // the Listener's queue of every idle connection
	clientIdle        // a client's queue of its own idle connections
	slots
)

func (q *queue) push(c *Conn) {
	l := &c.links[q.slot]
	l.prev, l.next = q.tail, nil
	if q.tail != nil {
		q.tail.links[q.slot].next = c
	} else {
		q.head = c
	}
	q.tail = c
}

func (q *queue) remove(c *Conn) {
	l := &c.links[q.slot]
	if l.prev != nil {
		l.prev.links[q.slot].next = l.next
	} else {
		q.head = l.next
	}
	if l.next != nil {
		l.next.links[q.slot].prev = l.prev
	} else {
		q.tail = l.prev
	}
	l.prev, l.next = nil, nil
}
