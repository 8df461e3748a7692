package connlimit

import (
	"io"
	"net"
	"net/netip"
)

// state is where a connection stands in its Listener's books.
type state uint8

const (
	busy   state = iota // in a request, or taken over by its handler
	idle                // accepted or kept alive, no request yet
	closed              // counted out
)

// Conn is a connection a Listener counts. Its state and links are guarded
// by the Listener's mutex.
type Conn struct {
	net.Conn
	l      *Listener
	addr   netip.Addr
	client *client // nil when no per-client cap applies
	state  state
	links  [slots]links
}

// Close closes the connection and counts it out; closing it again (the
// server after a cut, a parked request's owner) counts nothing more.
func (c *Conn) Close() error {
	c.l.release(c)
	return c.Conn.Close()
}

// NetConn returns the wrapped connection.
func (c *Conn) NetConn() net.Conn { return c.Conn }

// CloseWrite lets net/http end a response gracefully (a request body over
// its limit) as it does on a bare TCP connection.
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps net/http's sendfile path for files served from disk.
func (c *Conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// unwrap finds the Conn inside wrappers that expose what they wrap with
// NetConn (as crypto/tls and package park do).
func unwrap(nc net.Conn) *Conn {
	for nc != nil {
		switch v := nc.(type) {
		case *Conn:
			return v
		case interface{ NetConn() net.Conn }:
			nc = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}
