// Package history serves a workspace's generations: listing, audio, download (one file or a zip),
// deletion, feedback, and public share links.
package history

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/account"
	"timbre/internal/audio"
	"timbre/internal/blob"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Handlers serves the history routes.
type Handlers struct {
	DB        Store
	Blob      *blob.Store
	PublicURL string
	MaxBody   int64
	// OnDelete is told about a deleted item so its audio can be purged later; may be nil.
	OnDelete func(workspaceID, id string)
}

// Feedback limits (spec §5, §9).
const (
	FeedbackMax = 200
	FeedbackMin = 20
	// MaxDownloadItems bounds one zip download.
	MaxDownloadItems = 100
)

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Authed("GET /v1/history", h.list, httpx.Perm("speech_history_read"))
	rt.Authed("GET /v1/history/{history_item_id}", h.get, httpx.Perm("speech_history_read"))
	rt.Authed("GET /v1/history/{history_item_id}/audio", h.audio, httpx.Perm("speech_history_read"))
	rt.Authed("DELETE /v1/history/{history_item_id}", h.delete, httpx.Perm("speech_history_write"))
	rt.Authed("POST /v1/history/download", h.download, httpx.Perm("speech_history_read"))
	rt.Authed("POST /v1/history/{history_item_id}/feedback", h.feedback, httpx.Perm("speech_history_write"))
	rt.Authed("GET /v1/history/{history_item_id}/share-link", h.shareLink, httpx.Perm("speech_history_write"))
	rt.Public("GET /api/share/{token}", h.shared)
	rt.Public("GET /api/share/{token}/audio", h.sharedAudio)
}

func notFound(id string) error {
	return errs.Errorf(errs.NotFound, "history_item_not_found", "History item '%s' was not found.", id)
}

// item loads the path's item for an action that needs resource role need.
func (h *Handlers) item(r *http.Request, need string) (*store.HistoryItem, error) {
	return h.access(r, r.PathValue("history_item_id"), need)
}

// access loads an item the caller may act on with at least resource role need ("viewer",
// "commenter", "editor" or "admin"): their own, any item of the workspace for its admins (the
// spec's admin access to members' audio), or one shared with them (directly, through a group or
// with the whole workspace). An item they cannot see is not found; one they see but may not
// change is forbidden.
func (h *Handlers) access(r *http.Request, id, need string) (*store.HistoryItem, error) {
	ctx := r.Context()
	c := access.CallerFrom(ctx)
	it, err := h.DB.History(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound(id)
	}
	if err != nil || it.UserID == c.UserID || c.Role == access.RoleAdmin {
		return it, err
	}
	role, err := h.DB.SharedRole(ctx, c.WorkspaceID, store.ResourceHistory, id, c.UserID)
	if err != nil {
		return nil, err
	}
	switch {
	case role == "":
		return nil, notFound(id)
	case store.ResourceRoleRank(role) < store.ResourceRoleRank(need):
		return nil, errs.Errorf(errs.Forbidden, "insufficient_resource_role",
			"History item '%s' is shared with you as %s; this needs %s access.", id, role, need)
	}
	return it, nil
}

// Item is the API's SpeechHistoryItemResponseModel. The stored JSON columns pass through as they
// are (no decode and re-encode: a page of items with alignments is large).
type Item struct {
	HistoryItemID            string          `json:"history_item_id"`
	RequestID                string          `json:"request_id"`
	VoiceID                  string          `json:"voice_id"`
	ModelID                  string          `json:"model_id"`
	VoiceName                string          `json:"voice_name"`
	VoiceCategory            string          `json:"voice_category"`
	Text                     string          `json:"text"`
	DateUnix                 int64           `json:"date_unix"`
	CharacterCountChangeFrom int64           `json:"character_count_change_from"`
	CharacterCountChangeTo   int64           `json:"character_count_change_to"`
	ContentType              string          `json:"content_type"`
	State                    string          `json:"state"`
	Settings                 json.RawMessage `json:"settings"`
	Feedback                 json.RawMessage `json:"feedback"`
	ShareLinkID              *string         `json:"share_link_id"`
	Source                   string          `json:"source"`
	Alignments               json.RawMessage `json:"alignments"`
	Dialogue                 json.RawMessage `json:"dialogue"`
	OutputFormat             string          `json:"output_format"`
}

// Page is a page of GET /v1/history (GetSpeechHistoryResponseModel); the cursor fields are null
// on an empty page.
type Page struct {
	History           []Item  `json:"history"`
	HasMore           bool    `json:"has_more"`
	LastHistoryItemID *string `json:"last_history_item_id"`
	ScannedUntil      *int64  `json:"scanned_until"`
}

