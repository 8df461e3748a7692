package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"parley/internal/domain"
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

func limitsOf(l domain.LimitsConfig) limitsForm {
	show := func(p *int) string {
		if p != nil && *p >= 0 && *p <= domain.MaxConversationLimit {
			return strconv.Itoa(*p)
		}
		return ""
	}
	return limitsForm{PerIP: show(l.PerIP), PerVisitor: show(l.PerVisitor)}
}

func limitsFrom(r *http.Request) limitsForm {
	return limitsForm{
		PerIP:      strings.TrimSpace(r.PostFormValue("limit_ip")),
		PerVisitor: strings.TrimSpace(r.PostFormValue("limit_visitor")),
	}
}

// apply writes the limits into config c (an empty field unsets its limit:
// the instance's default); it returns a message key when a field is not a
// whole number. The range is Validate's.
func (f limitsForm) apply(c *domain.AgentConfig) string {
	l := c.Limits
	// Keys of its own in an old config would be refused (Validate) and
	// the form cannot show them: they go.
	l.Extra = nil
	for _, field := range []struct {
		text string
		into **int
	}{{f.PerIP, &l.PerIP}, {f.PerVisitor, &l.PerVisitor}} {
		if field.text == "" {
			*field.into = nil
			continue
		}
		n, err := strconv.Atoi(field.text)
		if err != nil {
			return "agent.limits.invalid"
		}
		*field.into = &n
	}
	c.Limits = l
	return ""
}
