package voice

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/account"
	"timbre/internal/errs"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/voiceprint"
	"timbre/internal/webhook"
)

// Sharing statuses of the reference's VoiceSharingResponseModel.
const (
	ShareEnabled        = "enabled"
	ShareDisabled       = "disabled"
	ShareCopied         = "copied"
	ShareCopiedDisabled = "copied_disabled"
	MaxNoticeDays       = 730
)

// PublicOwnerID is a workspace's public id in the library: a hash, so the workspace id itself
// never leaves the workspace.
func PublicOwnerID(workspaceID string) string {
	s := sha256.Sum256([]byte("timbre-public-owner:" + workspaceID))
	return hex.EncodeToString(s[:])
}

// ShareRequest is POST /v1/voices/{voice_id}/share's body: the sharing settings. Nil fields keep
// their current value (or the default when the voice is published for the first time).
type ShareRequest struct {
	Enabled                 *bool   `json:"enabled"`
	Description             *string `json:"description"`
	FreeUsersAllowed        *bool   `json:"free_users_allowed"`
	FinancialRewardsEnabled *bool   `json:"financial_rewards_enabled"`
	NoticePeriod            *int    `json:"notice_period"` // days
	LiveModerationEnabled   *bool   `json:"live_moderation_enabled"`
	VoiceMixingAllowed      *bool   `json:"voice_mixing_allowed"`
	ReaderAppEnabled        *bool   `json:"reader_app_enabled"`
}

// Share publishes a workspace voice to the library, changes its sharing settings, or (enabled
// false) withdraws it. A withdrawn voice that has been copied becomes copied_disabled: the copies
// keep working, no new copies can be made, and disable_at_unix is the end of its notice period.
func (s *Service) Share(ctx context.Context, c *access.Caller, voiceID string, req ShareRequest) (*store.VoiceShare, error) {
	var val errs.Validator
	if req.Description != nil && utf8.RuneCountInString(*req.Description) > MaxDescription {
		val.Add("body", "description", "string_too_long", fmt.Sprintf("The description is longer than %d characters.", MaxDescription))
	}
	if req.NoticePeriod != nil && (*req.NoticePeriod < 0 || *req.NoticePeriod > MaxNoticeDays) {
		val.Add("body", "notice_period", "value_error", fmt.Sprintf("The notice period is a number of days from 0 to %d.", MaxNoticeDays))
	}
	if err := val.Err(); err != nil {
		return nil, err
	}
	v, err := s.workspaceVoice(ctx, c, voiceID, "shared")
	if err != nil {
		return nil, err
	}
	cur, err := s.DB.VoiceShare(ctx, c.WorkspaceID, v.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		cur = &store.VoiceShare{VoiceID: v.ID, WorkspaceID: c.WorkspaceID, PublicOwnerID: PublicOwnerID(c.WorkspaceID),
			Description: v.Description, FreeUsersAllowed: true, DateUnix: s.now().Unix()}
	case err != nil:
		return nil, err
	case cur.Status == ShareCopied:
		return nil, errs.Errorf(errs.Invalid, "voice_not_shareable", "Voice '%s' is a copy of a library voice: only its owner can share it.", voiceID)
	}
	set := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	set(&cur.FreeUsersAllowed, req.FreeUsersAllowed)
	set(&cur.FinancialRewards, req.FinancialRewardsEnabled)
	set(&cur.LiveModeration, req.LiveModerationEnabled)
	set(&cur.VoiceMixing, req.VoiceMixingAllowed)
	set(&cur.ReaderApp, req.ReaderAppEnabled)
	if req.Description != nil {
		cur.Description = *req.Description
	}
	if req.NoticePeriod != nil {
		cur.NoticePeriod = *req.NoticePeriod
	}
	was := cur.Status
	if req.Enabled == nil || *req.Enabled {
		cur.Status, cur.DisableAt = ShareEnabled, 0
	} else {
		s.withdraw(cur)
	}
	if err := s.DB.UpsertVoiceShare(ctx, *cur); err != nil {
		return nil, err
	}
	s.noticeCopies(ctx, v, was, cur)
	return cur, nil
}

