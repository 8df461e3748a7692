package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		// Nothing secret: unchanged.
		{"", ""},
		{"parley-data/parley.db", "parley-data/parley.db"},
		{"sqlite:/var/lib/parley/p.db", "sqlite:/var/lib/parley/p.db"},
		{"postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"https://api.example.com/v1?api-version=2024-06-01", "https://api.example.com/v1?api-version=2024-06-01"},
		{"host=db user=parley dbname=parley sslmode=require", "host=db user=parley dbname=parley sslmode=require"},
		{"widget key wk_abc is fine", "widget key wk_abc is fine"},
		// URL user info.
		{"postgres://postgres:S3cretPW@127.0.0.1:5432/test", "postgres://postgres:xxxxx@127.0.0.1:5432/test"},
		{"postgresql://u:p%40ss@db.internal/parley?sslmode=require", "postgresql://u:xxxxx@db.internal/parley?sslmode=require"},
		{"postgres://u:p@ss@host/db", "postgres://u:xxxxx@host/db"},  // an unescaped '@'
		{"postgres://u:pa/ss@host/db", "postgres://u:xxxxx@host/db"}, // an unescaped '/'
		{"postgres://u:pa?ss@host/db", "postgres://u:xxxxx@host/db"}, // an unescaped '?'
		{"postgres://u:@host/db", "postgres://u:@host/db"},           // no password
		{"redis://:S3cretPW@127.0.0.1:6379/0", "redis://:xxxxx@127.0.0.1:6379/0"},
		{"rediss://default:S3cretPW@cache:6380", "rediss://default:xxxxx@cache:6380"},
		{"https://user:S3cretPW@llm.example.com/v1", "https://user:xxxxx@llm.example.com/v1"},
		// Query secrets.
		{"postgres://h/db?sslmode=verify-full&sslpassword=S3cretPW&password=S3cretPW",
			"postgres://h/db?sslmode=verify-full&sslpassword=xxxxx&password=xxxxx"},
		{"https://llm.example.com/v1?key=S3cretPW", "https://llm.example.com/v1?key=xxxxx"},
		{"https://llm.example.com/v1?api_key=S3cretPW&model=x#top", "https://llm.example.com/v1?api_key=xxxxx&model=x#top"},
		{"https://llm.example.com/v1?Api-Key=S3cretPW", "https://llm.example.com/v1?Api-Key=xxxxx"},
		{"https://llm.example.com/v1?access_token=S3cretPW&token=S3cretPW", "https://llm.example.com/v1?access_token=xxxxx&token=xxxxx"},
		{"https://h/p?email=a@b.example&key=S3cretPW", "https://h/p?email=a@b.example&key=xxxxx"}, // an '@' in the query
		{"postgres://u:S3cretPW@h/db?email=a@b", "postgres://u:xxxxx@h/db?email=a@b"},
		// key=value DSNs.
		{"host=db user=parley password=S3cretPW dbname=parley", "host=db user=parley password=xxxxx dbname=parley"},
		{"host=db password = S3cretPW", "host=db password = xxxxx"},
		{"host=db password='S3cret PW' sslmode=disable", "host=db password='xxxxx' sslmode=disable"},
		{`host=db password='it\'s S3cretPW' port=5432`, "host=db password='xxxxx' port=5432"},
		{"sslpassword=S3cretPW PASSWORD=S3cretPW", "sslpassword=xxxxx PASSWORD=xxxxx"},
		{"user=a mypassword=notakey", "user=a mypassword=notakey"}, // only whole keys
		// URLs inside messages.
		{`opening the database: cannot parse "postgres://postgres:S3cretPW@127.0.0.1:5432/test": bad`,
			`opening the database: cannot parse "postgres://postgres:xxxxx@127.0.0.1:5432/test": bad`},
		{`Post "https://llm.example.com/v1/chat/completions?key=S3cretPW": dial tcp: refused`,
			`Post "https://llm.example.com/v1/chat/completions?key=xxxxx": dial tcp: refused`},
		{"two: redis://:S3cretPW@a:6379 and postgres://p:S3cretPW@b/c", "two: redis://:xxxxx@a:6379 and postgres://p:xxxxx@b/c"},
		{"failed to connect to `user=postgres database=test`: password=S3cretPW refused",
			"failed to connect to `user=postgres database=test`: password=xxxxx refused"},
	} {
		got := String(tt.in)
		if got != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "S3cret") {
			t.Errorf("String(%q) leaves the password: %q", tt.in, got)
		}
	}
}

func TestError(t *testing.T) {
	t.Parallel()
	err := Error(fmt.Errorf("opening postgres://u:S3cretPW@h/db: %w", fs.ErrNotExist))
	if err.Error() != "opening postgres://u:xxxxx@h/db: file does not exist" || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%q (errors.Is %v)", err, errors.Is(err, fs.ErrNotExist))
	}
	if Error(nil) != nil {
		t.Fatal("Error(nil) is not nil")
	}
}
