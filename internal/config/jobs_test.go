package config

import (
	"io"
	"strings"
	"testing"
	"time"
)

// The job queue's settings: defaults, the environment, flags over it, and
// the values refused (a rescue delay within the sync's own time limit
// would start a sync that is still running a second time).
func TestJobsSettings(t *testing.T) {
	c, err := Load(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Jobs{Workers: 4, RescueAfter: time.Hour, StopGrace: 10 * time.Second}); c.Jobs != want {
		t.Errorf("defaults %+v, want %+v", c.Jobs, want)
	}
	e := env(map[string]string{"PARLEY_JOBS_WORKERS": "2", "PARLEY_JOBS_RESCUE_AFTER": "90m", "PARLEY_JOBS_STOP_GRACE": "1m"})
	c, err = Load([]string{"--jobs-workers=8"}, e, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Jobs{Workers: 8, RescueAfter: 90 * time.Minute, StopGrace: time.Minute}); c.Jobs != want {
		t.Errorf("got %+v, want %+v", c.Jobs, want)
	}
	for _, bad := range []map[string]string{
		{"PARLEY_JOBS_WORKERS": "0"}, {"PARLEY_JOBS_WORKERS": "many"},
		{"PARLEY_JOBS_RESCUE_AFTER": "30m"}, {"PARLEY_JOBS_RESCUE_AFTER": "1"},
		{"PARLEY_JOBS_STOP_GRACE": "0s"},
	} {
		if _, err := Load(nil, env(bad), io.Discard); err == nil || !strings.Contains(err.Error(), "jobs") {
			t.Errorf("%v: err = %v, want it refused", bad, err)
		}
	}
}
