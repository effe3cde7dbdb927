package voice

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/voiceprint"
)

// Cloner measures speakers and fits a parametric voice to them (*voiceprint.Cloner). A neural
// cloning server (RemoteCloner) makes the voice instead when configured; the Cloner still
// measures the samples.
type Cloner interface {
	Analyse(pcm engine.PCM) (*voiceprint.Print, error)
	Merge(prints []*voiceprint.Print) *voiceprint.Print
	Fit(ctx context.Context, p *voiceprint.Print) (voiceprint.Fit, error)
}

// RemoteCloner is a neural cloning server (*engine.OpenAICloner): it makes a voice from a
// reference recording and its engine, registered under Engine(), speaks with the returned id.
type RemoteCloner interface {
	Engine() string
	CreateVoice(ctx context.Context, name, fileName, contentType string, sample []byte) (string, error)
}

// Blobs keeps the samples' audio.
type Blobs interface {
	Put(ctx context.Context, key string, data []byte, contentType string) error
	Get(ctx context.Context, key string) ([]byte, error)
	Delete(ctx context.Context, key string) error
}

// Limits of instant cloning uploads. ElevenLabs takes up to 25 samples; a minute or two of clean
// speech is what a clone needs, so a few minutes per file and 25 MB per file are plenty.
const (
	MaxSamples       = 25
	MaxSampleBytes   = 25 << 20
	MaxSamplesBytes  = 100 << 20 // all files of one request
	MinSampleSeconds = 0.1
	MaxSampleSeconds = 600
	MinSpeechSeconds = 0.3 // of detected speech in a sample
	MaxNameChars     = 100
	MaxDescription   = 1000
	MaxLabels        = 10
	cloneCategory    = "cloned"
	sampleBlobPrefix = "voice-samples/"
)

// CloneFile is one uploaded recording.
type CloneFile struct {
	Name        string
	ContentType string
	Data        []byte
}

// CloneRequest adds a cloned voice or edits one (POST /v1/voices/add, /v1/voices/{id}/edit).
type CloneRequest struct {
	Name                  string
	Description           *string           // nil: not given
	Labels                map[string]string // nil: not given
	RemoveBackgroundNoise bool
	Files                 []CloneFile
}

// Validate checks the text fields (files are checked as they are decoded).
func (r *CloneRequest) Validate(v *errs.Validator, needFiles bool) {
	name := strings.TrimSpace(r.Name)
	switch {
	case name == "":
		v.Add("body", "name", "missing", "Field required: give the voice a name.")
	case utf8.RuneCountInString(name) > MaxNameChars:
		v.Add("body", "name", "string_too_long", fmt.Sprintf("The name is longer than %d characters.", MaxNameChars))
	}
	if r.Description != nil && utf8.RuneCountInString(*r.Description) > MaxDescription {
		v.Add("body", "description", "string_too_long", fmt.Sprintf("The description is longer than %d characters.", MaxDescription))
	}
	if len(r.Labels) > MaxLabels {
		v.Add("body", "labels", "value_error", fmt.Sprintf("At most %d labels.", MaxLabels))
	}
	switch {
	case needFiles && len(r.Files) == 0:
		v.Add("body", "files", "missing", "Field required: send at least one audio recording of the voice in files.")
	case len(r.Files) > MaxSamples:
		v.Add("body", "files", "value_error", fmt.Sprintf("At most %d files per voice.", MaxSamples))
	}
}

// errFiles is the 422 for an unusable recording, naming the files field and the file.
func errFiles(f CloneFile, format string, args ...any) error {
	var v errs.Validator
	name := f.Name
	if name == "" {
		name = "(unnamed)"
	}
	v.Add("body", "files", "value_error", fmt.Sprintf("File %q: ", name)+fmt.Sprintf(format, args...))
	return v.Err()
}

// ErrCloningUnavailable answers cloning calls when no cloner is configured.
var ErrCloningUnavailable = errs.New(errs.Unavailable, "voice_cloning_unavailable", "Voice cloning is not configured on this server.")

