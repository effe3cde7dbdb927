package voice

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// MaxSimilarClipBytes bounds the clip of POST /v1/similar-voices.
const MaxSimilarClipBytes = 25 << 20

// libraryRoutes registers publishing, the library, copies, collections and similar voices.
func (h *Handlers) libraryRoutes(rt *httpx.Router) {
	rt.Authed("POST /v1/voices/{voice_id}/share", h.share, httpx.Perm("voices_write"))
	rt.Authed("DELETE /v1/voices/{voice_id}/share", h.unshare, httpx.Perm("voices_write"))
	rt.Authed("GET /v1/shared-voices", h.sharedVoices, httpx.Perm("voices_read"))
	rt.Authed("POST /v1/voices/add/{public_user_id}/{voice_id}", h.addShared, httpx.Perm("voices_write"), httpx.MountAs("POST /v1/voices/{add}/{public_user_id}/{voice_id}"))
	rt.Authed("POST /v1/similar-voices", h.similar, httpx.Perm("voices_read"))
	rt.Authed("GET /v1/voices/collections", h.listCollections, httpx.Perm("voices_read"))
	rt.Authed("POST /v1/voices/collections", h.createCollection, httpx.Perm("voices_write"))
	// These overlap GET /v1/voices/{voice_id}/settings, DELETE /v1/voices/{voice_id}/share and
	// POST /v1/voices/{voice_id}/settings/edit in Go's mux: mounted wider, the handler checks the
	// fixed segment.
	rt.Authed("GET /v1/voices/collections/{collection_id}", h.getCollection, httpx.Perm("voices_read"), httpx.MountAs("GET /v1/voices/{collections}/{collection_id}"))
	rt.Authed("DELETE /v1/voices/collections/{collection_id}", h.deleteCollection, httpx.Perm("voices_write"), httpx.MountAs("DELETE /v1/voices/{collections}/{collection_id}"))
	rt.Authed("PATCH /v1/voices/collections/{collection_id}", h.updateCollection, httpx.Perm("voices_write"))
	rt.Authed("POST /v1/voices/collections/{collection_id}/voice/{voice_id}", h.collectVoice, httpx.Perm("voices_write"))
	rt.Authed("DELETE /v1/voices/collections/{collection_id}/voice/{voice_id}", h.uncollectVoice, httpx.Perm("voices_write"))
}

// errNoRoute is the answer of a wider mount for a path that is not its route.
var errNoRoute = errs.New(errs.NotFound, "not_found", "No such route.")

// Sharing is the reference's VoiceSharingResponseModel.
type Sharing struct {
	Status                  string            `json:"status"`
	HistoryItemSampleID     *string           `json:"history_item_sample_id"`
	DateUnix                int64             `json:"date_unix"`
	WhitelistedEmails       []string          `json:"whitelisted_emails"`
	PublicOwnerID           string            `json:"public_owner_id"`
	OriginalVoiceID         string            `json:"original_voice_id"`
	FinancialRewardsEnabled bool              `json:"financial_rewards_enabled"`
	FreeUsersAllowed        bool              `json:"free_users_allowed"`
	LiveModerationEnabled   bool              `json:"live_moderation_enabled"`
	Rate                    *float64          `json:"rate"`
	FiatRate                *float64          `json:"fiat_rate"`
	NoticePeriod            int               `json:"notice_period"`
	DisableAtUnix           *int64            `json:"disable_at_unix"`
	VoiceMixingAllowed      bool              `json:"voice_mixing_allowed"`
	Featured                bool              `json:"featured"`
	Category                string            `json:"category"`
	ReaderAppEnabled        *bool             `json:"reader_app_enabled"`
	ImageURL                *string           `json:"image_url"`
	BanReason               *string           `json:"ban_reason"`
	LikedByCount            int               `json:"liked_by_count"`
	ClonedByCount           int               `json:"cloned_by_count"`
	Name                    string            `json:"name"`
	Description             *string           `json:"description"`
	Labels                  map[string]string `json:"labels"`
	ReviewStatus            string            `json:"review_status"`
	ReviewMessage           *string           `json:"review_message"`
	EnabledInLibrary        bool              `json:"enabled_in_library"`
	InstagramUsername       *string           `json:"instagram_username"`
	TwitterUsername         *string           `json:"twitter_username"`
	YoutubeUsername         *string           `json:"youtube_username"`
	TiktokUsername          *string           `json:"tiktok_username"`
	ModerationCheck         *struct{}         `json:"moderation_check"`
	ReaderRestrictedOn      []string          `json:"reader_restricted_on"`
}

