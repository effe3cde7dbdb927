package pronunciation

import (
	"net/http"
	"strconv"
	"strings"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// Handlers serves /v1/pronunciation-dictionaries.
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	read, write := httpx.Perm("pronunciation_dictionaries_read"), httpx.Perm("pronunciation_dictionaries_write")
	rt.Authed("POST /v1/pronunciation-dictionaries/add-from-file", h.addFromFile, write)
	rt.Authed("POST /v1/pronunciation-dictionaries/add-from-rules", h.addFromRules, write)
	rt.Authed("GET /v1/pronunciation-dictionaries", h.list, read)
	rt.Authed("GET /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}", h.get, read)
	rt.Authed("PATCH /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}", h.patch, write)
	rt.Authed("POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/add-rules", h.addRules, write)
	rt.Authed("POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/remove-rules", h.removeRules, write)
	rt.Authed("POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/set-rules", h.setRules, write)
	rt.Authed("GET /v1/pronunciation-dictionaries/{dictionary_id}/{version_id}/download", h.download, read)
}

func (h *Handlers) limit() int64 {
	// A dictionary of MaxRules rules of long strings needs room; the server's body limit caps it.
	if h.MaxBody > 0 {
		return h.MaxBody
	}
	return 8 << 20
}

func (h *Handlers) addFromFile(w http.ResponseWriter, r *http.Request) error {
	f, err := httpx.ReadForm(r, MaxPLSBytes, "file")
	if err != nil {
		return err
	}
	var v errs.Validator
	if f.File == nil {
		v.Add("body", "file", "missing", "Field required: a PLS lexicon file.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	rules, err := ParsePLS(f.File)
	if err != nil {
		return errs.Field("body", "file", "value_error", "The file is not a usable PLS lexicon: "+err.Error()+".")
	}
	in := CreateInput{Name: f.Value("name"), Rules: rules}
	if d, ok := f.Fields["description"]; ok && len(d) > 0 {
		in.Description = &d[0]
	}
	out, err := h.Svc.Create(r.Context(), access.CallerFrom(r.Context()), in)
	if err != nil {
		return renameRules(err)
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// renameRules names the uploaded file in errors about the rules it held.
func renameRules(err error) error {
	if val, ok := err.(*errs.Validation); ok {
		for i := range val.Fields {
			f := &val.Fields[i]
			if name, _ := f.Loc[len(f.Loc)-1].(string); strings.HasPrefix(name, "rules") {
				f.Loc = []any{"body", "file"}
				f.Msg = "The lexicon has a rule that cannot be used (" + name + "): " + f.Msg
			}
		}
	}
	return err
}

type rulesBody struct {
	Rules           *[]Rule `json:"rules"`
	Name            *string `json:"name"`
	Description     *string `json:"description"`
	WorkspaceAccess *string `json:"workspace_access"`
}

func (h *Handlers) addFromRules(w http.ResponseWriter, r *http.Request) error {
	var b rulesBody
	if err := httpx.DecodeJSON(r, h.limit(), &b); err != nil {
		return err
	}
	var v errs.Validator
	if b.Rules == nil {
		v.Add("body", "rules", "missing", "Field required: the rules.")
	}
	if b.Name == nil {
		v.Add("body", "name", "missing", "Field required: the dictionary's name.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	out, err := h.Svc.Create(r.Context(), access.CallerFrom(r.Context()), CreateInput{Name: *b.Name, Description: b.Description, Rules: *b.Rules})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v errs.Validator
	in := ListInput{PageSize: 30, IncludeArchived: true}
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			v.Add("query", "page_size", "value_error", "Input should be an integer between 1 and 100.")
		}
		in.PageSize = n
	}
	switch q.Get("sort") {
	case "", "creation_time_unix", "created_at_unix":
	case "name":
		in.ByName = true
	default:
		v.Add("query", "sort", "enum", "Input should be 'creation_time_unix' or 'name'.")
	}
	switch strings.ToLower(q.Get("sort_direction")) {
	case "", "descending", "desc":
	case "ascending", "asc":
		in.Ascending = true
	default:
		v.Add("query", "sort_direction", "enum", "Input should be 'ascending' or 'descending'.")
	}
	if s := q.Get("include_archived"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			v.Add("query", "include_archived", "bool_parsing", "Input should be a valid boolean.")
		}
		in.IncludeArchived = b
	}
	in.Cursor = q.Get("cursor")
	if err := v.Err(); err != nil {
		return err
	}
	out, err := h.Svc.List(r.Context(), access.CallerFrom(r.Context()), in)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) get(w http.ResponseWriter, r *http.Request) error {
	out, err := h.Svc.Get(r.Context(), access.CallerFrom(r.Context()), r.PathValue("pronunciation_dictionary_id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) patch(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Name     *string `json:"name"`
		Archived *bool   `json:"archived"`
	}
	if err := httpx.DecodeJSON(r, h.limit(), &b); err != nil {
		return err
	}
	out, err := h.Svc.Update(r.Context(), access.CallerFrom(r.Context()), r.PathValue("pronunciation_dictionary_id"), b.Name, b.Archived)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) addRules(w http.ResponseWriter, r *http.Request) error {
	return h.rulesChange(w, r, func(c *access.Caller, id string, rules []Rule) (*Changed, error) {
		return h.Svc.AddRules(r.Context(), c, id, rules)
	})
}

func (h *Handlers) setRules(w http.ResponseWriter, r *http.Request) error {
	return h.rulesChange(w, r, func(c *access.Caller, id string, rules []Rule) (*Changed, error) {
		return h.Svc.SetRules(r.Context(), c, id, rules)
	})
}

func (h *Handlers) rulesChange(w http.ResponseWriter, r *http.Request, do func(*access.Caller, string, []Rule) (*Changed, error)) error {
	var b struct {
		Rules *[]Rule `json:"rules"`
	}
	if err := httpx.DecodeJSON(r, h.limit(), &b); err != nil {
		return err
	}
	if b.Rules == nil {
		return errs.Field("body", "rules", "missing", "Field required: the rules.")
	}
	out, err := do(access.CallerFrom(r.Context()), r.PathValue("pronunciation_dictionary_id"), *b.Rules)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) removeRules(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		RuleStrings *[]string `json:"rule_strings"`
	}
	if err := httpx.DecodeJSON(r, h.limit(), &b); err != nil {
		return err
	}
	if b.RuleStrings == nil {
		return errs.Field("body", "rule_strings", "missing", "Field required: the strings whose rules to remove.")
	}
	out, err := h.Svc.RemoveRules(r.Context(), access.CallerFrom(r.Context()), r.PathValue("pronunciation_dictionary_id"), *b.RuleStrings)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) download(w http.ResponseWriter, r *http.Request) error {
	data, name, err := h.Svc.Download(r.Context(), access.CallerFrom(r.Context()), r.PathValue("dictionary_id"), r.PathValue("version_id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", httpx.AttachmentDisposition(name))
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
	return nil
}
