package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"parley/internal/domain"
	"parley/internal/initlimit"
)

func init() {
	add(map[string][3]string{
		"agent.limits":       {"Limits on new conversations", "Limite pentru conversații noi", "Ограничения на новые разговоры"},
		"agent.limitip":      {"Per address per hour", "Pe adresă pe oră", "С одного адреса в час"},
		"agent.limitvisitor": {"Per visitor per hour", "Pe vizitator pe oră", "На посетителя в час"},
		"agent.limitshint": {
			"Your widget key is public, and every conversation counts against your monthly allowance: these limits stop one address or one visitor from starting more in an hour (they then wait). Empty: this instance's default, shown in grey; 0 turns a limit off. Raise the address limit if many of your visitors share one address, such as staff behind one office network.",
			"Cheia widgetului este publică, iar fiecare conversație se scade din alocația lunară: aceste limite opresc o adresă sau un vizitator să înceapă mai multe într-o oră (vor aștepta). Gol: valoarea implicită a acestei instanțe, afișată în gri; 0 dezactivează limita. Măriți limita pe adresă dacă mulți vizitatori folosesc aceeași adresă, de exemplu angajații din rețeaua unui birou.",
			"Ключ виджета публичен, и каждый разговор расходует месячный лимит: эти ограничения не дают одному адресу или посетителю начать больше разговоров за час (им придётся подождать). Пусто — значение по умолчанию этого сервера, показанное серым; 0 отключает ограничение. Увеличьте ограничение на адрес, если многие посетители выходят с одного адреса, например сотрудники из одной офисной сети.",
		},
		"agent.limits.invalid": {
			"A limit must be a whole number from 0 (off) to 100000, or empty for the default.",
			"O limită trebuie să fie un număr întreg de la 0 (dezactivată) la 100000, sau goală pentru valoarea implicită.",
			"Ограничение должно быть целым числом от 0 (выключено) до 100000 или пустым для значения по умолчанию.",
		},
	})
}

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