// SharingJSON renders a voice's sharing row.
func SharingJSON(v *store.Voice, s *store.VoiceShare) *Sharing {
	labels := map[string]string{}
	_ = json.Unmarshal([]byte(v.Labels), &labels)
	desc, reader := s.Description, s.ReaderApp
	out := &Sharing{Status: s.Status, DateUnix: s.DateUnix, WhitelistedEmails: []string{}, PublicOwnerID: s.PublicOwnerID,
		OriginalVoiceID: s.OriginalVoiceID, FinancialRewardsEnabled: s.FinancialRewards, FreeUsersAllowed: s.FreeUsersAllowed,
		LiveModerationEnabled: s.LiveModeration, NoticePeriod: s.NoticePeriod, VoiceMixingAllowed: s.VoiceMixing, Featured: s.Featured,
		Category: v.Category, ReaderAppEnabled: &reader, ClonedByCount: s.ClonedByCount, Name: v.Name, Description: &desc,
		Labels: labels, ReviewStatus: "not_requested", EnabledInLibrary: s.Status == ShareEnabled}
	if s.OriginalVoiceID == "" {
		out.OriginalVoiceID = v.ID
	}
	if s.DisableAt > 0 {
		d := s.DisableAt
		out.DisableAtUnix = &d
	}
	return out
}

// withSharing fills the sharing object of the workspace voices of a rendered list.
func (h *Handlers) withSharing(r *http.Request, c *access.Caller, voices []store.Voice, out []Voice) error {
	var ids []string
	for _, v := range voices {
		if v.WorkspaceID != "" {
			ids = append(ids, v.ID)
		}
	}
	shares, err := h.Svc.DB.VoiceSharesOf(r.Context(), c.WorkspaceID, ids)
	if err != nil {
		return err
	}
	for i := range voices {
		if s, ok := shares[voices[i].ID]; ok {
			b, _ := json.Marshal(SharingJSON(&voices[i], &s))
			out[i].Sharing = b
			if s.Status == ShareCopied { // a copy is the workspace's to use, not to own
				out[i].IsOwner = false
			}
		}
	}
	return nil
}

func (h *Handlers) share(w http.ResponseWriter, r *http.Request) error {
	var body ShareRequest
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	s, err := h.Svc.Share(r.Context(), c, r.PathValue("voice_id"), body)
	if err != nil {
		return err
	}
	return h.writeSharing(w, r, c, s)
}

func (h *Handlers) unshare(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	s, err := h.Svc.Unshare(r.Context(), c, r.PathValue("voice_id"))
	if err != nil {
		return err
	}
	return h.writeSharing(w, r, c, s)
}

func (h *Handlers) writeSharing(w http.ResponseWriter, r *http.Request, c *access.Caller, s *store.VoiceShare) error {
	v, err := h.Svc.Get(r.Context(), c.WorkspaceID, s.VoiceID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, SharingJSON(v, s))
	return nil
}

// LibraryVoice is the reference's LibraryVoiceResponseModel: only public fields of the voice.
type LibraryVoice struct {
	PublicOwnerID                string             `json:"public_owner_id"`
	VoiceID                      string             `json:"voice_id"`
	DateUnix                     int64              `json:"date_unix"`
	Name                         string             `json:"name"`
	Accent                       string             `json:"accent"`
	Gender                       string             `json:"gender"`
	Age                          string             `json:"age"`
	Descriptive                  string             `json:"descriptive"`
	UseCase                      string             `json:"use_case"`
	Category                     string             `json:"category"`
	Language                     *string            `json:"language"`
	Locale                       *string            `json:"locale"`
	Description                  *string            `json:"description"`
	PreviewURL                   *string            `json:"preview_url"`
	UsageCharacterCount1y        int64              `json:"usage_character_count_1y"`
	UsageCharacterCount7d        int64              `json:"usage_character_count_7d"`
	PlayAPIUsageCharacterCount1y int64              `json:"play_api_usage_character_count_1y"`
	ClonedByCount                int                `json:"cloned_by_count"`
	Rate                         *float64           `json:"rate"`
	FiatRate                     *float64           `json:"fiat_rate"`
	FreeUsersAllowed             bool               `json:"free_users_allowed"`
	LiveModerationEnabled        bool               `json:"live_moderation_enabled"`
	Featured                     bool               `json:"featured"`
	VerifiedLanguages            []VerifiedLanguage `json:"verified_languages"`
	NoticePeriod                 *int               `json:"notice_period"`
	InstagramUsername            *string            `json:"instagram_username"`
	TwitterUsername              *string            `json:"twitter_username"`
	YoutubeUsername              *string            `json:"youtube_username"`
	TiktokUsername               *string            `json:"tiktok_username"`
	ImageURL                     *string            `json:"image_url"`
	IsAddedByUser                *bool              `json:"is_added_by_user"`
	IsBookmarked                 *bool              `json:"is_bookmarked"`
}

