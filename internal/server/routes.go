package server

import "net/http"

// routes lists every route of Parley on one screen.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	w, m := s.widget, s.manage

	// The public widget API (spec). CORS and the per-IP rate limit are
	// applied to the whole /api/widget/ prefix in ServeHTTP.
	mux.HandleFunc("POST /api/widget/init", w.Init)
	mux.HandleFunc("POST /api/widget/chat", w.Chat)
	mux.HandleFunc("GET /api/widget/poll", w.Poll)
	mux.Handle("GET /widget.js", s.widgetJS)

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
	mux.HandleFunc("PATCH /api/v1/keys/{key}", m.Auth(m.UpdateKey))
	mux.HandleFunc("GET /api/v1/conversations", m.Auth(m.ListConversations))
	mux.HandleFunc("GET /api/v1/conversations/{id}", m.Auth(m.GetConversation))
	mux.HandleFunc("POST /api/v1/conversations/{id}/takeover", m.Auth(m.TakeOver))
	mux.HandleFunc("POST /api/v1/conversations/{id}/release", m.Auth(m.Release))
	mux.HandleFunc("POST /api/v1/conversations/{id}/messages", m.Auth(m.OperatorMessage))
	mux.HandleFunc("GET /api/v1/usage", m.Auth(m.Usage))
	mux.Handle("GET /api/openapi.json", s.openAPI)

	// Operations and pages.
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /metrics", s.Registry)
	mux.HandleFunc("GET /demo", s.demo)
	mux.Handle("GET /demo.css", s.demoCSS)
	mux.Handle("GET /{$}", s.index)
	return mux
}
