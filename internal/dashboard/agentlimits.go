package dashboard

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

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
