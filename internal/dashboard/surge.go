package dashboard

import (
	"context"
	"fmt"
	"strings"
	"time"
)

func init() {
	add(map[string][3]string{
		"surge.banner": {
			"Unusually many new conversations: %d in the last 10 minutes, against about %s usually. If these are not your visitors, someone may be using your public widget key to spend your allowance: lower the limits per address in the agents' settings, or rotate the key.",
			"Neobișnuit de multe conversații noi: %d în ultimele 10 minute, față de aproximativ %s de obicei. Dacă nu sunt vizitatorii dvs., cineva poate folosi cheia publică a widgetului pentru a vă consuma alocația: micșorați limitele pe adresă în setările agenților sau rotiți cheia.",
			"Необычно много новых разговоров: %d за последние 10 минут при обычных примерно %s. Если это не ваши посетители, кто-то может расходовать ваш лимит через публичный ключ виджета: уменьшите ограничения на адрес в настройках агентов или смените ключ.",
		},
	})
}

// surgeBanner is the banner of a surge of new conversations for the
// account (package surge), worked out from the database on each page, so
// that it shows whichever instance served the conversations. "" when
// there is none, or no detector, or the check failed (it is logged: the
// page itself must not fail for it).
func (d *Dashboard) surgeBanner(ctx context.Context, lang, accountID string) string {
	if d.Surges == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	s, surging, err := d.Surges.Check(ctx, accountID)
	if err != nil {
		d.Logger.WarnContext(ctx, "surge check for the dashboard banner failed", "account_id", accountID, "err", err)
		return ""
	}
	if !surging {
		return ""
	}
	usual := strings.TrimSuffix(fmt.Sprintf("%.1f", s.Usual), ".0")
	return fmt.Sprintf(T(lang, "surge.banner"), s.Recent, usual)
}
