package dashboard

import (
	"context"
	"fmt"
	"strings"
	"time"
)

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