// noticeCopies tells the workspaces holding copies of a voice what its owner's change means for
// them: withdrawn with copies, a removal notice for the end of the notice period; published
// again, that notice is withdrawn. The change stands whatever happens here (a failure is logged).
func (s *Service) noticeCopies(ctx context.Context, v *store.Voice, was string, cur *store.VoiceShare) {
	n := webhook.VoiceRemoval{VoiceID: v.ID, VoiceName: v.Name, Reason: "withdrawn"}
	switch {
	case cur.Status == ShareCopiedDisabled && was != ShareCopiedDisabled:
		at := cur.DisableAt
		n.Type, n.RemovalDateUnix = webhook.VoiceRemovalNotice, &at
	case cur.Status == ShareEnabled && was == ShareCopiedDisabled:
		n.Type = webhook.VoiceRemovalNoticeWithdrawn
	default:
		return
	}
	if s.CopiedBy == nil || s.Removals == nil {
		return
	}
	workspaces, err := s.CopiedBy(ctx, v.ID)
	if err == nil && len(workspaces) > 0 {
		err = s.Removals.NotifyVoiceRemoval(ctx, workspaces, n)
	}
	if err != nil {
		slog.Warn("voice library: removal notices not queued", "voice", v.ID, "type", n.Type, "err", err)
	}
}

func (s *Service) withdraw(cur *store.VoiceShare) {
	if cur.ClonedByCount > 0 {
		cur.Status = ShareCopiedDisabled
		cur.DisableAt = s.now().Unix() + int64(cur.NoticePeriod)*86400
	} else {
		cur.Status, cur.DisableAt = ShareDisabled, 0
	}
}

// Unshare withdraws a published voice from the library.
func (s *Service) Unshare(ctx context.Context, c *access.Caller, voiceID string) (*store.VoiceShare, error) {
	v, err := s.workspaceVoice(ctx, c, voiceID, "shared")
	if err != nil {
		return nil, err
	}
	cur, err := s.DB.VoiceShare(ctx, c.WorkspaceID, v.ID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && cur.Status == ShareCopied) {
		return nil, errs.Errorf(errs.NotFound, "voice_not_shared", "Voice '%s' is not published in the voice library.", voiceID)
	}
	if err != nil {
		return nil, err
	}
	was := cur.Status
	s.withdraw(cur)
	if err := s.DB.UpsertVoiceShare(ctx, *cur); err != nil {
		return nil, err
	}
	s.noticeCopies(ctx, v, was, cur)
	return cur, nil
}

// Library lists published voices.
func (s *Service) Library(ctx context.Context, f store.LibraryFilter) ([]store.LibraryVoice, int, error) {
	return s.DB.ListLibrary(ctx, f)
}

