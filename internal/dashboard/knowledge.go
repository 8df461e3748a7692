package dashboard

import (
	"errors"
	"net/http"
	"parley/internal/domain"
)

// AddKnowledge adds a question and answer (kind=qa) or a document
// (kind=document), pasted or uploaded as a file.
func (d *Dashboard) AddKnowledge(w http.ResponseWriter, r *http.Request) {
	ag, err := d.agent(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if status, key := readAgentForm(w, r, maxKnowledgeForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	e := domain.KnowledgeEntry{Kind: r.PostFormValue("kind"), Lang: r.PostFormValue("lang")}
	data := agentData{}
	status, key := http.StatusBadRequest, ""
	switch e.Kind {
	case domain.KindDocument:
		e.Title, e.Text = r.PostFormValue("title"), r.PostFormValue("text")
		data.Doc = e // the draft: what was typed, not the file
		if code, k := uploadedDocument(r, &e); k != "" {
			status, key = code, k
		}
	default:
		e.Kind = domain.KindQA
		e.Question, e.Answer = r.PostFormValue("question"), r.PostFormValue("answer")
		data.QA = e
	}
	if key == "" {
		e, key = checkKnowledge(e)
	}
	if key != "" {
		d.showAgent(w, r, status, data, key)
		return
	}
	if _, err := d.Store.AddKnowledge(r.Context(), ag.AccountID, ag.ID, e, d.Bounds.Knowledge); limitKey(err) != "" {
		d.showAgent(w, r, http.StatusRequestEntityTooLarge, data, limitKey(err))
		return
	} else if err != nil {
		d.fail(w, r, err)
		return
	}
	d.Invalidate(ag.ID)
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=kb.added#knowledge", http.StatusSeeOther)
}

// UpdateKnowledge edits one item; its kind stays.
func (d *Dashboard) UpdateKnowledge(w http.ResponseWriter, r *http.Request) {
	ag, e, err := d.knowledgeItem(r)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if status, key := readAgentForm(w, r, maxKnowledgeForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	e.Lang = r.PostFormValue("lang")
	if e.IsDocument() {
		e.Title, e.Text = r.PostFormValue("title"), r.PostFormValue("text")
	} else {
		e.Question, e.Answer = r.PostFormValue("question"), r.PostFormValue("answer")
	}
	checked, key := checkKnowledge(e)
	if key != "" {
		d.showAgent(w, r, http.StatusBadRequest, agentData{edit: &e}, key)
		return
	}
	checked.ID = e.ID
	if _, err := d.Store.UpdateKnowledge(r.Context(), ag.AccountID, ag.ID, checked, d.Bounds.Knowledge); limitKey(err) != "" {
		d.showAgent(w, r, http.StatusRequestEntityTooLarge, agentData{edit: &e}, limitKey(err))
		return
	} else if err != nil {
		d.fail(w, r, err)
		return
	}
	d.Invalidate(ag.ID)
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=kb.saved#kb-"+e.ID, http.StatusSeeOther)
}

func (d *Dashboard) DeleteKnowledge(w http.ResponseWriter, r *http.Request) {
	ag, e, err := d.knowledgeItem(r)
	if err == nil {
		err = d.Store.DeleteKnowledge(r.Context(), ag.AccountID, ag.ID, e.ID)
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	d.Invalidate(ag.ID)
	http.Redirect(w, r, "/agents/"+ag.ID+"?flash=kb.deleted#knowledge", http.StatusSeeOther)
}

// knowledgeItem finds the item {item} of the account's agent {id}.
func (d *Dashboard) knowledgeItem(r *http.Request) (domain.Agent, domain.KnowledgeEntry, error) {
	ag, err := d.agent(r)
	if err != nil {
		return ag, domain.KnowledgeEntry{}, err
	}
	entries, err := d.Store.Knowledge(r.Context(), ag.ID)
	if err != nil {
		return ag, domain.KnowledgeEntry{}, err
	}
	for _, e := range entries {
		if e.ID == r.PathValue("item") {
			return ag, e, nil
		}
	}
	return ag, domain.KnowledgeEntry{}, domain.ErrNotFound
}

// checkKnowledge applies domain.CheckKnowledge, the management API's
// rules, and answers with the message key to show instead of the API's
// English text. Fields a form cannot mix up (kind, language: selects) fail
// only for a tampered form, with the generic message.
func checkKnowledge(e domain.KnowledgeEntry) (domain.KnowledgeEntry, string) {
	e, err := domain.CheckKnowledge(e)
	var ke *domain.KnowledgeError
	switch {
	case err == nil:
		return e, ""
	case !errors.As(err, &ke):
		return e, "agent.invalid"
	}
	if key, ok := knowledgeMessage[ke.Problem]; ok {
		return e, key
	}
	return e, "agent.invalid"
}

// knowledgeMessage maps the problems a visitor of the form can cause to
// message keys.
var knowledgeMessage = map[domain.KnowledgeProblem]string{
	domain.KnowledgeQAMissing:  "kb.qa.missing",
	domain.KnowledgeQALong:     "kb.qa.long",
	domain.KnowledgeDocMissing: "kb.doc.missing",
	domain.KnowledgeDocLong:    "kb.doc.long",
	domain.KnowledgeNotUTF8:    "kb.doc.utf8",
	domain.KnowledgeNUL:        "kb.doc.utf8",
}