// ShareLink is the answer to creating an item's public link.
type ShareLink struct {
	ShareLink      string `json:"share_link"`
	PublicUserName string `json:"public_user_name"`
}

// SharedItem is what a public link shows of an item.
type SharedItem struct {
	Text        string `json:"text"`
	VoiceName   string `json:"voice_name"`
	DateUnix    int64  `json:"date_unix"`
	ContentType string `json:"content_type"`
	AudioURL    string `json:"audio_url"`
}

// JSON renders an item in the API's shape.
func JSON(it *store.HistoryItem) Item {
	raw := func(s string) json.RawMessage {
		if s == "" {
			return json.RawMessage("null")
		}
		return json.RawMessage(s)
	}
	out := Item{
		HistoryItemID: it.ID, RequestID: it.RequestID, VoiceID: it.VoiceID, ModelID: it.ModelID, VoiceName: it.VoiceName,
		VoiceCategory: it.VoiceCategory, Text: it.Text, DateUnix: it.DateUnix, CharacterCountChangeFrom: it.CharFrom,
		CharacterCountChangeTo: it.CharTo, ContentType: it.ContentType, State: it.State, Settings: raw(it.Settings),
		Feedback: raw(it.Feedback), Source: it.Source, Alignments: raw(it.Alignments), Dialogue: DialogueJSON(it.Dialogue), OutputFormat: it.OutputFormat,
	}
	if string(out.Dialogue) != "null" {
		// As the reference has it: a dialogue item's lines carry the texts and voices.
		out.Text, out.VoiceID = "", ""
	}
	if it.ShareToken != "" {
		out.ShareLinkID = &it.ShareToken
	}
	return out
}

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v errs.Validator
	f := store.HistoryFilter{PageSize: 100, StartAfterID: q.Get("start_after_history_item_id"), VoiceID: q.Get("voice_id"),
		ModelID: q.Get("model_id"), Search: q.Get("search"), Source: q.Get("source")}
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			v.Add("query", "page_size", "value_error", "Input should be an integer between 1 and 1000.")
		}
		f.PageSize = n
	}
	if f.Source != "" && f.Source != "TTS" && f.Source != "STS" && f.Source != "Flows" {
		v.Add("query", "source", "enum", "Input should be 'TTS', 'STS' or 'Flows'.")
	}
	for name, dst := range map[string]*int64{"date_before_unix": &f.DateBefore, "date_after_unix": &f.DateAfter} {
		if s := q.Get(name); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				v.Add("query", name, "int_parsing", "Input should be a valid integer.")
			}
			*dst = n
		}
	}
	switch q.Get("sort_direction") {
	case "", "desc":
	case "asc":
		f.Ascending = true
	default:
		v.Add("query", "sort_direction", "enum", "Input should be 'asc' or 'desc'.")
	}
	if len(f.Search) > 500 {
		v.Add("query", "search", "too_long", "At most 500 characters.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	// The list is personal: a member's own generations and those shared with them (admins reach
	// other members' items by id).
	c := access.CallerFrom(r.Context())
	f.VisibleTo = c.UserID
	items, more, err := h.DB.ListHistory(r.Context(), c.WorkspaceID, f)
	if errors.Is(err, store.ErrNotFound) {
		return errs.Field("query", "start_after_history_item_id", "value_error", "No history item with that id.")
	}
	if err != nil {
		return err
	}
	out := make([]Item, 0, len(items))
	for i := range items {
		out = append(out, JSON(&items[i]))
	}
	page := Page{History: out, HasMore: more}
	if len(items) > 0 {
		page.LastHistoryItemID = &items[len(items)-1].ID
		page.ScannedUntil = &items[len(items)-1].DateUnix
	}
	httpx.WriteJSON(w, http.StatusOK, page)
	return nil
}

func (h *Handlers) get(w http.ResponseWriter, r *http.Request) error {
	it, err := h.item(r, "viewer")
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, JSON(it))
	return nil
}

func (h *Handlers) audioOf(r *http.Request, it *store.HistoryItem) ([]byte, error) {
	if it.State != store.StateCreated || it.BlobKey == "" {
		return nil, errs.Errorf(errs.NotFound, "history_audio_not_found", "The audio of history item '%s' is not ready.", it.ID)
	}
	data, err := h.Blob.Get(r.Context(), it.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, errs.Errorf(errs.NotFound, "history_audio_not_found", "The audio of history item '%s' is gone.", it.ID)
	}
	return data, err
}