// LibraryPage is the reference's GetLibraryVoicesResponseModel.
type LibraryPage struct {
	Voices     []LibraryVoice `json:"voices"`
	HasMore    bool           `json:"has_more"`
	TotalCount int            `json:"total_count"`
	LastSortID *string        `json:"last_sort_id"`
}

func (h *Handlers) libraryJSON(lv *store.LibraryVoice, added bool) LibraryVoice {
	labels := map[string]string{}
	_ = json.Unmarshal([]byte(lv.Labels), &labels)
	lang, desc, notice := lv.Language, lv.Share.Description, lv.Share.NoticePeriod
	preview := h.Svc.PreviewURL(&lv.Voice)
	out := LibraryVoice{PublicOwnerID: lv.Share.PublicOwnerID, VoiceID: lv.ID, DateUnix: lv.Share.DateUnix, Name: lv.Name,
		Accent: labels["accent"], Gender: labels["gender"], Age: labels["age"], Descriptive: labels["descriptive"], UseCase: labels["use_case"],
		Category: lv.Category, Language: &lang, Description: &desc, PreviewURL: &preview, ClonedByCount: lv.Share.ClonedByCount,
		FreeUsersAllowed: lv.Share.FreeUsersAllowed, LiveModerationEnabled: lv.Share.LiveModeration, Featured: lv.Share.Featured,
		VerifiedLanguages: []VerifiedLanguage{}, NoticePeriod: &notice, IsAddedByUser: &added}
	if l := labels["locale"]; l != "" {
		out.Locale = &l
	}
	if h.ModelsFor != nil {
		for _, m := range h.ModelsFor(lv.Language) {
			out.VerifiedLanguages = append(out.VerifiedLanguages, VerifiedLanguage{Language: lv.Language, ModelID: m, Accent: labels["accent"], Locale: out.Locale, PreviewURL: &preview})
		}
	}
	return out
}

// writeLibrary renders a page of library voices, marking those the caller's workspace copied.
func (h *Handlers) writeLibrary(w http.ResponseWriter, r *http.Request, voices []store.LibraryVoice, hasMore bool, total int) error {
	c := access.CallerFrom(r.Context())
	ids := make([]string, len(voices))
	for i := range voices {
		ids[i] = voices[i].ID
	}
	copied, err := h.Svc.DB.CopiedVoiceIDs(r.Context(), c.WorkspaceID, ids)
	if err != nil {
		return err
	}
	now := h.Svc.now()
	usage, err := h.Svc.DB.LibraryUsage(r.Context(), ids, now.AddDate(0, 0, -7).Unix(), now.AddDate(-1, 0, 0).Unix())
	if err != nil {
		return err
	}
	page := LibraryPage{Voices: make([]LibraryVoice, 0, len(voices)), HasMore: hasMore, TotalCount: total}
	for i := range voices {
		lv := h.libraryJSON(&voices[i], copied[voices[i].ID] || voices[i].WorkspaceID == c.WorkspaceID)
		lv.UsageCharacterCount7d, lv.UsageCharacterCount1y = usage[voices[i].ID][0], usage[voices[i].ID][1]
		page.Voices = append(page.Voices, lv)
	}
	if n := len(voices); n > 0 {
		last := voices[n-1].ID
		page.LastSortID = &last
	}
	httpx.WriteJSON(w, http.StatusOK, page)
	return nil
}

func queryBool(v *errs.Validator, q map[string][]string, name string) (bool, bool) {
	s := ""
	if xs := q[name]; len(xs) > 0 {
		s = xs[0]
	}
	if s == "" {
		return false, false
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		v.Add("query", name, "bool_parsing", "Input should be a valid boolean.")
	}
	return b, true
}

func queryInt(v *errs.Validator, q map[string][]string, name string, def, lo, hi int) int {
	return intField(v, "query", q, name, def, lo, hi)
}

