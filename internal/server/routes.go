package server

import (
	"net/http"

	"parley/web"
)

// routes lists every route of Parley on one screen.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	w, m := s.widget, s.manage

	// The public widget API (spec). CORS and the per-IP rate limit are
	// applied to the whole /api/widget/ prefix in ServeHTTP.
	mux.HandleFunc("POST /api/widget/init", w.Init)
	mux.HandleFunc("POST /api/widget/chat", w.Chat)
	mux.HandleFunc("GET /api/widget/poll", w.Poll)
	// Ours (issue 19): the offline form's address and the CSAT rating.
	mux.HandleFunc("POST /api/widget/contact", w.Contact)
	mux.HandleFunc("POST /api/widget/rating", w.Rating)
	mux.HandleFunc("POST /api/widget/typing", w.Typing)     // issue 19: typing indicators
	mux.HandleFunc("POST /api/widget/feedback", w.Feedback) // issue 20: thumbs on AI answers
	mux.Handle("GET /widget.js", s.widgetJS)
	// The widget's UI chunk, which the loader imports when the chat first
	// opens: at its content-hashed name (cached for a year), and at a fixed
	// name for loaders cached before a deploy (docs/widget.md). Scripts, not
	// API, like /widget.js.
	mux.Handle("GET /"+web.WidgetUIName, s.widgetUI)
	mux.Handle("GET /"+web.WidgetUIFallback, s.uiLatest)

	// The management API for account owners (Bearer token; same origin).
	mux.HandleFunc("POST /api/v1/agents", m.Auth(m.CreateAgent))
	mux.HandleFunc("GET /api/v1/agents", m.Auth(m.ListAgents))
	mux.HandleFunc("GET /api/v1/agents/{id}", m.Auth(m.GetAgent))
	mux.HandleFunc("PATCH /api/v1/agents/{id}", m.Auth(m.UpdateAgent))
	mux.HandleFunc("GET /api/v1/agents/{id}/knowledge", m.Auth(m.ListKnowledge))
	mux.HandleFunc("POST /api/v1/agents/{id}/knowledge", m.Auth(m.AddKnowledge))
	mux.HandleFunc("PATCH /api/v1/agents/{id}/knowledge/{item}", m.Auth(m.UpdateKnowledge))
	mux.HandleFunc("DELETE /api/v1/agents/{id}/knowledge/{item}", m.Auth(m.DeleteKnowledge))
	mux.HandleFunc("POST /api/v1/agents/{id}/keys", m.Auth(m.CreateKey))
	mux.HandleFunc("POST /api/v1/agents/{id}/identity-secret", m.Auth(m.RotateIdentitySecret))
	mux.HandleFunc("POST /api/v1/agents/{id}/sources", m.Auth(m.CreateSource))
	mux.HandleFunc("GET /api/v1/agents/{id}/sources", m.Auth(m.ListSources))
	mux.HandleFunc("GET /api/v1/agents/{id}/origins", m.Auth(m.ListOrigins))
	mux.HandleFunc("GET /api/v1/agents/{id}/sources/{sid}", m.Auth(m.GetSource))
	mux.HandleFunc("DELETE /api/v1/agents/{id}/sources/{sid}", m.Auth(m.DeleteSource))
	mux.HandleFunc("POST /api/v1/agents/{id}/sources/{sid}/sync", m.Auth(m.SyncSource))
	mux.HandleFunc("GET /api/v1/agents/{id}/sources/{sid}/pages", m.Auth(m.SourcePages))
	mux.HandleFunc("PATCH /api/v1/keys/{key}", m.Auth(m.UpdateKey))
	mux.HandleFunc("GET /api/v1/conversations", m.Auth(m.ListConversations))
	mux.HandleFunc("GET /api/v1/conversations/{id}", m.Auth(m.GetConversation))
	mux.HandleFunc("POST /api/v1/conversations/{id}/takeover", m.Auth(m.TakeOver))
	mux.HandleFunc("POST /api/v1/conversations/{id}/release", m.Auth(m.Release))
	mux.HandleFunc("POST /api/v1/conversations/{id}/messages", m.Auth(m.OperatorMessage))
	mux.HandleFunc("POST /api/v1/conversations/{id}/resolve", m.Auth(m.Resolve))
	mux.HandleFunc("POST /api/v1/conversations/{id}/reopen", m.Auth(m.Reopen))
	mux.HandleFunc("POST /api/v1/conversations/{id}/assign", m.Auth(m.Assign))
	mux.HandleFunc("GET /api/v1/desk", m.Auth(m.GetDesk))
	mux.HandleFunc("PATCH /api/v1/desk", m.Auth(m.UpdateDesk))
	mux.HandleFunc("GET /api/v1/visitors/{id}/export", m.Auth(m.ExportVisitor))
	mux.HandleFunc("DELETE /api/v1/visitors/{id}", m.Auth(m.DeleteVisitor))
	mux.HandleFunc("GET /api/v1/account", m.Auth(m.GetAccount))
	mux.HandleFunc("PATCH /api/v1/account", m.Auth(m.UpdateAccount))
	mux.HandleFunc("GET /api/v1/business-hours", m.Auth(m.GetBusinessHours))
	mux.HandleFunc("PUT /api/v1/business-hours", m.Auth(m.SetBusinessHours))
	mux.HandleFunc("GET /api/v1/users/{id}/wait-alert", m.Auth(m.GetWaitAlert))
	mux.HandleFunc("PUT /api/v1/users/{id}/wait-alert", m.Auth(m.SetWaitAlert))
	mux.HandleFunc("GET /api/v1/ratings", m.Auth(m.GetRatings))
	mux.HandleFunc("GET /api/v1/conversations/{id}/rating", m.Auth(m.GetConversationRating))
	mux.HandleFunc("GET /api/v1/usage", m.Auth(m.Usage))
	mux.HandleFunc("GET /api/v1/audit", m.Auth(m.Audit))
	mux.HandleFunc("POST /api/v1/webhooks", m.Auth(m.CreateWebhook))
	mux.HandleFunc("GET /api/v1/webhooks", m.Auth(m.ListWebhooks))
	mux.HandleFunc("GET /api/v1/webhooks/{id}", m.Auth(m.GetWebhook))
	mux.HandleFunc("DELETE /api/v1/webhooks/{id}", m.Auth(m.DeleteWebhook))
	mux.HandleFunc("GET /api/v1/webhooks/{id}/deliveries", m.Auth(m.WebhookDeliveries))
	mux.HandleFunc("POST /api/v1/webhooks/{id}/test", m.Auth(m.TestWebhook))
	mux.HandleFunc("POST /api/v1/canned-replies", m.Auth(m.CreateCanned))
	mux.HandleFunc("GET /api/v1/canned-replies", m.Auth(m.ListCanned))
	mux.HandleFunc("GET /api/v1/canned-replies/{id}", m.Auth(m.GetCanned))
	mux.HandleFunc("PATCH /api/v1/canned-replies/{id}", m.Auth(m.UpdateCanned))
	mux.HandleFunc("DELETE /api/v1/canned-replies/{id}", m.Auth(m.DeleteCanned))
	mux.HandleFunc("GET /api/v1/conversations/{id}/notes", m.Auth(m.ListNotes))
	mux.HandleFunc("POST /api/v1/conversations/{id}/notes", m.Auth(m.AddNote))
	mux.Handle("GET /api/openapi.json", s.openAPI)

	// Operations and pages.
	mux.HandleFunc("GET /healthz", s.healthz)
	// /metrics for local clients only (metricsroute.go); /demo with the
	// dashboard's CSP and frame headers.
	mux.HandleFunc("/metrics", s.serveMetrics)
	mux.Handle("GET /demo", s.page(s.demo))
	mux.Handle("GET /demo.css", s.demoCSS)
	mux.Handle("GET /favicon.ico", s.favicon)

	// The dashboard: session cookie, same origin only, CSRF-protected
	// (page adds the security headers and cross-origin protection).
	d := s.Dashboard
	mux.Handle("GET /{$}", s.page(d.Home))
	mux.Handle("GET /static/", d.Static())
	mux.Handle("GET /signin", s.page(d.SignInPage))
	mux.Handle("POST /signin", s.page(d.SignIn))
	mux.Handle("GET /signup", s.page(d.SignUpPage))
	mux.Handle("POST /signup", s.page(d.SignUp))
	mux.Handle("POST /signout", s.page(d.SignOut))
	mux.Handle("POST /language", s.page(d.SetLanguage))
	mux.Handle("GET /account/password", s.page(d.User(d.PasswordPage)))
	mux.Handle("POST /account/password", s.page(d.User(d.ChangePassword)))
	mux.Handle("POST /account/wait-alert", s.page(d.User(d.SetWaitAlert)))
	mux.Handle("GET /events", s.page(d.User(d.Events)))
	mux.Handle("GET /inbox", s.page(d.User(d.Inbox)))
	mux.Handle("GET /conversations/{id}", s.page(d.User(d.Conversation)))
	mux.Handle("POST /conversations/{id}/takeover", s.page(d.User(d.TakeOver)))
	mux.Handle("POST /conversations/{id}/release", s.page(d.User(d.Release)))
	mux.Handle("POST /conversations/{id}/reply", s.page(d.User(d.Reply)))
	mux.Handle("POST /conversations/{id}/typing", s.page(d.User(d.Typing)))
	mux.Handle("POST /conversations/{id}/resolve", s.page(d.User(d.Resolve)))
	mux.Handle("POST /conversations/{id}/reopen", s.page(d.User(d.Reopen)))
	mux.Handle("POST /conversations/{id}/assign", s.page(d.Owner(d.Assign)))
	mux.Handle("POST /presence", s.page(d.User(d.Presence)))
	mux.Handle("POST /presence/away", s.page(d.User(d.SetAway)))
	mux.Handle("POST /team/desk", s.page(d.Owner(d.SetDesk)))
	mux.Handle("POST /conversations/{id}/notes", s.page(d.User(d.AddNote)))
	mux.Handle("GET /canned", s.page(d.User(d.CannedPage)))
	mux.Handle("POST /canned", s.page(d.Owner(d.CreateCanned)))
	mux.Handle("POST /canned/{id}", s.page(d.Owner(d.UpdateCanned)))
	mux.Handle("POST /canned/{id}/delete", s.page(d.Owner(d.DeleteCanned)))
	mux.Handle("GET /conversations/{id}/visitor/export", s.page(d.Owner(d.ExportVisitor)))
	mux.Handle("GET /conversations/{id}/visitor/delete", s.page(d.Owner(d.DeleteVisitorPage)))
	mux.Handle("POST /conversations/{id}/visitor/delete", s.page(d.Owner(d.DeleteVisitor)))
	mux.Handle("GET /agents", s.page(d.Owner(d.Agents)))
	mux.Handle("POST /agents", s.page(d.Owner(d.CreateAgent)))
	mux.Handle("GET /agents/{id}", s.page(d.Owner(d.Agent)))
	mux.Handle("POST /agents/{id}", s.page(d.Owner(d.UpdateAgent)))
	mux.Handle("POST /agents/{id}/keys", s.page(d.Owner(d.RotateKey)))
	mux.Handle("POST /agents/{id}/identity-secret", s.page(d.Owner(d.RotateIdentitySecret)))
	mux.Handle("POST /agents/{id}/keys/{key}/active", s.page(d.Owner(d.SetKeyActive)))
	mux.Handle("POST /agents/{id}/knowledge", s.page(d.Owner(d.AddKnowledge)))
	mux.Handle("POST /agents/{id}/knowledge/{item}", s.page(d.Owner(d.UpdateKnowledge)))
	mux.Handle("POST /agents/{id}/knowledge/{item}/delete", s.page(d.Owner(d.DeleteKnowledge)))
	mux.Handle("GET /agents/{id}/sources", s.page(d.Owner(d.SourcesList)))
	mux.Handle("POST /agents/{id}/sources", s.page(d.Owner(d.AddSource)))
	mux.Handle("GET /agents/{id}/sources/{sid}", s.page(d.Owner(d.Source)))
	mux.Handle("POST /agents/{id}/sources/{sid}/sync", s.page(d.Owner(d.SyncSource)))
	mux.Handle("POST /agents/{id}/sources/{sid}/delete", s.page(d.Owner(d.DeleteSource)))
	mux.Handle("GET /usage", s.page(d.User(d.Usage)))
	mux.Handle("GET /team", s.page(d.Owner(d.Team)))
	mux.Handle("POST /team/members", s.page(d.Owner(d.InviteMember)))
	mux.Handle("POST /team/members/{id}/delete", s.page(d.Owner(d.RemoveMember)))
	mux.Handle("POST /team/tokens", s.page(d.Owner(d.CreateToken)))
	mux.Handle("POST /team/tokens/{id}/revoke", s.page(d.Owner(d.RevokeToken)))
	mux.Handle("GET /audit", s.page(d.Owner(d.AuditLog)))
	mux.Handle("POST /team/retention", s.page(d.Owner(d.SetRetention)))
	mux.Handle("POST /team/hours", s.page(d.Owner(d.SetHours)))
	mux.Handle("GET /webhooks", s.page(d.Owner(d.WebhooksPage)))
	mux.Handle("POST /webhooks", s.page(d.Owner(d.CreateWebhook)))
	mux.Handle("GET /webhooks/{id}", s.page(d.Owner(d.Webhook)))
	mux.Handle("POST /webhooks/{id}/test", s.page(d.Owner(d.SendTestWebhook)))
	mux.Handle("GET /webhooks/{id}/delete", s.page(d.Owner(d.DeleteWebhookPage)))
	mux.Handle("POST /webhooks/{id}/delete", s.page(d.Owner(d.DeleteWebhook)))
	return mux
}