// errNoIVC: the plan has no instant voice cloning.
func errNoIVC(t plan.Tier) error {
	return errs.Errorf(errs.Forbidden, "can_not_use_instant_voice_cloning",
		"Your subscription (%s) does not include instant voice cloning; upgrade to Starter or above.", t.Name)
}

// TakeSlot lets one more voice into the workspace, in the transaction that adds it: it counts
// the add against the period's add/edit allowance and checks a voice slot is free
// (plan.VoiceSlotCategories). Every way a voice is added (cloning, design, a copy from the
// library) goes through it, so the limits hold under concurrent adds.
func TakeSlot(ctx context.Context, tx *store.Tx, workspaceID string, tier plan.Tier, now time.Time) error {
	// The counter first: its UPDATE locks the workspace row, so concurrent adds count in turn.
	ok, err := tx.CountVoiceAddEdit(ctx, workspaceID, plan.MaxVoiceAddEdits(tier), now)
	if err != nil {
		return err
	}
	if !ok {
		return errAddEditLimit(tier)
	}
	used, err := tx.CountVoices(ctx, workspaceID, plan.VoiceSlotCategories...)
	if err != nil {
		return err
	}
	if used >= tier.VoiceLimit {
		return errVoiceLimit(tier, used)
	}
	return nil
}

func errVoiceLimit(t plan.Tier, used int) error {
	return errs.Errorf(errs.Invalid, "voice_limit_reached",
		"You have reached your maximum amount of custom voices (%d / %d) on the %s plan. Delete a voice or upgrade your subscription to add more.",
		used, t.VoiceLimit, t.Name)
}

func errAddEditLimit(t plan.Tier) error {
	return errs.Errorf(errs.Invalid, "voice_add_edit_limit_reached",
		"You have used all %d voice additions and edits of this billing period on the %s plan; the count starts again with the next period.",
		plan.MaxVoiceAddEdits(t), t.Name)
}

// prepared is an analysed upload, ready to store.
type prepared struct {
	row   store.VoiceSample
	print *voiceprint.Print
	data  []byte
	clean []byte // the noise-removed audio as WAV, when noise removal was asked
}

// prepare decodes, cleans and analyses each file; the first bad one is a 422 naming files.
func (s *Service) prepare(ctx context.Context, c *access.Caller, voiceID string, files []CloneFile, denoise bool, first int) ([]prepared, error) {
	total := 0
	for _, f := range files {
		total += len(f.Data)
	}
	if total > MaxSamplesBytes {
		var v errs.Validator
		v.Add("body", "files", "value_error", fmt.Sprintf("The files add up to %d MB; at most %d MB per request.", total>>20, MaxSamplesBytes>>20))
		return nil, v.Err()
	}
	out := make([]prepared, 0, len(files))
	for _, f := range files {
		p, err := s.prepareOne(ctx, c, voiceID, f, denoise)
		if err != nil {
			return nil, err
		}
		p.row.Position = first + len(out)
		out = append(out, p)
	}
	return out, nil
}

