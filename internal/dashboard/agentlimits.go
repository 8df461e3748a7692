package dashboard

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"parley/internal/initlimit"
)

// limitsForm is the agent's limits on new conversations as the settings
// form shows them: what the config sets, "" for the default, which the
// placeholders show.
type limitsForm struct {
	PerIP, PerVisitor string
	Defaults          initlimit.Settings
}

// limitDefaults are the instance's defaults for agents that set no limits.
func (d *Dashboard) limitDefaults() initlimit.Settings {
	if d.Limits == nil {
		return initlimit.Settings{}
	}
	return d.Limits.Defaults()
}

func limitsOf(c configObject) limitsForm {
	l := decodeConfigObject(c[initlimit.ConfigKey])
	show := func(k string) string {
		if n, err := initlimit.Value(l[k]); err == nil && l[k] != nil {
			return strconv.Itoa(n)
		}
		return ""
	}
	return limitsForm{PerIP: show(initlimit.KeyPerIP), PerVisitor: show(initlimit.KeyPerVisitor)}
}

func limitsFrom(r *http.Request) limitsForm {
	return limitsForm{
		PerIP:      strings.TrimSpace(r.PostFormValue("limit_ip")),
		PerVisitor: strings.TrimSpace(r.PostFormValue("limit_visitor")),
	}
}

// apply writes the limits into config c (an empty field removes its key,
// and an empty "limits" goes); it returns a message key when a field is
// not a valid limit.
func (f limitsForm) apply(c configObject) string {
	l := decodeConfigObject(c[initlimit.ConfigKey])
	for k, v := range map[string]string{initlimit.KeyPerIP: f.PerIP, initlimit.KeyPerVisitor: f.PerVisitor} {
		if v == "" {
			delete(l, k)
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > initlimit.MaxLimit {
			return "agent.limits.invalid"
		}
		l[k] = json.RawMessage(strconv.Itoa(n))
	}
	if len(l) == 0 {
		delete(c, initlimit.ConfigKey)
		return ""
	}
	c[initlimit.ConfigKey], _ = json.Marshal(l)
	return ""
}