func (h *Handlers) audio(w http.ResponseWriter, r *http.Request) error {
	it, err := h.item(r, "viewer")
	if err != nil {
		return err
	}
	data, err := h.audioOf(r, it)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", it.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, err = w.Write(data)
	return err
}

func (h *Handlers) delete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("history_item_id")
	ws := access.CallerFrom(r.Context()).WorkspaceID
	if _, err := h.item(r, "editor"); err != nil {
		return err
	}
	err := h.DB.MarkHistoryDeleted(r.Context(), ws, id, time.Now())
	if errors.Is(err, store.ErrNotFound) {
		return notFound(id)
	}
	if err != nil {
		return err
	}
	if h.OnDelete != nil {
		h.OnDelete(ws, id)
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) download(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		IDs          []string `json:"history_item_ids"`
		OutputFormat *string  `json:"output_format"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var v errs.Validator
	if len(body.IDs) == 0 {
		v.Add("body", "history_item_ids", "missing", "Field required: at least one history item id.")
	} else if len(body.IDs) > MaxDownloadItems {
		v.Add("body", "history_item_ids", "too_long", fmt.Sprintf("At most %d items per download.", MaxDownloadItems))
	}
	wav := false
	if body.OutputFormat != nil && *body.OutputFormat != "" {
		if *body.OutputFormat != "wav" {
			v.Add("body", "output_format", "enum", "Input should be 'wav' or left out (the original format).")
		}
		wav = true
	}
	if err := v.Err(); err != nil {
		return err
	}
	type file struct {
		name string
		data []byte
		ct   string
	}
	var files []file
	used := map[string]int{}
	for _, id := range body.IDs {
		it, err := h.access(r, id, "viewer")
		if err != nil {
			return err
		}
		data, err := h.audioOf(r, it)
		if err != nil {
			return err
		}
		ext, ct := extOf(it), it.ContentType
		if wav && ext != "wav" {
			samples, rate, err := audio.Decode(r.Context(), data)
			if err != nil {
				return err
			}
			data, ext, ct = audio.WAV(samples, rate), "wav", "audio/wav"
		}
		name := FileName(it, ext)
		if n := used[name]; n > 0 {
			name = strings.TrimSuffix(name, "."+ext) + "_" + strconv.Itoa(n) + "." + ext
		}
		used[FileName(it, ext)]++
		files = append(files, file{name, data, ct})
	}
	if len(files) == 1 {
		w.Header().Set("Content-Type", files[0].ct)
		w.Header().Set("Content-Disposition", httpx.AttachmentDisposition(files[0].name))
		_, err := w.Write(files[0].data)
		return err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Store, Modified: time.Now()})
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="history.zip"`)
	_, err := w.Write(buf.Bytes())
	return err
}