// AddFromLibrary copies a library voice into the caller's workspace under a new name: the copy
// speaks as the original (same engine, prosody and voiceprint), takes a voice slot and an
// add/edit in the same transaction, and counts on the original's cloned_by_count.
func (s *Service) AddFromLibrary(ctx context.Context, c *access.Caller, publicOwnerID, voiceID, newName string) (*store.Voice, error) {
	var val errs.Validator
	name := strings.TrimSpace(newName)
	switch {
	case name == "":
		val.Add("body", "new_name", "missing", "Field required: give the copy a name.")
	case utf8.RuneCountInString(name) > MaxNameChars:
		val.Add("body", "new_name", "string_too_long", fmt.Sprintf("The name is longer than %d characters.", MaxNameChars))
	}
	if err := val.Err(); err != nil {
		return nil, err
	}
	lv, err := s.DB.LibraryVoiceByOwner(ctx, publicOwnerID, voiceID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && lv.Share.Status == ShareDisabled) {
		return nil, errs.Errorf(errs.NotFound, "voice_not_found", "No library voice '%s' of owner '%s'.", voiceID, publicOwnerID)
	}
	if err != nil {
		return nil, err
	}
	if lv.Share.Status == ShareCopiedDisabled {
		return nil, errs.Errorf(errs.Forbidden, "voice_copying_disabled",
			"Voice '%s' has been withdrawn from the library by its owner: it can no longer be added.", voiceID)
	}
	if lv.WorkspaceID == c.WorkspaceID {
		return nil, errs.Errorf(errs.Conflict, "voice_already_owned", "Voice '%s' is already one of your workspace's voices.", voiceID)
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	if !lv.Share.FreeUsersAllowed && tier.Name == plan.Get("free").Name {
		return nil, errs.Errorf(errs.Forbidden, "free_users_not_allowed", "The owner of voice '%s' does not let free plans use it; upgrade to add it.", voiceID)
	}
	now := s.now()
	row := store.Voice{ID: NewVoiceID(), WorkspaceID: c.WorkspaceID, Name: name, Category: lv.Category, Description: lv.Share.Description,
		Labels: lv.Labels, Engine: lv.Engine, EngineVoice: lv.EngineVoice, Language: lv.Language, Prosody: lv.Prosody,
		CreatedAt: now.Unix(), Voiceprint: lv.Voiceprint, CreatedBy: c.UserID}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := TakeSlot(ctx, tx, c.WorkspaceID, tier, now); err != nil {
			return err
		}
		if err := tx.CreateVoice(ctx, row); err != nil {
			return err
		}
		return tx.InsertVoiceCopy(ctx, store.VoiceShare{VoiceID: row.ID, WorkspaceID: c.WorkspaceID, PublicOwnerID: lv.Share.PublicOwnerID,
			Status: ShareCopied, OriginalVoiceID: lv.ID, Description: lv.Share.Description, FreeUsersAllowed: lv.Share.FreeUsersAllowed,
			LiveModeration: lv.Share.LiveModeration, NoticePeriod: lv.Share.NoticePeriod, DateUnix: now.Unix()})
	})
	if err != nil {
		return nil, err
	}
	account.CompleteItem(ctx, s.DB, c.UserID, account.ItemAddVoiceFromLibrary) // onboarding checklist
	return &row, nil
}

// Similarity threshold mapping: the reference's similarity_threshold is a distance from 0 (the
// same voice) to 2; Timbre's voiceprint.Similarity is 1 for the same voice and 0 for unrelated
// ones. distance = 2 × (1 − similarity), so a threshold t keeps voices with similarity ≥ 1 − t/2.
func SimilarityToDistance(sim float64) float64 { return 2 * (1 - sim) }

// Similar ranks the library's voices by speaker embedding against a clip's voiceprint: the
// closest first, at most topK, none farther than maxDistance. The caller's own published voices
// are included (they are library voices like any other).
func (s *Service) Similar(ctx context.Context, clip *voiceprint.Print, maxDistance float64, topK int) ([]store.LibraryVoice, error) {
	all, _, err := s.DB.ListLibrary(ctx, store.LibraryFilter{})
	if err != nil {
		return nil, err
	}
	type scored struct {
		lv   store.LibraryVoice
		dist float64
	}
	var hits []scored
	for _, lv := range all {
		var p voiceprint.Print
		if lv.Voiceprint == "" || json.Unmarshal([]byte(lv.Voiceprint), &p) != nil || len(p.Embedding) == 0 {
			continue
		}
		d := SimilarityToDistance(voiceprint.Similarity(clip.Embedding, p.Embedding))
		if d <= maxDistance {
			hits = append(hits, scored{lv, d})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].dist < hits[j].dist })
	if len(hits) > topK {
		hits = hits[:topK]
	}
	out := make([]store.LibraryVoice, len(hits))
	for i, h := range hits {
		out[i] = h.lv
	}
	return out, nil
}

// Collections.

