package store

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
)

// MigrationFile is one embedded migration of a store: NNNN_name.sql.
type MigrationFile struct {
	Version int
	Name    string
	SQL     string
}

// migrationName is "0001_what_it_does.sql"; the number is the version.
var migrationName = regexp.MustCompile(`^([0-9]{4})_[a-z0-9_]+\.sql$`)

// LoadMigrations reads the migration files of fsys in version order. A
// file with a bad name or a repeated version is an error rather than
// skipped, so a typo cannot silently leave a migration out. Each store
// runs them its own way (its SQL dialect, its locking).
func LoadMigrations(fsys fs.FS) ([]MigrationFile, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []MigrationFile
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		m := migrationName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration %q: name must look like 0001_name.sql", e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, MigrationFile{Version: v, Name: e.Name(), SQL: string(body)})
	}
	slices.SortFunc(ms, func(a, b MigrationFile) int { return a.Version - b.Version })
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share a version", ms[i-1].Name, ms[i].Name)
		}
	}
	return ms, nil
}
