package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"parley/internal/audit"
	"parley/internal/domain"
	"parley/internal/retention"
	"parley/internal/secret"
	"parley/internal/store"
)

// maxTeamName bounds member and token names, so a page of them stays
// readable.
const maxTeamName = 100

// teamData is the team page.
type teamData struct {
	Members   []memberRow
	Tokens    []domain.APIToken
	Invite    inviteForm // the invite form's values after an error
	TokenName string     // the token form's value after an error
	// NewToken is a token just created. It is shown on this one response
	// and never again: only its hash is stored.
	NewToken string
	// Retention is the account's data retention (nil without the
	// retention service); RetentionDays the form's value after an error.
	Retention     *retention.Setting
	RetentionDays string
	// Desk is the account's auto-assign settings and who is online (nil
	// without the desk service).
	Desk *deskTeam
	// Hours is the account's business hours form (nil without the offline
	// service): the stored hours, or the posted ones after an error.
	Hours *hoursForm
}

type memberRow struct {
	domain.User
	Label string // the name, or the email when there is none
	Self  bool   // the signed-in user, who cannot remove themselves
}

// inviteForm never carries the password back: a page with an error must
// not echo a secret.
type inviteForm struct {
	Email, Name string
}

// Team lists the account's members and API tokens (owners only).
func (d *Dashboard) Team(w http.ResponseWriter, r *http.Request) {
	d.showTeam(w, r, http.StatusOK, teamData{}, "")
}

func (d *Dashboard) showTeam(w http.ResponseWriter, r *http.Request, status int, data teamData, errKey string) {
	me := user(r)
	users, err := d.Store.Users(r.Context(), me.AccountID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	for _, u := range users {
		label := u.Name
		if label == "" {
			label = u.Email
		}
		data.Members = append(data.Members, memberRow{User: u, Label: label, Self: u.ID == me.ID})
	}
	if data.Tokens, err = d.Store.APITokens(r.Context(), me.AccountID); err != nil {
		d.fail(w, r, err)
		return
	}
	if d.Desk != nil {
		set, err := d.Desk.Settings(r.Context(), me.AccountID)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		ops, err := d.Desk.Operators(r.Context(), me.AccountID)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		data.Desk = &deskTeam{Settings: set, Operators: ops}
	}
	if d.Offline != nil && data.Hours == nil {
		h, err := d.Offline.Hours(r.Context(), me.AccountID)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		data.Hours = newHoursForm(h, d.Offline.MailEnabled())
	}
	if d.Retention != nil {
		set, err := d.Retention.Get(r.Context(), me.AccountID)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		data.Retention = &set
		if data.RetentionDays == "" {
			data.RetentionDays = strconv.Itoa(set.Days)
		}
	}
	d.render(w, r, status, "team", view{Title: "team.title", Nav: "team", Error: errKey, Data: data})
}

// SetRetention changes the account's data retention (owners only); the
// rule is internal/retention's, as for PATCH /api/v1/account.
func (d *Dashboard) SetRetention(w http.ResponseWriter, r *http.Request) {
	if d.Retention == nil {
		d.fail(w, r, domain.ErrNotFound)
		return
	}
	raw := strings.TrimSpace(r.PostFormValue("retention_days"))
	days, err := strconv.Atoi(raw)
	if err == nil {
		_, err = d.Retention.Set(r.Context(), user(r).AccountID, days)
	}
	if err != nil {
		var inv *domain.InvalidError
		if _, numErr := strconv.Atoi(raw); numErr != nil || errors.As(err, &inv) {
			d.showTeam(w, r, http.StatusBadRequest, teamData{RetentionDays: raw}, "retention.invalid")
			return
		}
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/team?flash=retention.saved", http.StatusSeeOther)
}

// InviteMember adds an operator with a temporary password that the owner
// hands over; the operator can change it under "Change password".
func (d *Dashboard) InviteMember(w http.ResponseWriter, r *http.Request) {
	var form inviteForm
	fail := func(status int, key string) {
		d.showTeam(w, r, status, teamData{Invite: form}, key)
	}
	if status, key := readForm(w, r, maxForm); key != "" {
		fail(status, key)
		return
	}
	form = inviteForm{Email: strings.TrimSpace(r.PostFormValue("email")), Name: strings.TrimSpace(r.PostFormValue("name"))}
	if !validEmail(form.Email) {
		fail(http.StatusBadRequest, "email.invalid")
		return
	}
	if utf8.RuneCountInString(form.Name) > maxTeamName {
		fail(http.StatusBadRequest, "team.namelong")
		return
	}
	// Hashing is slow: it comes after the cheap checks.
	hash, key := hashNewPassword(r.PostFormValue("password"))
	if key != "" {
		fail(http.StatusBadRequest, key)
		return
	}
	nu, err := d.Store.CreateUser(r.Context(), store.NewUser{
		AccountID: user(r).AccountID, Email: form.Email, Name: form.Name,
		PasswordHash: hash, Role: domain.UserOperator,
	})
	if errors.Is(err, domain.ErrConflict) {
		fail(http.StatusConflict, "team.taken")
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.Audit.Record(r.Context(), nu.AccountID, audit.UserCreate, audit.Target("user", nu.ID))
	http.Redirect(w, r, "/team?flash=team.invited", http.StatusSeeOther)
}

// RemoveMember deletes a member of the account; their sessions end with
// them. Removing yourself is refused here, since it would leave you signed
// out with no way back in even when other owners remain; the store refuses
// to remove the last owner.
func (d *Dashboard) RemoveMember(w http.ResponseWriter, r *http.Request) {
	me := user(r)
	id := r.PathValue("id")
	if id == me.ID {
		d.showTeam(w, r, http.StatusBadRequest, teamData{}, "team.self")
		return
	}
	err := d.Store.DeleteUser(r.Context(), me.AccountID, id)
	if errors.Is(err, domain.ErrConflict) {
		d.showTeam(w, r, http.StatusConflict, teamData{}, "team.lastowner")
		return
	}
	if err != nil {
		d.fail(w, r, err) // another account's member is ErrNotFound: 404
		return
	}
	d.Audit.Record(r.Context(), me.AccountID, audit.UserDelete, audit.Target("user", id))
	http.Redirect(w, r, "/team?flash=team.removed", http.StatusSeeOther)
}

// CreateToken makes a management API token and shows it in the response
// itself, not after a redirect, so the token never appears in a URL (nor
// in history or logs). The store keeps only its hash.
func (d *Dashboard) CreateToken(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if name == "" || utf8.RuneCountInString(name) > maxTeamName {
		d.showTeam(w, r, http.StatusBadRequest, teamData{TokenName: name}, "team.tokennameerr")
		return
	}
	token := secret.APIToken()
	t, err := d.Store.CreateAPIToken(r.Context(), user(r).AccountID, name, secret.HashToken(token))
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.Audit.Record(r.Context(), t.AccountID, audit.TokenCreate, audit.Target("token", t.ID))
	d.showTeam(w, r, http.StatusOK, teamData{NewToken: token}, "")
}

// RevokeToken deletes a token; the API refuses it from the next request.
func (d *Dashboard) RevokeToken(w http.ResponseWriter, r *http.Request) {
	if err := d.Store.RevokeAPIToken(r.Context(), user(r).AccountID, r.PathValue("id")); err != nil {
		d.fail(w, r, err) // another account's token is ErrNotFound: 404
		return
	}
	d.Audit.Record(r.Context(), user(r).AccountID, audit.TokenRevoke, audit.Target("token", r.PathValue("id")))
	http.Redirect(w, r, "/team?flash=team.revoked", http.StatusSeeOther)
}