func (s *Service) prepareOne(ctx context.Context, c *access.Caller, voiceID string, f CloneFile, denoise bool) (prepared, error) {
	switch {
	case len(f.Data) == 0:
		return prepared{}, errFiles(f, "the file is empty.")
	case len(f.Data) > MaxSampleBytes:
		return prepared{}, errFiles(f, "the file is larger than %d MB.", MaxSampleBytes>>20)
	}
	ct := strings.ToLower(strings.TrimSpace(strings.SplitN(f.ContentType, ";", 2)[0]))
	if ct != "" && ct != "application/octet-stream" && !strings.HasPrefix(ct, "audio/") && !strings.HasPrefix(ct, "video/") {
		return prepared{}, errFiles(f, "%s is not audio; send an audio recording (mp3, wav, m4a, ogg, webm, flac…).", ct)
	}
	samples, rate, err := audio.Decode(ctx, f.Data)
	if err != nil {
		if ctx.Err() != nil {
			return prepared{}, ctx.Err()
		}
		return prepared{}, errFiles(f, "it is not audio that can be decoded (or it is corrupt).")
	}
	pcm := engine.PCM{Samples: samples, SampleRate: rate}
	var denoised []byte
	if pcm.SampleRate > 48000 { // RNNoise and the analysis work at most at 48 kHz
		pcm = engine.PCM{Samples: audio.Resample(pcm.Samples, pcm.SampleRate, 48000), SampleRate: 48000}
	}
	secs := pcm.Seconds()
	switch {
	case secs < MinSampleSeconds:
		return prepared{}, errFiles(f, "the recording is %.0f ms long; at least 100 ms is needed (a clone wants a minute or more).", secs*1000)
	case secs > MaxSampleSeconds:
		return prepared{}, errFiles(f, "the recording is %.0f minutes long; at most %d minutes per file.", secs/60, MaxSampleSeconds/60)
	}
	if denoise && s.Isolator != nil {
		clean := make([]int16, 0, len(pcm.Samples))
		if err := s.Isolator.IsolateStream(ctx, pcm, func(b []int16) error { clean = append(clean, b...); return nil }); err != nil {
			return prepared{}, errs.Errorf(errs.Upstream, "isolation_failed", "Removing the background noise failed: %v", err)
		}
		pcm.Samples = clean
		denoised = audio.WAV(clean, pcm.SampleRate)
	}
	pr, err := s.Cloner.Analyse(pcm)
	if err != nil {
		if ctx.Err() != nil {
			return prepared{}, ctx.Err()
		}
		return prepared{}, errFiles(f, "no speech could be measured in it (%v).", err)
	}
	if pr == nil || pr.SpeechSeconds < MinSpeechSeconds || pr.F0Median <= 0 {
		return prepared{}, errFiles(f, "it holds no speech (silence or noise only); record someone speaking.")
	}
	vp, _ := json.Marshal(pr)
	sum := sha256.Sum256(f.Data)
	id := store.NewID()
	mime := ct
	if mime == "" || mime == "application/octet-stream" {
		mime = sniffMime(f.Data)
	}
	name := f.Name
	if name == "" {
		name = "sample"
	}
	return prepared{
		row: store.VoiceSample{ID: id, VoiceID: voiceID, WorkspaceID: c.WorkspaceID, FileName: name, MimeType: mime,
			SizeBytes: int64(len(f.Data)), Hash: hex.EncodeToString(sum[:]), DurationSecs: secs, RemoveBackgroundNoise: denoise,
			BlobKey: sampleBlobPrefix + c.WorkspaceID + "/" + voiceID + "/" + id, Voiceprint: string(vp), CreatedAt: s.now().Unix()},
		print: pr, data: f.Data, clean: denoised,
	}, nil
}

