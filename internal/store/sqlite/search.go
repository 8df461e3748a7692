package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The inbox search matches a substring of any message text regardless of
// case. SQLite's LIKE, lower() and NOCASE fold ASCII only, and operators
// search Cyrillic and Romanian text as much as English, so the store keeps
// messages.text_folded = fold(text), written by AddMessage, and matches the
// folded query against it. Folding in Go rather than in a registered SQL
// function keeps the query plain SQL and folds each text once, not on every
// search.

// fold maps every letter to one representative of its case-folding orbit,
// the set of runes strings.EqualFold treats as equal. Plain strings.ToLower
// is not enough: it leaves the Greek final sigma ς apart from σ and Σ, and
// the Kelvin sign K apart from k.
func fold(s string) string {
	return strings.Map(foldRune, s)
}

func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	// The smallest rune of the orbit is the same from every member; its
	// lower case is readable in the column (ASCII orbits fold to lower
	// case too, above).
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return unicode.ToLower(least)
}

// likeEscape is the ESCAPE character of containsPattern's patterns.
const likeEscape = `\`

// containsPattern is a LIKE pattern (with ESCAPE '\') matching folded texts
// that contain q. The escapes make % and _ in q literal characters instead
// of wildcards.
func containsPattern(q string) string {
	esc := strings.NewReplacer(likeEscape, likeEscape+likeEscape, "%", likeEscape+"%", "_", likeEscape+"_")
	return "%" + esc.Replace(fold(q)) + "%"
}

// foldBatch bounds the rows foldExistingMessages holds in memory at once.
const foldBatch = 500

// foldExistingMessages is the Go step of migration 0003: it fills
// text_folded for the messages stored before the column existed. It walks
// the table in seq order a batch at a time, so a large table is never read
// into memory whole.
func foldExistingMessages(ctx context.Context, tx *sql.Tx) error {
	update, err := tx.PrepareContext(ctx, `UPDATE messages SET text_folded = ? WHERE seq = ?`)
	if err != nil {
		return err
	}
	defer update.Close()

	type row struct {
		seq  int64
		text string
	}
	var after int64
	for {
		// Read the whole batch before writing: the rows of a query must be
		// closed before the same connection runs the updates.
		rows, err := tx.QueryContext(ctx, `SELECT seq, text FROM messages WHERE seq > ? ORDER BY seq LIMIT ?`, after, foldBatch)
		if err != nil {
			return err
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.seq, &r.text); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range batch {
			if _, err := update.ExecContext(ctx, fold(r.text), r.seq); err != nil {
				return err
			}
		}
		if len(batch) < foldBatch {
			return nil
		}
		after = batch[len(batch)-1].seq
	}
}