func extOf(it *store.HistoryItem) string {
	if f, err := audio.ParseFormat(it.OutputFormat); err == nil {
		return f.Ext()
	}
	return "mp3"
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N}_.\-]`)

// FileName is the download name of an item (spec §5, §9): the voice and the start of the text
// with forbidden characters removed, spaces as underscores, the text cut to 20 characters, the
// voice settings as percent values, and the output format's extension.
func FileName(it *store.HistoryItem, ext string) string {
	clean := func(s string, n int) string {
		s = unsafeName.ReplaceAllString(strings.ReplaceAll(strings.TrimSpace(s), " ", "_"), "")
		if utf8.RuneCountInString(s) > n {
			s = string([]rune(s)[:n])
		}
		return s
	}
	var st struct {
		Stability       float64 `json:"stability"`
		SimilarityBoost float64 `json:"similarity_boost"`
		Style           float64 `json:"style"`
		UseSpeakerBoost bool    `json:"use_speaker_boost"`
	}
	_ = json.Unmarshal([]byte(it.Settings), &st)
	boost := ""
	if st.UseSpeakerBoost {
		boost = "_b"
	}
	date := time.Unix(it.DateUnix, 0).UTC().Format("2006-01-02T15_04_05")
	name := fmt.Sprintf("Timbre_%s_%s_s%d_sb%d_se%d%s_%s", date, clean(it.VoiceName, 40), pct(st.Stability), pct(st.SimilarityBoost), pct(st.Style), boost, clean(it.Text, 20))
	if len(name) > 250 {
		name = name[:250]
	}
	return strings.TrimRight(name, "_") + "." + ext
}

func pct(x float64) int { return int(x*100 + 0.5) }

type feedbackBody struct {
	ThumbsUp        *bool   `json:"thumbs_up"`
	Feedback        *string `json:"feedback"`
	Emotions        bool    `json:"emotions"`
	InaccurateClone bool    `json:"inaccurate_clone"`
	Glitches        bool    `json:"glitches"`
	AudioQuality    bool    `json:"audio_quality"`
	Other           bool    `json:"other"`
	ReviewStatus    string  `json:"review_status,omitempty"`
}

// ReviewedMessage is the spec's message for locked feedback.
const ReviewedMessage = "This feedback cannot be changed as it was already reviewed."

func (h *Handlers) feedback(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("history_item_id")
	var b feedbackBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	var v errs.Validator
	if b.ThumbsUp == nil {
		v.Add("body", "thumbs_up", "missing", "Field required.")
	}
	text := ""
	if b.Feedback != nil {
		text = strings.TrimSpace(*b.Feedback)
	}
	if n := utf8.RuneCountInString(text); n > FeedbackMax {
		v.Add("body", "feedback", "too_long", fmt.Sprintf("Feedback must be at most %d characters.", FeedbackMax))
	} else if n > 0 && n < FeedbackMin {
		v.Add("body", "feedback", "too_short", fmt.Sprintf("Feedback must be at least %d characters.", FeedbackMin))
	}
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := h.item(r, "commenter"); err != nil {
		return err
	}
	b.Feedback = &text
	b.ReviewStatus = "not_reviewed"
	data, _ := json.Marshal(b)
	err := h.DB.SetFeedback(r.Context(), access.CallerFrom(r.Context()).WorkspaceID, id, string(data))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return notFound(id)
	case errors.Is(err, store.ErrFeedbackReviewed):
		return errs.Errorf(errs.Invalid, "feedback_already_reviewed", ReviewedMessage)
	case err != nil:
		return err
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) shareLink(w http.ResponseWriter, r *http.Request) error {
	it, err := h.item(r, "admin") // a public link shares the item: the owner's right
	if err != nil {
		return err
	}
	if it.State != store.StateCreated {
		return errs.Errorf(errs.Conflict, "history_item_not_ready", "The item's audio is not ready yet.")
	}
	token, err := h.DB.SetShareToken(r.Context(), it.WorkspaceID, it.ID, store.RandomString(24))
	if err != nil {
		return err
	}
	u, err := h.DB.UserByID(r.Context(), it.UserID)
	name := ""
	if err == nil {
		name = account.PublicName(r.Context(), h.DB, u)
	}
	httpx.WriteJSON(w, http.StatusOK, ShareLink{ShareLink: httpx.PublicURL(r.Context(), h.PublicURL) + "/share/" + token, PublicUserName: name})
	return nil
}

func (h *Handlers) sharedItem(r *http.Request) (*store.HistoryItem, error) {
	it, err := h.DB.HistoryByShareToken(r.Context(), r.PathValue("token"))
	if errors.Is(err, store.ErrNotFound) {
		return nil, errs.Errorf(errs.NotFound, "share_link_not_found", "This share link does not exist or was removed.")
	}
	return it, err
}

func (h *Handlers) shared(w http.ResponseWriter, r *http.Request) error {
	it, err := h.sharedItem(r)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, SharedItem{Text: it.Text, VoiceName: it.VoiceName, DateUnix: it.DateUnix,
		ContentType: it.ContentType, AudioURL: "/api/share/" + it.ShareToken + "/audio"})
	return nil
}

func (h *Handlers) sharedAudio(w http.ResponseWriter, r *http.Request) error {
	it, err := h.sharedItem(r)
	if err != nil {
		return err
	}
	data, err := h.audioOf(r, it)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", it.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, err = w.Write(data)
	return err
}

// DialogueLine is one line of a text-to-dialogue item (DialogueInputResponseModel).
type DialogueLine struct {
	Text      string `json:"text"`
	VoiceID   string `json:"voice_id"`
	VoiceName string `json:"voice_name"`
}

// MaxDialogueLines is the most lines a stored dialogue keeps (spec §5).
const MaxDialogueLines = 50

// DialogueJSON is a row's stored dialogue as the API returns it: kept only if every line has a
// non-empty text and a voice_id and there are at most MaxDialogueLines; otherwise (and when it
// does not parse) null.
func DialogueJSON(stored string) json.RawMessage {
	null := json.RawMessage("null")
	if stored == "" {
		return null
	}
	var lines []DialogueLine
	if err := json.Unmarshal([]byte(stored), &lines); err != nil || len(lines) == 0 || len(lines) > MaxDialogueLines {
		return null
	}
	for _, l := range lines {
		if strings.TrimSpace(l.Text) == "" || l.VoiceID == "" {
			return null
		}
	}
	out, err := json.Marshal(lines)
	if err != nil {
		return null
	}
	return out
}