// sniffMime names the audio type of an upload sent without one.
func sniffMime(b []byte) string {
	switch {
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WAVE":
		return "audio/wav"
	case len(b) >= 4 && string(b[:4]) == "OggS":
		return "audio/ogg"
	case len(b) >= 4 && string(b[:4]) == "fLaC":
		return "audio/flac"
	case len(b) >= 4 && string(b[:4]) == "\x1a\x45\xdf\xa3":
		return "audio/webm"
	case len(b) >= 8 && string(b[4:8]) == "ftyp":
		return "audio/mp4"
	case len(b) >= 3 && (string(b[:3]) == "ID3" || (b[0] == 0xff && b[1]&0xe0 == 0xe0)):
		return "audio/mpeg"
	}
	return "application/octet-stream"
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// putSamples stores the samples' audio; on failure it removes what it stored.
func (s *Service) putSamples(ctx context.Context, ps []prepared) error {
	for i, p := range ps {
		if err := s.Blob.Put(ctx, p.row.BlobKey, p.data, p.row.MimeType); err != nil {
			s.dropBlobs(ctx, ps[:i])
			return err
		}
	}
	return nil
}

func (s *Service) dropBlobs(ctx context.Context, ps []prepared) {
	for _, p := range ps {
		if err := s.Blob.Delete(context.WithoutCancel(ctx), p.row.BlobKey); err != nil {
			slog.Warn("voice sample blob left behind", "key", p.row.BlobKey, "err", err)
		}
	}
}

// fitProsody fits the merged print and renders the voice's engine, base voice and prosody.
func (s *Service) fitProsody(ctx context.Context, prints []*voiceprint.Print) (*voiceprint.Print, voiceprint.Fit, string, error) {
	merged := s.Cloner.Merge(prints)
	fit, err := s.Cloner.Fit(ctx, merged)
	if err != nil {
		return nil, fit, "", errs.Errorf(errs.Upstream, "voice_cloning_failed", "The voice could not be fitted: %v", err)
	}
	if _, ok := s.Engines[fit.Engine]; !ok {
		return nil, fit, "", errs.Errorf(errs.Unavailable, "voice_cloning_failed", "The fitted base engine %q is not available on this server.", fit.Engine)
	}
	pr, _ := json.Marshal(BaseProsody{Pitch: 50, PitchRange: cmp0(fit.PitchRange, 50), Rate: cmpF(fit.Rate, 1), F0Hz: fit.F0Hz, Formant: fit.Formant})
	return merged, fit, string(pr), nil
}

// RemoteSampleSeconds is the longest sample a cloning server is sent (OpenAI's custom voices
// take at most 30 s); a longer one goes as its first 30 s.
const RemoteSampleSeconds = 30

// makeVoice turns the prints (and the new samples ps) into the voice's engine, engine voice and
// prosody: with a cloning server configured, the longest new sample (noise-removed when asked)
// goes to the server and its voice id is used (the prints are still merged: similar voices and
// the speaker library read them); otherwise the parametric fit.
func (s *Service) makeVoice(ctx context.Context, name string, prints []*voiceprint.Print, ps []prepared) (merged *voiceprint.Print, eng, engVoice, prosody string, err error) {
	if s.Remote == nil || len(ps) == 0 {
		merged, fit, prosody, err := s.fitProsody(ctx, prints)
		return merged, fit.Engine, fit.EngineVoice, prosody, err
	}
	if _, ok := s.Engines[s.Remote.Engine()]; !ok {
		return nil, "", "", "", errs.Errorf(errs.Unavailable, "voice_cloning_failed", "The cloning engine %q is not available on this server.", s.Remote.Engine())
	}
	best := ps[0]
	for _, p := range ps[1:] {
		if p.row.DurationSecs > best.row.DurationSecs {
			best = p
		}
	}
	data, mime, file := best.data, best.row.MimeType, best.row.FileName
	if best.clean != nil {
		data, mime, file = best.clean, "audio/wav", strings.TrimSuffix(file, path.Ext(file))+".wav"
	}
	if best.row.DurationSecs > RemoteSampleSeconds {
		// The server takes a sample of limited length: its first RemoteSampleSeconds, as WAV.
		samples, rate, err := audio.Decode(ctx, data)
		if err != nil {
			return nil, "", "", "", err
		}
		data = audio.WAV(samples[:min(len(samples), RemoteSampleSeconds*rate)], rate)
		mime, file = "audio/wav", strings.TrimSuffix(file, path.Ext(file))+".wav"
	}
	id, err := s.Remote.CreateVoice(ctx, name, file, mime, data)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", "", "", ctx.Err()
		}
		return nil, "", "", "", errs.Errorf(errs.Upstream, "voice_cloning_failed", "The voice cloning server failed: %v", err)
	}
	// The server's voice speaks as recorded: no pitch or formant shift on top.
	pr, _ := json.Marshal(BaseProsody{Pitch: 50, PitchRange: 50, Rate: 1})
	return s.Cloner.Merge(prints), s.Remote.Engine(), id, string(pr), nil
}