// intField reads an integer query parameter or form field (where: "query" or "body").
func intField(v *errs.Validator, where string, q map[string][]string, name string, def, lo, hi int) int {
	xs := q[name]
	if len(xs) == 0 || xs[0] == "" {
		return def
	}
	n, err := strconv.Atoi(xs[0])
	if err != nil || n < lo || n > hi {
		v.Add(where, name, "value_error", "Input should be an integer from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi)+".")
	}
	return n
}

// listValues reads a list query parameter given repeated or comma separated.
func listValues(q map[string][]string, name string) []string {
	var out []string
	for _, x := range q[name] {
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (h *Handlers) sharedVoices(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v errs.Validator
	size := queryInt(&v, q, "page_size", 30, 1, 100)
	page := queryInt(&v, q, "page", 0, 0, 100000)
	minNotice := queryInt(&v, q, "min_notice_period_days", 0, 0, MaxNoticeDays)
	featured, _ := queryBool(&v, q, "featured")
	reader, _ := queryBool(&v, q, "reader_app_enabled")
	live, liveSet := queryBool(&v, q, "include_live_moderated")
	_, _ = queryBool(&v, q, "include_custom_rates") // Timbre has no custom rates: every voice has the default rate
	category := q.Get("category")
	if category != "" && !oneOf(category, "generated", "cloned", "professional", "famous", "high_quality") {
		v.Add("query", "category", "enum", "Input should be 'professional', 'famous', 'high_quality', 'cloned' or 'generated'.")
	}
	sortBy := q.Get("sort")
	if sortBy != "" && !oneOf(sortBy, "created_date", "usage_character_count_1y", "trending", "cloned_by_count") {
		v.Add("query", "sort", "enum", "Input should be 'created_date', 'usage_character_count_1y', 'trending' or 'cloned_by_count'.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	f := store.LibraryFilter{Search: strings.TrimSpace(q.Get("search")), Category: category, Gender: q.Get("gender"), Age: q.Get("age"),
		Accent: q.Get("accent"), Language: q.Get("language"), Locale: q.Get("locale"), OwnerID: q.Get("owner_id"),
		UseCases: listValues(q, "use_cases"), Descriptives: listValues(q, "descriptives"), Featured: featured, ReaderApp: reader,
		MinNoticeDays: minNotice, ExcludeLiveModerated: liveSet && !live, Sort: sortBy, Offset: page * size, Limit: size}
	voices, total, err := h.Svc.Library(r.Context(), f)
	if err != nil {
		return err
	}
	return h.writeLibrary(w, r, voices, f.Offset+len(voices) < total, total)
}

// AddSharedRequest is POST /v1/voices/add/{public_user_id}/{voice_id}'s body.
type AddSharedRequest struct {
	NewName    string `json:"new_name"`
	Bookmarked *bool  `json:"bookmarked"`
}

// AddSharedResponse is the reference's AddVoiceResponseModel.
type AddSharedResponse struct {
	VoiceID string `json:"voice_id"`
}

func (h *Handlers) addShared(w http.ResponseWriter, r *http.Request) error {
	if r.PathValue("add") != "add" {
		return errNoRoute
	}
	var body AddSharedRequest
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	v, err := h.Svc.AddFromLibrary(r.Context(), access.CallerFrom(r.Context()), r.PathValue("public_user_id"), r.PathValue("voice_id"), body.NewName)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, AddSharedResponse{VoiceID: v.ID})
	return nil
}

// similar: multipart audio_file, similarity_threshold (0–2 distance, see SimilarityToDistance;
// none: no cut), top_k (1–100, default 10).
func (h *Handlers) similar(w http.ResponseWriter, r *http.Request) error {
	form, err := httpx.ReadFormFiles(r, MaxSimilarClipBytes, MaxSimilarClipBytes, "audio_file")
	if err != nil {
		return err
	}
	var v errs.Validator
	q := map[string][]string(form.Fields)
	topK := intField(&v, "body", q, "top_k", 10, 1, 100)
	maxDist := 2.0
	if s := strings.TrimSpace(form.Value("similarity_threshold")); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f > 2 {
			v.Add("body", "similarity_threshold", "value_error", "Input should be a number from 0 (the same voice) to 2.")
		}
		maxDist = f
	}
	if len(form.Files) == 0 {
		v.Add("body", "audio_file", "missing", "Field required: send an audio clip in audio_file.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if h.Svc.Cloner == nil {
		return ErrCloningUnavailable
	}
	samples, rate, err := audio.Decode(r.Context(), form.Files[0].Data)
	if err != nil {
		if r.Context().Err() != nil {
			return r.Context().Err()
		}
		v.Add("body", "audio_file", "value_error", "The file is not audio that can be decoded (or it is corrupt).")
		return v.Err()
	}
	pr, err := h.Svc.Cloner.Analyse(engine.PCM{Samples: samples, SampleRate: rate})
	if err != nil || pr == nil || len(pr.Embedding) == 0 || pr.F0Median <= 0 {
		v.Add("body", "audio_file", "value_error", "No speech could be measured in the clip; send a recording of someone speaking.")
		return v.Err()
	}
	voices, err := h.Svc.Similar(r.Context(), pr, maxDist, topK)
	if err != nil {
		return err
	}
	return h.writeLibrary(w, r, voices, false, len(voices))
}

// Collections.

// Collection is the SDK's UserVoiceCollectionResponseModel.
type Collection struct {
	CollectionID         string `json:"collection_id"`
	Title                string `json:"title"`
	Icon                 string `json:"icon"`
	PermissionOnResource string `json:"permission_on_resource"`
}

// CollectionList is GetUserVoiceCollectionsResponseModel.
type CollectionList struct {
	Collections []Collection `json:"collections"`
}

// CollectionRef answers a delete (DeleteUserVoiceCollectionResponseModel).
type CollectionRef struct {
	CollectionID string `json:"collection_id"`
}

// CollectionVoiceRef answers adding or removing a voice.
type CollectionVoiceRef struct {
	CollectionID string `json:"collection_id"`
	VoiceID      string `json:"voice_id"`
}

// CollectionBody is the create and update body.
type CollectionBody struct {
	Title *string `json:"title"`
	Icon  *string `json:"icon"`
}

// collectionJSON: collections are the workspace's; admins and their creator administer them,
// other members edit them.
func collectionJSON(c *access.Caller, col *store.VoiceCollection) Collection {
	perm := "editor"
	if c.Role == access.RoleAdmin || col.CreatedBy == c.UserID {
		perm = "admin"
	}
	return Collection{CollectionID: col.ID, Title: col.Title, Icon: col.Icon, PermissionOnResource: perm}
}

func (h *Handlers) listCollections(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	cols, err := h.Svc.DB.VoiceCollections(r.Context(), c.WorkspaceID)
	if err != nil {
		return err
	}
	out := CollectionList{Collections: make([]Collection, 0, len(cols))}
	for i := range cols {
		out.Collections = append(out.Collections, collectionJSON(c, &cols[i]))
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) createCollection(w http.ResponseWriter, r *http.Request) error {
	var body CollectionBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	col, err := h.Svc.CreateCollection(r.Context(), c, body.Title, body.Icon)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, collectionJSON(c, col))
	return nil
}

func (h *Handlers) getCollection(w http.ResponseWriter, r *http.Request) error {
	if r.PathValue("collections") != "collections" {
		return errNoRoute
	}
	c := access.CallerFrom(r.Context())
	col, err := h.Svc.Collection(r.Context(), c, r.PathValue("collection_id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, collectionJSON(c, col))
	return nil
}

func (h *Handlers) updateCollection(w http.ResponseWriter, r *http.Request) error {
	var body CollectionBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	col, err := h.Svc.UpdateCollection(r.Context(), c, r.PathValue("collection_id"), body.Title, body.Icon)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, collectionJSON(c, col))
	return nil
}

func (h *Handlers) deleteCollection(w http.ResponseWriter, r *http.Request) error {
	if r.PathValue("collections") != "collections" {
		return errNoRoute
	}
	id := r.PathValue("collection_id")
	if err := h.Svc.DeleteCollection(r.Context(), access.CallerFrom(r.Context()), id); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, CollectionRef{CollectionID: id})
	return nil
}

func (h *Handlers) collectVoice(w http.ResponseWriter, r *http.Request) error {
	id, vid := r.PathValue("collection_id"), r.PathValue("voice_id")
	if err := h.Svc.CollectVoice(r.Context(), access.CallerFrom(r.Context()), id, vid); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, CollectionVoiceRef{CollectionID: id, VoiceID: vid})
	return nil
}

func (h *Handlers) uncollectVoice(w http.ResponseWriter, r *http.Request) error {
	id, vid := r.PathValue("collection_id"), r.PathValue("voice_id")
	if err := h.Svc.UncollectVoice(r.Context(), access.CallerFrom(r.Context()), id, vid); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, CollectionVoiceRef{CollectionID: id, VoiceID: vid})
	return nil
}