const (
	MaxCollectionTitle = 100
	MaxCollectionIcon  = 64
)

func errCollectionNotFound(id string) error {
	return errs.Errorf(errs.NotFound, "collection_not_found", "A voice collection with collection_id '%s' was not found.", id)
}

func validateCollection(title, icon *string, create bool) error {
	var v errs.Validator
	if title != nil || create {
		t := ""
		if title != nil {
			t = strings.TrimSpace(*title)
		}
		switch {
		case t == "":
			v.Add("body", "title", "missing", "Field required: give the collection a title.")
		case utf8.RuneCountInString(t) > MaxCollectionTitle:
			v.Add("body", "title", "string_too_long", fmt.Sprintf("The title is longer than %d characters.", MaxCollectionTitle))
		}
	}
	if icon != nil && utf8.RuneCountInString(*icon) > MaxCollectionIcon {
		v.Add("body", "icon", "string_too_long", fmt.Sprintf("The icon is longer than %d characters.", MaxCollectionIcon))
	}
	if create && icon == nil {
		v.Add("body", "icon", "missing", "Field required: icon (an emoji or an icon name).")
	}
	return v.Err()
}

// CreateCollection makes a workspace collection.
func (s *Service) CreateCollection(ctx context.Context, c *access.Caller, title, icon *string) (*store.VoiceCollection, error) {
	if err := validateCollection(title, icon, true); err != nil {
		return nil, err
	}
	col := store.VoiceCollection{ID: store.NewID(), WorkspaceID: c.WorkspaceID, Title: strings.TrimSpace(*title), Icon: *icon,
		CreatedBy: c.UserID, CreatedAt: s.now().Unix()}
	return &col, s.DB.CreateVoiceCollection(ctx, col)
}

// Collection finds a workspace collection.
func (s *Service) Collection(ctx context.Context, c *access.Caller, id string) (*store.VoiceCollection, error) {
	col, err := s.DB.VoiceCollection(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errCollectionNotFound(id)
	}
	return col, err
}

// UpdateCollection changes the given fields of a collection.
func (s *Service) UpdateCollection(ctx context.Context, c *access.Caller, id string, title, icon *string) (*store.VoiceCollection, error) {
	if err := validateCollection(title, icon, false); err != nil {
		return nil, err
	}
	col, err := s.Collection(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if title != nil {
		col.Title = strings.TrimSpace(*title)
	}
	if icon != nil {
		col.Icon = *icon
	}
	return col, s.DB.UpdateVoiceCollection(ctx, *col)
}

// DeleteCollection removes a collection (not its voices).
func (s *Service) DeleteCollection(ctx context.Context, c *access.Caller, id string) error {
	if err := s.DB.DeleteVoiceCollection(ctx, c.WorkspaceID, id); errors.Is(err, store.ErrNotFound) {
		return errCollectionNotFound(id)
	} else {
		return err
	}
}

// CollectVoice adds a voice the workspace can use (its own or premade) to a collection.
func (s *Service) CollectVoice(ctx context.Context, c *access.Caller, id, voiceID string) error {
	if _, err := s.Collection(ctx, c, id); err != nil {
		return err
	}
	if _, err := s.Get(ctx, c.WorkspaceID, voiceID); err != nil {
		return err
	}
	return s.DB.AddVoiceToCollection(ctx, c.WorkspaceID, id, voiceID, s.now().Unix())
}

// UncollectVoice takes a voice out of a collection.
func (s *Service) UncollectVoice(ctx context.Context, c *access.Caller, id, voiceID string) error {
	if _, err := s.Collection(ctx, c, id); err != nil {
		return err
	}
	if err := s.DB.RemoveVoiceFromCollection(ctx, c.WorkspaceID, id, voiceID); errors.Is(err, store.ErrNotFound) {
		return errs.Errorf(errs.NotFound, "voice_not_in_collection", "Voice '%s' is not in collection '%s'.", voiceID, id)
	} else {
		return err
	}
}