func cmp0(x, def int) int {
	if x == 0 {
		return def
	}
	return x
}

func cmpF(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
}

// AddClone makes an instant clone: every file decoded, cleaned if asked, analysed; the prints
// merged and fitted to a base voice; the voice and its samples stored in one transaction that
// also counts the plan's voice slots and the period's add/edit allowance. Any failure stores
// nothing (the samples' audio put before the transaction is removed again).
func (s *Service) AddClone(ctx context.Context, c *access.Caller, req *CloneRequest) (*store.Voice, error) {
	var v errs.Validator
	req.Validate(&v, true)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if s.Cloner == nil {
		return nil, ErrCloningUnavailable
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	if !plan.CanCloneInstantly(tier) {
		return nil, errNoIVC(tier)
	}
	voiceID := NewVoiceID()
	ps, err := s.prepare(ctx, c, voiceID, req.Files, req.RemoveBackgroundNoise, 0)
	if err != nil {
		return nil, err
	}
	prints := make([]*voiceprint.Print, len(ps))
	for i := range ps {
		prints[i] = ps[i].print
	}
	merged, eng, engVoice, prosody, err := s.makeVoice(ctx, strings.TrimSpace(req.Name), prints, ps)
	if err != nil {
		return nil, err
	}
	vp, _ := json.Marshal(merged)
	labels := req.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	lb, _ := json.Marshal(labels)
	desc := ""
	if req.Description != nil {
		desc = *req.Description
	}
	row := store.Voice{ID: voiceID, WorkspaceID: c.WorkspaceID, Name: strings.TrimSpace(req.Name), Category: cloneCategory,
		Description: desc, Labels: string(lb), Engine: eng, EngineVoice: engVoice, Language: "en", Prosody: prosody,
		SortOrder: 0, CreatedAt: s.now().Unix(), Voiceprint: string(vp), CreatedBy: c.UserID}
	if err := s.putSamples(ctx, ps); err != nil {
		return nil, err
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := TakeSlot(ctx, tx, c.WorkspaceID, tier, s.now()); err != nil {
			return err
		}
		if err := tx.CreateVoice(ctx, row); err != nil {
			return err
		}
		for _, p := range ps {
			if err := tx.InsertVoiceSample(ctx, p.row); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.dropBlobs(ctx, ps)
		return nil, err
	}
	return &row, nil
}

// NewVoiceID makes a voice id shaped like ElevenLabs' (20 letters and digits).
func NewVoiceID() string { return StableID("voice:" + store.NewID()) }

// workspaceVoice finds a voice of the caller's workspace that may be changed by the caller.
func (s *Service) workspaceVoice(ctx context.Context, c *access.Caller, id, action string) (*store.Voice, error) {
	v, err := s.Lookup(ctx, c.WorkspaceID, id)
	if err != nil {
		return nil, err
	}
	if v.WorkspaceID == "" {
		return nil, errs.Errorf(errs.Invalid, "voice_not_editable", "Voice '%s' is a premade voice: premade voices cannot be %s.", id, action)
	}
	return v, s.CheckEditor(ctx, c, v)
}

// CheckEditor lets a workspace's own voice be changed only by workspace admins and members it
// is shared with as editor or admin (premade voices' settings are each workspace's own).
func (s *Service) CheckEditor(ctx context.Context, c *access.Caller, v *store.Voice) error {
	if v.WorkspaceID == "" || c.Role == access.RoleAdmin || (v.CreatedBy != "" && v.CreatedBy == c.UserID) {
		return nil
	}
	role, err := s.DB.SharedRole(ctx, c.WorkspaceID, store.ResourceVoice, v.ID, c.UserID)
	if err != nil {
		return err
	}
	if store.ResourceRoleRank(role) < store.ResourceRoleRank("editor") {
		return errs.Errorf(errs.Forbidden, "insufficient_resource_role",
			"Voice '%s' can be changed only by workspace admins, its creator and members it is shared with as editor or admin.", v.ID)
	}
	return nil
}

// EditClone renames or re-describes a workspace voice and, for a cloned voice, adds samples and
// fits the voice again from all of them. Every edit counts against the period's allowance.
func (s *Service) EditClone(ctx context.Context, c *access.Caller, id string, req *CloneRequest) error {
	var v errs.Validator
	req.Validate(&v, false)
	if err := v.Err(); err != nil {
		return err
	}
	cur, err := s.workspaceVoice(ctx, c, id, "edited")
	if err != nil {
		return err
	}
	if len(req.Files) > 0 && cur.Category != cloneCategory {
		v.Add("body", "files", "value_error", fmt.Sprintf("Samples can be added to cloned voices only; this voice is %s.", cur.Category))
		return v.Err()
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return err
	}
	tier := plan.Get(ws.Tier)
	next := *cur
	next.Name = strings.TrimSpace(req.Name)
	if req.Description != nil {
		next.Description = *req.Description
	}
	if req.Labels != nil {
		lb, _ := json.Marshal(req.Labels)
		next.Labels = string(lb)
	}
	var ps []prepared
	if len(req.Files) > 0 {
		if s.Cloner == nil {
			return ErrCloningUnavailable
		}
		old, err := s.DB.VoiceSamples(ctx, c.WorkspaceID, cur.ID)
		if err != nil {
			return err
		}
		if len(old)+len(req.Files) > MaxSamples {
			v.Add("body", "files", "value_error", fmt.Sprintf("A voice holds at most %d samples; it has %d.", MaxSamples, len(old)))
			return v.Err()
		}
		if ps, err = s.prepare(ctx, c, cur.ID, req.Files, req.RemoveBackgroundNoise, nextPosition(old)); err != nil {
			return err
		}
		prints := storedPrints(old)
		for _, p := range ps {
			prints = append(prints, p.print)
		}
		if err := s.refit(ctx, &next, prints, ps); err != nil {
			return err
		}
		if err := s.putSamples(ctx, ps); err != nil {
			return err
		}
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		ok, err := tx.CountVoiceAddEdit(ctx, c.WorkspaceID, plan.MaxVoiceAddEdits(tier), s.now())
		if err != nil {
			return err
		}
		if !ok {
			return errAddEditLimit(tier)
		}
		if err := tx.UpdateVoice(ctx, next); err != nil {
			return notFoundVoice(err, id)
		}
		for _, p := range ps {
			if err := tx.InsertVoiceSample(ctx, p.row); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.dropBlobs(ctx, ps)
	}
	return err
}

func notFoundVoice(err error, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return ErrVoiceNotFound(id)
	}
	return err
}

// nextPosition is the position after a voice's last sample.
func nextPosition(samples []store.VoiceSample) int {
	n := 0
	for _, s := range samples {
		n = max(n, s.Position+1)
	}
	return n
}

func storedPrints(samples []store.VoiceSample) []*voiceprint.Print {
	out := make([]*voiceprint.Print, 0, len(samples))
	for _, smp := range samples {
		var p voiceprint.Print
		if json.Unmarshal([]byte(smp.Voiceprint), &p) == nil {
			out = append(out, &p)
		}
	}
	return out
}

// refit makes v again from prints and the new samples ps.
func (s *Service) refit(ctx context.Context, v *store.Voice, prints []*voiceprint.Print, ps []prepared) error {
	if len(ps) == 0 && s.Remote != nil && v.Engine == s.Remote.Engine() {
		// A sample went from a server-made voice: the server's voice stays (the protocol makes
		// voices, it does not edit them); only the measured print follows the samples left.
		vp, _ := json.Marshal(s.Cloner.Merge(prints))
		v.Voiceprint = string(vp)
		return nil
	}
	merged, eng, engVoice, prosody, err := s.makeVoice(ctx, v.Name, prints, ps)
	if err != nil {
		return err
	}
	vp, _ := json.Marshal(merged)
	v.Engine, v.EngineVoice, v.Prosody, v.Voiceprint = eng, engVoice, prosody, string(vp)
	return nil
}

// DeleteVoice removes a workspace voice with its samples and their audio.
func (s *Service) DeleteVoice(ctx context.Context, c *access.Caller, id string) error {
	v, err := s.workspaceVoice(ctx, c, id, "deleted")
	if err != nil {
		return err
	}
	var gone []store.VoiceSample
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		if gone, err = tx.DeleteVoiceSamples(ctx, c.WorkspaceID, v.ID); err != nil {
			return err
		}
		return notFoundVoice(tx.DeleteVoice(ctx, c.WorkspaceID, v.ID), id)
	})
	if err != nil {
		return err
	}
	// The rows are gone: audio a failed delete leaves behind is unreachable, not an error to show.
	bg := context.WithoutCancel(ctx)
	for _, smp := range gone {
		_ = s.Blob.Delete(bg, smp.BlobKey)
	}
	if v.PreviewKey != "" {
		_ = s.Blob.Delete(bg, v.PreviewKey)
	}
	for _, k := range ParsePVC(v.PVC).ManualFiles { // a professional voice's review documents
		_ = s.Blob.Delete(bg, k)
	}
	return nil
}

