package dashboard

import (
	"errors"
	"net/http"
	"parley/internal/agentadmin"
	"parley/internal/domain"
)

// AddKnowledge adds a question and answer (kind=qa) or a document
// (kind=document), pasted or uploaded as a file.
func (d *Dashboard) AddKnowledge(w http.ResponseWriter, r *http.Request) {
	if status, key := readAgentForm(w, r, maxKnowledgeForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	e := domain.KnowledgeEntry{Kind: r.PostFormValue("kind"), Lang: r.PostFormValue("lang")}
	data := agentData{}
	switch e.Kind {
	case domain.KindDocument:
		e.Title, e.Text = r.PostFormValue("title"), r.PostFormValue("text")
		data.Doc = e // the draft: what was typed, not the file
		if status, key := uploadedDocument(r, &e); key != "" {
			d.showAgent(w, r, status, data, key)
			return
		}
	default:
		e.Kind = domain.KindQA
		e.Question, e.Answer = r.PostFormValue("question"), r.PostFormValue("answer")
		data.QA = e
	}
	id := r.PathValue("id")
	_, err := d.AgentAdmin.AddKnowledge(r.Context(), user(r).AccountID, id, e)
	if status, key := knowledgeRefusal(err); key != "" {
		d.showAgent(w, r, status, data, key)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+id+"?flash=kb.added#knowledge", http.StatusSeeOther)
}

// UpdateKnowledge edits one item; its kind stays.
func (d *Dashboard) UpdateKnowledge(w http.ResponseWriter, r *http.Request) {
	acc, id, itemID := user(r).AccountID, r.PathValue("id"), r.PathValue("item")
	item, err := d.AgentAdmin.KnowledgeItem(r.Context(), acc, id, itemID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	if status, key := readAgentForm(w, r, maxKnowledgeForm); key != "" {
		d.showAgent(w, r, status, agentData{}, key)
		return
	}
	form := func(k string) *string { v := r.PostFormValue(k); return &v }
	p := agentadmin.KnowledgePatch{Lang: form("lang")}
	if item.IsDocument() {
		p.Title, p.Text = form("title"), form("text")
	} else {
		p.Question, p.Answer = form("question"), form("answer")
	}
	_, err = d.AgentAdmin.UpdateKnowledge(r.Context(), acc, id, itemID, p)
	if status, key := knowledgeRefusal(err); key != "" {
		draft := p.Apply(item)
		d.showAgent(w, r, status, agentData{edit: &draft}, key)
		return
	}
	if err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+id+"?flash=kb.saved#kb-"+itemID, http.StatusSeeOther)
}

func (d *Dashboard) DeleteKnowledge(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := d.AgentAdmin.DeleteKnowledge(r.Context(), user(r).AccountID, id, r.PathValue("item")); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/agents/"+id+"?flash=kb.deleted#knowledge", http.StatusSeeOther)
}

// knowledgeRefusal is the status and message key for agentadmin's refusal
// of an item, instead of the API's English text: an invalid item (400) or
// one past the agent's bounds (413). Fields a form cannot mix up (kind,
// language: selects) fail only for a tampered form, with the generic
// message. Any other error, and nil, give "".
func knowledgeRefusal(err error) (int, string) {
	var ke *domain.KnowledgeError
	switch {
	case errors.As(err, &ke):
		if key, ok := knowledgeMessage[ke.Problem]; ok {
			return http.StatusBadRequest, key
		}
		return http.StatusBadRequest, "agent.invalid"
	case limitKey(err) != "":
		return http.StatusRequestEntityTooLarge, limitKey(err)
	}
	return 0, ""
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
	// Uploaded files (agentadmin.FileDocument).
	domain.KnowledgeFileUnsupported: "kb.file.unsupported",
	domain.KnowledgeFileNoText:      "kb.file.notext",
	domain.KnowledgeFileNoContent:   "kb.file.nocontent",
	domain.KnowledgeFileDamaged:     "kb.file.damaged",
}