// Samples lists a workspace voice's samples (none for premade voices).
func (s *Service) Samples(ctx context.Context, workspaceID string, v *store.Voice) ([]store.VoiceSample, error) {
	if v.WorkspaceID == "" {
		return nil, nil
	}
	return s.DB.VoiceSamples(ctx, workspaceID, v.ID)
}

var errSampleNotFound = func(id string) error {
	return errs.Errorf(errs.NotFound, "sample_not_found", "A sample with sample_id '%s' was not found.", id)
}

// SampleAudio returns a sample's uploaded audio and its MIME type.
func (s *Service) SampleAudio(ctx context.Context, c *access.Caller, voiceID, sampleID string) ([]byte, string, error) {
	v, err := s.Lookup(ctx, c.WorkspaceID, voiceID)
	if err != nil {
		return nil, "", err
	}
	smp, err := s.DB.VoiceSample(ctx, c.WorkspaceID, v.ID, sampleID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", errSampleNotFound(sampleID)
	}
	if err != nil {
		return nil, "", err
	}
	data, err := s.Blob.Get(ctx, smp.BlobKey)
	if err != nil {
		return nil, "", err
	}
	return data, smp.MimeType, nil
}

// DeleteSample removes a sample of a cloned voice and fits the voice again from the others (the
// last sample cannot go: a clone is made from at least one recording).
func (s *Service) DeleteSample(ctx context.Context, c *access.Caller, voiceID, sampleID string) error {
	v, err := s.workspaceVoice(ctx, c, voiceID, "changed")
	if err != nil {
		return err
	}
	all, err := s.DB.VoiceSamples(ctx, c.WorkspaceID, v.ID)
	if err != nil {
		return err
	}
	var gone *store.VoiceSample
	var rest []store.VoiceSample
	for i := range all {
		if all[i].ID == sampleID {
			gone = &all[i]
		} else {
			rest = append(rest, all[i])
		}
	}
	if gone == nil {
		return errSampleNotFound(sampleID)
	}
	if len(rest) == 0 {
		return errs.Errorf(errs.Invalid, "last_sample", "Sample '%s' is the voice's only recording; a cloned voice needs at least one. Delete the voice instead.", sampleID)
	}
	next := *v
	if s.Cloner != nil {
		if err := s.refit(ctx, &next, storedPrints(rest), nil); err != nil {
			return err
		}
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteVoiceSample(ctx, c.WorkspaceID, v.ID, sampleID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return errSampleNotFound(sampleID)
			}
			return err
		}
		return notFoundVoice(tx.UpdateVoice(ctx, next), voiceID)
	})
	if err != nil {
		return err
	}
	_ = s.Blob.Delete(context.WithoutCancel(ctx), gone.BlobKey)
	return nil
}
