package voice

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/listen"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/voiceprint"
)

// Professional voice cloning (PVC). A professional voice is created empty, gets samples (each
// trimmed and, after a speaker separation job, narrowed to the speakers picked), is verified
// (a captcha sentence read aloud, checked by speech to text and speaker similarity, or an
// operator's manual review), and is trained by a job: the parametric cloner analyses every
// picked speaker's audio, merges the prints and fits the voice. "Fine-tuned" here means fitted
// by measurement, not a neural fine-tune: the UI and docs say so.

const (
	ProfessionalCategory = "professional"
	// CaptchaMinSimilarity is the least voiceprint.Similarity between the recording and the
	// samples' merged print (TestProfessionalClone: another base voice reading the captcha is
	// refused by it, the samples' speaker passes).
	CaptchaMinSimilarity = 0.45
	// MinTrainSpeechSeconds is the least detected speech, over all picked audio, training
	// takes. A parametric fit needs far less than a neural fine-tune's 30 minutes.
	MinTrainSpeechSeconds = 10.0
	MaxPVCDescription     = 500
	MaxExtraText          = 2000
	waveformPoints        = 400
	verificationPrefix    = "pvc-verification/"
)

// PVCModels are the models a professional voice is trained for (fine_tuning.state's keys).
var PVCModels = []string{"eleven_multilingual_v2", "eleven_turbo_v2_5", "eleven_flash_v2_5"}

// PVCState is a professional voice's cloning state (voices.pvc).
type PVCState struct {
	Language        string             `json:"language"`
	Captcha         string             `json:"captcha,omitempty"`
	Verified        bool               `json:"verified"`
	Attempts        int                `json:"attempts"`
	Failures        []string           `json:"failures"`
	ManualRequested bool               `json:"manual_requested"`
	ManualText      string             `json:"manual_text,omitempty"`
	ManualFiles     []string           `json:"manual_files,omitempty"`
	State           map[string]string  `json:"state"`
	Progress        map[string]float64 `json:"progress"`
	Message         map[string]string  `json:"message"`
	DatasetSeconds  float64            `json:"dataset_seconds"`
}

// ParsePVC reads a voice's state (a fresh one for an empty column).
func ParsePVC(s string) PVCState {
	var st PVCState
	_ = json.Unmarshal([]byte(s), &st)
	if st.State == nil {
		st.State = map[string]string{}
	}
	if st.Progress == nil {
		st.Progress = map[string]float64{}
	}
	if st.Message == nil {
		st.Message = map[string]string{}
	}
	if st.Failures == nil {
		st.Failures = []string{}
	}
	return st
}

func (st PVCState) json() string { b, _ := json.Marshal(st); return string(b) }

// PVCQueue enqueues a job in the store's transaction (the job client).
type PVCQueue interface {
	InsertTx(ctx context.Context, tx *store.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
}

type pvcJobs struct{ q atomic.Pointer[PVCQueue] }

// SetJobs gives the service the job queue (speaker separation and training run as jobs).
func (s *Service) SetJobs(q PVCQueue) { s.jobs.q.Store(&q) }

func (s *Service) queue() (PVCQueue, error) {
	q := s.jobs.q.Load()
	if q == nil {
		return nil, errs.New(errs.Unavailable, "jobs_unavailable", "This server process runs no background jobs; professional cloning needs them.")
	}
	return *q, nil
}

// PVCCreate is POST /v1/voices/pvc and (all optional) POST /v1/voices/pvc/{id}.
type PVCCreate struct {
	Name        *string           `json:"name"`
	Language    *string           `json:"language"`
	Description *string           `json:"description"`
	Labels      map[string]string `json:"labels"`
}

func (r *PVCCreate) validate(v *errs.Validator, create bool) {
	if r.Name == nil && create {
		v.Add("body", "name", "missing", "Field required: give the voice a name.")
	} else if r.Name != nil {
		n := strings.TrimSpace(*r.Name)
		if n == "" {
			v.Add("body", "name", "string_too_short", "The name must not be empty.")
		} else if utf8.RuneCountInString(n) > MaxNameChars {
			v.Add("body", "name", "string_too_long", fmt.Sprintf("The name is longer than %d characters.", MaxNameChars))
		}
	}
	if r.Language == nil && create {
		v.Add("body", "language", "missing", "Field required: the language the samples are spoken in (ISO 639-1, such as en).")
	} else if r.Language != nil && !validLang(*r.Language) {
		v.Add("body", "language", "value_error", "Give the language as an ISO 639-1 code such as en or de.")
	}
	if r.Description != nil && utf8.RuneCountInString(*r.Description) > MaxPVCDescription {
		v.Add("body", "description", "string_too_long", fmt.Sprintf("The description is longer than %d characters.", MaxPVCDescription))
	}
	if len(r.Labels) > MaxLabels {
		v.Add("body", "labels", "value_error", fmt.Sprintf("At most %d labels.", MaxLabels))
	}
}

func validLang(s string) bool {
	if len(s) < 2 || len(s) > 3 {
		return false
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func errPVCLimit(t plan.Tier, limit, used int) error {
	if limit == 0 {
		return errs.Errorf(errs.Forbidden, "can_not_use_professional_voice_cloning",
			"Your subscription (%s) does not include professional voice cloning; upgrade to Creator or above.", t.Name)
	}
	return errs.Errorf(errs.Quota, "professional_voice_limit_reached",
		"You have reached your professional voice limit (%d / %d) on the %s plan. Delete a professional voice or upgrade to add more.", used, limit, t.Name)
}

// baseVoice is where an untrained professional voice speaks from: the first premade voice available.
func (s *Service) baseVoice() (string, string) {
	for _, p := range Catalogue {
		if _, ok := s.Engines[p.Engine]; ok {
			return p.Engine, p.EngineVoice
		}
	}
	return "espeak", "en"
}

// CreatePVC makes an empty professional voice: the plan's professional voice limit is counted in
// the transaction that inserts it, so concurrent creates cannot pass it.
func (s *Service) CreatePVC(ctx context.Context, c *access.Caller, req *PVCCreate) (*store.Voice, error) {
	var v errs.Validator
	req.validate(&v, true)
	if err := v.Err(); err != nil {
		return nil, err
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	st := ParsePVC("")
	st.Language = *req.Language
	for _, m := range PVCModels {
		st.State[m] = "not_started"
	}
	labels := req.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	lb, _ := json.Marshal(labels)
	desc := ""
	if req.Description != nil {
		desc = *req.Description
	}
	eng, ev := s.baseVoice()
	row := store.Voice{ID: NewVoiceID(), WorkspaceID: c.WorkspaceID, Name: strings.TrimSpace(*req.Name), Category: ProfessionalCategory,
		Description: desc, Labels: string(lb), Engine: eng, EngineVoice: ev, Language: st.Language, Prosody: "",
		CreatedAt: s.now().Unix(), CreatedBy: c.UserID, PVC: st.json()}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		used, err := tx.CountVoices(ctx, c.WorkspaceID, ProfessionalCategory)
		if err != nil {
			return err
		}
		if limit := plan.ProVoiceLimit(tier, ws.ExtraProVoiceSlots); used >= limit {
			return errPVCLimit(tier, limit, used)
		}
		return tx.CreateVoice(ctx, row)
	})
	if err != nil {
		return nil, err
	}
	return &row, nil
}

// pvcVoice finds a professional voice of the caller's workspace the caller may change.
func (s *Service) pvcVoice(ctx context.Context, c *access.Caller, id string) (*store.Voice, error) {
	v, err := s.workspaceVoice(ctx, c, id, "changed")
	if err != nil {
		return nil, err
	}
	if v.Category != ProfessionalCategory {
		return nil, errs.Errorf(errs.Invalid, "voice_not_professional", "Voice '%s' is a %s voice, not a professional clone.", id, v.Category)
	}
	return v, nil
}

// samplesFrozen refuses a change to a professional voice's samples while it is queued for
// training or training: the job reads them as it goes, and the voice must be built from what
// the user saw. Called inside the change's transaction with the voice row locked, so training
// cannot start in between.
func samplesFrozen(ctx context.Context, tx *store.Tx, workspaceID, id string) error {
	v, err := tx.VoiceForUpdate(ctx, workspaceID, id)
	if err != nil {
		return notFoundVoice(err, id)
	}
	for model, state := range ParsePVC(v.PVC).State {
		if state == "queued" || state == "fine_tuning" {
			return errs.Errorf(errs.Conflict, "training_in_progress",
				"The voice is being trained for %s: its samples cannot change until training ends.", model)
		}
	}
	return nil
}

// changePVC rewrites a professional voice's state in one transaction (fn sees the current state).
func (s *Service) changePVC(ctx context.Context, workspaceID, id string, fn func(v *store.Voice, st *PVCState) error) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		v, err := tx.VoiceForUpdate(ctx, workspaceID, id)
		if err != nil {
			return notFoundVoice(err, id)
		}
		st := ParsePVC(v.PVC)
		if err := fn(v, &st); err != nil {
			return err
		}
		v.PVC = st.json()
		if err := tx.UpdateVoice(ctx, *v); err != nil {
			return err
		}
		return tx.SetVoicePVC(ctx, workspaceID, id, v.PVC)
	})
}

// EditPVC changes a professional voice's name, language, description or labels.
func (s *Service) EditPVC(ctx context.Context, c *access.Caller, id string, req *PVCCreate) error {
	var v errs.Validator
	req.validate(&v, false)
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := s.pvcVoice(ctx, c, id); err != nil {
		return err
	}
	return s.changePVC(ctx, c.WorkspaceID, id, func(cur *store.Voice, st *PVCState) error {
		if req.Name != nil {
			cur.Name = strings.TrimSpace(*req.Name)
		}
		if req.Language != nil {
			cur.Language, st.Language = *req.Language, *req.Language
		}
		if req.Description != nil {
			cur.Description = *req.Description
		}
		if req.Labels != nil {
			lb, _ := json.Marshal(req.Labels)
			cur.Labels = string(lb)
		}
		return nil
	})
}

// AddPVCSamples stores recordings on a professional voice (decoded, cleaned if asked, checked for speech).
func (s *Service) AddPVCSamples(ctx context.Context, c *access.Caller, id string, files []CloneFile, denoise bool) ([]store.VoiceSample, error) {
	v, err := s.pvcVoice(ctx, c, id)
	if err != nil {
		return nil, err
	}
	var val errs.Validator
	if len(files) == 0 {
		val.Add("body", "files", "missing", "Field required: send at least one audio recording in files.")
		return nil, val.Err()
	}
	if s.Cloner == nil {
		return nil, ErrCloningUnavailable
	}
	old, err := s.DB.VoiceSamples(ctx, c.WorkspaceID, v.ID)
	if err != nil {
		return nil, err
	}
	if len(old)+len(files) > MaxSamples {
		val.Add("body", "files", "value_error", fmt.Sprintf("A voice holds at most %d samples; it has %d.", MaxSamples, len(old)))
		return nil, val.Err()
	}
	ps, err := s.prepare(ctx, c, v.ID, files, denoise, nextPosition(old))
	if err != nil {
		return nil, err
	}
	if err := s.putSamples(ctx, ps); err != nil {
		return nil, err
	}
	out := make([]store.VoiceSample, len(ps))
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := samplesFrozen(ctx, tx, c.WorkspaceID, v.ID); err != nil {
			return err
		}
		for i, p := range ps {
			p.row.SeparationStatus = "not_started"
			out[i] = p.row
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
	return out, nil
}

// PVCSampleEdit is POST /v1/voices/pvc/{id}/samples/{sample_id}.
type PVCSampleEdit struct {
	RemoveBackgroundNoise *bool     `json:"remove_background_noise"`
	SelectedSpeakerIDs    *[]string `json:"selected_speaker_ids"`
	TrimStartTime         *int64    `json:"trim_start_time"`
	TrimEndTime           *int64    `json:"trim_end_time"`
	FileName              *string   `json:"file_name"`
}

// pvcSample finds a sample of a professional voice the caller may change.
func (s *Service) pvcSample(ctx context.Context, c *access.Caller, id, sampleID string) (*store.Voice, *store.VoiceSample, error) {
	v, err := s.pvcVoice(ctx, c, id)
	if err != nil {
		return nil, nil, err
	}
	smp, err := s.DB.VoiceSample(ctx, c.WorkspaceID, v.ID, sampleID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errSampleNotFound(sampleID)
	}
	return v, smp, err
}

// EditPVCSample trims a sample, renames it or picks its speakers (times in milliseconds).
func (s *Service) EditPVCSample(ctx context.Context, c *access.Caller, id, sampleID string, req *PVCSampleEdit) error {
	_, smp, err := s.pvcSample(ctx, c, id, sampleID)
	if err != nil {
		return err
	}
	next := *smp
	var v errs.Validator
	durMS := int64(smp.DurationSecs * 1000)
	if req.TrimStartTime != nil {
		next.TrimStartMS = *req.TrimStartTime
	}
	if req.TrimEndTime != nil {
		next.TrimEndMS = *req.TrimEndTime
	}
	switch {
	case next.TrimStartMS < 0 || next.TrimStartMS >= durMS:
		v.Add("body", "trim_start_time", "value_error", fmt.Sprintf("The start must be between 0 and %d ms (the sample's length).", durMS))
	case next.TrimEndMS < 0 || next.TrimEndMS > durMS:
		v.Add("body", "trim_end_time", "value_error", fmt.Sprintf("The end must be between 0 (the end of the sample) and %d ms.", durMS))
	case next.TrimEndMS != 0 && next.TrimEndMS-next.TrimStartMS < 1000:
		v.Add("body", "trim_end_time", "value_error", "Keep at least one second of the sample (the end must lie 1000 ms after the start).")
	}
	if req.FileName != nil {
		n := strings.TrimSpace(*req.FileName)
		if n == "" || utf8.RuneCountInString(n) > 255 {
			v.Add("body", "file_name", "value_error", "The file name must be 1 to 255 characters.")
		}
		next.FileName = n
	}
	if req.RemoveBackgroundNoise != nil {
		next.RemoveBackgroundNoise = *req.RemoveBackgroundNoise
	}
	if req.SelectedSpeakerIDs != nil {
		sep := parseSeparation(smp.Speakers)
		if smp.SeparationStatus != "completed" {
			v.Add("body", "selected_speaker_ids", "value_error", "Separate the sample's speakers first (POST …/separate-speakers).")
		} else {
			for _, sid := range *req.SelectedSpeakerIDs {
				if _, ok := sep[sid]; !ok {
					v.Add("body", "selected_speaker_ids", "value_error", fmt.Sprintf("The sample has no speaker %q.", sid))
					break
				}
			}
		}
		b, _ := json.Marshal(*req.SelectedSpeakerIDs)
		next.SelectedSpeakerIDs = string(b)
	}
	if err := v.Err(); err != nil {
		return err
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := samplesFrozen(ctx, tx, c.WorkspaceID, id); err != nil {
			return err
		}
		if err := tx.UpdateVoiceSample(ctx, next); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return errSampleNotFound(sampleID)
			}
			return err
		}
		return nil
	})
}

// DeletePVCSample removes a sample of a professional voice and its audio.
func (s *Service) DeletePVCSample(ctx context.Context, c *access.Caller, id, sampleID string) error {
	v, smp, err := s.pvcSample(ctx, c, id, sampleID)
	if err != nil {
		return err
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := samplesFrozen(ctx, tx, c.WorkspaceID, v.ID); err != nil {
			return err
		}
		if err := tx.DeleteVoiceSample(ctx, c.WorkspaceID, v.ID, sampleID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return errSampleNotFound(sampleID)
			}
			return err
		}
		return nil
	})
	if err == nil {
		_ = s.Blob.Delete(context.WithoutCancel(ctx), smp.BlobKey)
	}
	return err
}

// PVCSampleAudio returns a sample's audio as uploaded.
func (s *Service) PVCSampleAudio(ctx context.Context, c *access.Caller, id, sampleID string) ([]byte, *store.VoiceSample, error) {
	v, err := s.Get(ctx, c.WorkspaceID, id)
	if err != nil {
		return nil, nil, err
	}
	smp, err := s.DB.VoiceSample(ctx, c.WorkspaceID, v.ID, sampleID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errSampleNotFound(sampleID)
	}
	if err != nil {
		return nil, nil, err
	}
	data, err := s.Blob.Get(ctx, smp.BlobKey)
	return data, smp, err
}

// samplePCM decodes a sample to 16 kHz mono (what VAD, diarization and analysis share).
func (s *Service) samplePCM(ctx context.Context, smp *store.VoiceSample) (engine.PCM, error) {
	data, err := s.Blob.Get(ctx, smp.BlobKey)
	if err != nil {
		return engine.PCM{}, err
	}
	pcm, rate, err := audio.Decode(ctx, data)
	if err != nil {
		return engine.PCM{}, err
	}
	return engine.PCM{Samples: audio.Resample(pcm, rate, 16000), SampleRate: 16000}, nil
}

// Waveform is a sample's peaks (0–1, waveformPoints of them) for drawing.
func (s *Service) Waveform(ctx context.Context, c *access.Caller, id, sampleID string) ([]float64, error) {
	_, smp, err := s.PVCSampleAudio(ctx, c, id, sampleID)
	if err != nil {
		return nil, err
	}
	pcm, err := s.samplePCM(ctx, smp)
	if err != nil {
		return nil, err
	}
	return peaks(pcm.Samples, waveformPoints), nil
}

func peaks(x []int16, n int) []float64 {
	out := make([]float64, n)
	if len(x) == 0 {
		return out
	}
	for i := range n {
		lo, hi := i*len(x)/n, (i+1)*len(x)/n
		m := 0
		for _, v := range x[lo:max(hi, lo)] {
			m = max(m, abs(int(v)))
		}
		out[i] = float64(m) / 32768
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Speaker is one speaker found in a sample, with its utterances (seconds into the sample).
type Speaker struct {
	SpeakerID    string      `json:"speaker_id"`
	DurationSecs float64     `json:"duration_secs"`
	Utterances   []Utterance `json:"utterances"`
}

// Utterance is a stretch of one speaker's speech.
type Utterance struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

func parseSeparation(s string) map[string]Speaker {
	out := map[string]Speaker{}
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

func parseSelected(s string) []string {
	var out []string
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

// SeparateArgs is the speaker separation job of one sample.
type SeparateArgs struct {
	WorkspaceID string `json:"workspace_id"`
	VoiceID     string `json:"voice_id"`
	SampleID    string `json:"sample_id"`
}

func (SeparateArgs) Kind() string { return "pvc_separate_speakers" }

// StartSeparation marks the sample pending and queues the job in the same transaction.
func (s *Service) StartSeparation(ctx context.Context, c *access.Caller, id, sampleID string) error {
	_, smp, err := s.pvcSample(ctx, c, id, sampleID)
	if err != nil {
		return err
	}
	q, err := s.queue()
	if err != nil {
		return err
	}
	if smp.SeparationStatus == "pending" {
		return errs.Errorf(errs.Conflict, "speaker_separation_pending", "Sample '%s' is being separated already.", sampleID)
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		cur, err := tx.VoiceSample(ctx, c.WorkspaceID, id, sampleID)
		if err != nil {
			return err
		}
		cur.SeparationStatus, cur.Speakers, cur.SelectedSpeakerIDs = "pending", "", ""
		if err := tx.UpdateVoiceSample(ctx, *cur); err != nil {
			return err
		}
		_, err = q.InsertTx(ctx, tx, SeparateArgs{WorkspaceID: c.WorkspaceID, VoiceID: id, SampleID: sampleID}, &river.InsertOpts{MaxAttempts: 1})
		return err
	})
}

// Separate runs a speaker separation: VAD, speaker embeddings and clustering (listen.Diarize) on
// the sample's audio; every speaker is picked until the user chooses.
func (s *Service) Separate(ctx context.Context, a SeparateArgs) error {
	smp, err := s.DB.VoiceSample(ctx, a.WorkspaceID, a.VoiceID, a.SampleID)
	if err != nil {
		return err // deleted meanwhile: nothing to do
	}
	speakers, err := s.separate(ctx, smp)
	status := "completed"
	if err != nil {
		status = "failed"
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		cur, err := tx.VoiceSample(ctx, a.WorkspaceID, a.VoiceID, a.SampleID)
		if err != nil {
			return nil
		}
		cur.SeparationStatus = status
		if status == "completed" {
			b, _ := json.Marshal(speakers)
			cur.Speakers = string(b)
			ids := make([]string, 0, len(speakers))
			for id := range speakers {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			sb, _ := json.Marshal(ids)
			cur.SelectedSpeakerIDs = string(sb)
		}
		return tx.UpdateVoiceSample(ctx, *cur)
	})
}

func (s *Service) separate(ctx context.Context, smp *store.VoiceSample) (map[string]Speaker, error) {
	pcm, err := s.samplePCM(ctx, smp)
	if err != nil {
		return nil, err
	}
	turns, err := listen.Diarize(pcm.Samples, listen.DiarizeOptions{})
	if err != nil {
		return nil, err
	}
	if len(turns) == 0 {
		return nil, errors.New("no speech found")
	}
	out := map[string]Speaker{}
	for _, t := range turns {
		id := fmt.Sprintf("speaker_%d", t.Speaker)
		sp := out[id]
		sp.SpeakerID = id
		sp.Utterances = append(sp.Utterances, Utterance{Start: round3(t.Start), End: round3(t.End)})
		sp.DurationSecs = round3(sp.DurationSecs + t.End - t.Start)
		out[id] = sp
	}
	return out, nil
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// Separation is a sample's speaker separation as stored.
func (s *Service) Separation(ctx context.Context, c *access.Caller, id, sampleID string) (*store.VoiceSample, map[string]Speaker, error) {
	_, smp, err := s.PVCSampleAudio(ctx, c, id, sampleID)
	if err != nil {
		return nil, nil, err
	}
	return smp, parseSeparation(smp.Speakers), nil
}

// SpeakerAudio is one separated speaker's speech, cut from the sample, as 16 kHz WAV.
func (s *Service) SpeakerAudio(ctx context.Context, c *access.Caller, id, sampleID, speakerID string) ([]byte, float64, error) {
	smp, speakers, err := s.Separation(ctx, c, id, sampleID)
	if err != nil {
		return nil, 0, err
	}
	sp, ok := speakers[speakerID]
	if !ok {
		return nil, 0, errs.Errorf(errs.NotFound, "speaker_not_found", "Sample '%s' has no separated speaker '%s'.", sampleID, speakerID)
	}
	pcm, err := s.samplePCM(ctx, smp)
	if err != nil {
		return nil, 0, err
	}
	cut := cutUtterances(pcm, sp.Utterances)
	return audio.WAV(cut, pcm.SampleRate), float64(len(cut)) / float64(pcm.SampleRate), nil
}

func cutUtterances(pcm engine.PCM, us []Utterance) []int16 {
	var out []int16
	for _, u := range us {
		lo := min(len(pcm.Samples), max(0, int(u.Start*float64(pcm.SampleRate))))
		hi := min(len(pcm.Samples), max(lo, int(u.End*float64(pcm.SampleRate))))
		out = append(out, pcm.Samples[lo:hi]...)
	}
	return out
}

// trainingAudio is the part of a sample training uses: trimmed, then only the picked speakers.
func (s *Service) trainingAudio(ctx context.Context, smp *store.VoiceSample) (engine.PCM, error) {
	pcm, err := s.samplePCM(ctx, smp)
	if err != nil {
		return pcm, err
	}
	if smp.SeparationStatus == "completed" {
		sel := parseSelected(smp.SelectedSpeakerIDs)
		speakers := parseSeparation(smp.Speakers)
		var us []Utterance
		for _, id := range sel {
			us = append(us, speakers[id].Utterances...)
		}
		slices.SortFunc(us, func(a, b Utterance) int {
			switch {
			case a.Start < b.Start:
				return -1
			case a.Start > b.Start:
				return 1
			}
			return 0
		})
		start, end := float64(smp.TrimStartMS)/1000, float64(smp.TrimEndMS)/1000
		var kept []Utterance
		for _, u := range us {
			if u.End <= start || (end > 0 && u.Start >= end) {
				continue
			}
			u.Start = max(u.Start, start)
			if end > 0 {
				u.End = min(u.End, end)
			}
			kept = append(kept, u)
		}
		pcm.Samples = cutUtterances(pcm, kept)
		return pcm, nil
	}
	lo := min(len(pcm.Samples), int(smp.TrimStartMS*16))
	hi := len(pcm.Samples)
	if smp.TrimEndMS > 0 {
		hi = min(hi, int(smp.TrimEndMS*16))
	}
	pcm.Samples = pcm.Samples[lo:max(lo, hi)]
	return pcm, nil
}

// Captcha gives the sentence to read for verification (a new one each time; the last one counts).
func (s *Service) Captcha(ctx context.Context, c *access.Caller, id string) (string, error) {
	if _, err := s.pvcVoice(ctx, c, id); err != nil {
		return "", err
	}
	// Two different sentences: a longer reading makes the word error rate steadier.
	n := len(CaptchaSentences)
	a, _ := rand.Int(rand.Reader, big.NewInt(int64(n)))
	b, _ := rand.Int(rand.Reader, big.NewInt(int64(n-1)))
	i, j := int(a.Int64()), int(b.Int64())
	if j >= i {
		j++
	}
	text := CaptchaSentences[i] + " " + CaptchaSentences[j]
	err := s.changePVC(ctx, c.WorkspaceID, id, func(_ *store.Voice, st *PVCState) error { st.Captcha = text; return nil })
	return text, err
}

// VerifyPVCCaptcha checks a recording of a professional voice's captcha sentence: the recogniser's word error rate
// against the text at most CaptchaMaxWER, and the speaker's print at least CaptchaMinSimilarity
// alike to the samples'. A pass verifies the voice; a failure is counted with its reason.
func (s *Service) VerifyPVCCaptcha(ctx context.Context, c *access.Caller, id string, rec CloneFile) error {
	v, err := s.pvcVoice(ctx, c, id)
	if err != nil {
		return err
	}
	st := ParsePVC(v.PVC)
	if st.Captcha == "" {
		return errs.New(errs.Invalid, "captcha_not_requested", "Ask for the captcha text first (GET /v1/voices/pvc/{voice_id}/captcha).")
	}
	samples, err := s.DB.VoiceSamples(ctx, c.WorkspaceID, v.ID)
	if err != nil {
		return err
	}
	if len(samples) == 0 {
		return errs.New(errs.Invalid, "no_samples", "Add samples of the voice before verifying it: the recording is compared with them.")
	}
	if s.Cloner == nil || len(s.Recognizers) == 0 {
		return ErrCloningUnavailable
	}
	if len(rec.Data) == 0 || len(rec.Data) > MaxSampleBytes {
		var val errs.Validator
		val.Add("body", "recording", "value_error", fmt.Sprintf("Send a recording of at most %d MB.", MaxSampleBytes>>20))
		return val.Err()
	}
	pcmS, rate, err := audio.Decode(ctx, rec.Data)
	if err != nil {
		var val errs.Validator
		val.Add("body", "recording", "value_error", "The recording is not audio that can be decoded.")
		return val.Err()
	}
	pcm := engine.PCM{Samples: audio.Resample(pcmS, rate, 16000), SampleRate: 16000}
	reason := ""
	pr, err := s.Cloner.Analyse(pcm)
	if err != nil || pr == nil {
		reason = "no speech could be measured in the recording"
	}
	if reason == "" {
		rz, err := engine.ChooseRecognizer(s.Recognizers, st.Language)
		if err != nil {
			rz = s.Recognizers[0]
		}
		tr, err := rz.Transcribe(ctx, pcm, engine.TranscribeOptions{Language: st.Language})
		if err != nil {
			return errs.Errorf(errs.Upstream, "transcription_failed", "The recording could not be transcribed: %v", err)
		}
		wer := WordErrorRate(st.Captcha, tr.Text) // percent
		sim := voiceprint.Similarity(pr.Embedding, s.Cloner.Merge(storedPrints(samples)).Embedding)
		switch {
		case wer > CaptchaMaxWER:
			reason = fmt.Sprintf("the recording does not read the captcha text (word error rate %.0f %%, at most %.0f %%)", wer, CaptchaMaxWER)
		case sim < CaptchaMinSimilarity:
			reason = fmt.Sprintf("the voice does not match the samples (similarity %.2f, at least %.2f)", sim, CaptchaMinSimilarity)
		}
	}
	err = s.changePVC(ctx, c.WorkspaceID, id, func(_ *store.Voice, st *PVCState) error {
		st.Attempts++
		if reason == "" {
			st.Verified = true
		} else {
			st.Failures = append(st.Failures, reason)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if reason != "" {
		return errs.Errorf(errs.Invalid, "captcha_verification_failed", "Verification failed: %s. Ask for a new captcha and read it clearly.", reason)
	}
	return nil
}

// RequestManualVerification keeps the documents sent for an operator's review (timbre admin
// pvc-verify approves them).
func (s *Service) RequestManualVerification(ctx context.Context, c *access.Caller, id string, files []CloneFile, extra string) error {
	v, err := s.pvcVoice(ctx, c, id)
	if err != nil {
		return err
	}
	var val errs.Validator
	if len(files) == 0 {
		val.Add("body", "files", "missing", "Field required: send at least one document or recording for the review.")
	}
	if utf8.RuneCountInString(extra) > MaxExtraText {
		val.Add("body", "extra_text", "string_too_long", fmt.Sprintf("At most %d characters.", MaxExtraText))
	}
	if err := val.Err(); err != nil {
		return err
	}
	var keys []string
	for _, f := range files {
		k := verificationPrefix + c.WorkspaceID + "/" + v.ID + "/" + store.NewID()
		if err := s.Blob.Put(ctx, k, f.Data, f.ContentType); err != nil {
			return err
		}
		keys = append(keys, k)
	}
	return s.changePVC(ctx, c.WorkspaceID, id, func(_ *store.Voice, st *PVCState) error {
		st.ManualRequested, st.ManualText = true, extra
		st.ManualFiles = append(st.ManualFiles, keys...)
		return nil
	})
}

// ApproveManualVerification is the operator's approval of a voice's manual review.
func (s *Service) ApproveManualVerification(ctx context.Context, workspaceID, id string) error {
	return s.changePVC(ctx, workspaceID, id, func(v *store.Voice, st *PVCState) error {
		if v.Category != ProfessionalCategory {
			return errs.Errorf(errs.Invalid, "voice_not_professional", "Voice '%s' is not a professional clone.", id)
		}
		st.Verified = true
		return nil
	})
}

// TrainArgs is the training job of one professional voice for one model.
type TrainArgs struct {
	WorkspaceID string `json:"workspace_id"`
	VoiceID     string `json:"voice_id"`
	ModelID     string `json:"model_id"`
}

func (TrainArgs) Kind() string { return "pvc_train" }

// StartTraining queues training for a model: the voice must be verified and its samples must
// hold at least MinTrainSpeechSeconds of speech.
func (s *Service) StartTraining(ctx context.Context, c *access.Caller, id, modelID string) error {
	if modelID == "" {
		modelID = PVCModels[0]
	}
	if !slices.Contains(PVCModels, modelID) {
		var val errs.Validator
		val.Add("body", "model_id", "value_error", "Professional voices are trained for "+strings.Join(PVCModels, ", ")+".")
		return val.Err()
	}
	v, err := s.pvcVoice(ctx, c, id)
	if err != nil {
		return err
	}
	q, err := s.queue()
	if err != nil {
		return err
	}
	samples, err := s.DB.VoiceSamples(ctx, c.WorkspaceID, v.ID)
	if err != nil {
		return err
	}
	speech := 0.0
	for _, p := range storedPrints(samples) {
		speech += p.SpeechSeconds
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		cur, err := tx.VoiceForUpdate(ctx, c.WorkspaceID, id)
		if err != nil {
			return notFoundVoice(err, id)
		}
		st := ParsePVC(cur.PVC)
		switch {
		case !st.Verified:
			return errs.New(errs.Invalid, "voice_not_verified", "Verify the voice first: read the captcha (…/captcha) or request a manual verification.")
		case speech < MinTrainSpeechSeconds:
			return errs.Errorf(errs.Invalid, "not_enough_speech", "The samples hold %.1f s of speech; training needs at least %.0f s.", speech, MinTrainSpeechSeconds)
		case st.State[modelID] == "queued" || st.State[modelID] == "fine_tuning":
			return errs.Errorf(errs.Conflict, "training_in_progress", "The voice is being trained for %s already.", modelID)
		}
		st.State[modelID], st.Progress[modelID] = "queued", 0
		delete(st.Message, modelID)
		if err := tx.SetVoicePVC(ctx, c.WorkspaceID, id, st.json()); err != nil {
			return err
		}
		_, err = q.InsertTx(ctx, tx, TrainArgs{WorkspaceID: c.WorkspaceID, VoiceID: id, ModelID: modelID}, &river.InsertOpts{MaxAttempts: 1})
		return err
	})
}

func (s *Service) setProgress(ctx context.Context, a TrainArgs, state string, progress float64, msg string) error {
	return s.changePVC(ctx, a.WorkspaceID, a.VoiceID, func(_ *store.Voice, st *PVCState) error {
		st.State[a.ModelID], st.Progress[a.ModelID] = state, progress
		if msg != "" {
			st.Message[a.ModelID] = msg
		}
		return nil
	})
}

// Train builds the voice from every picked speaker's audio of its samples: each analysed, the
// prints merged and fitted; progress goes from 0 to 1 as samples are analysed.
func (s *Service) Train(ctx context.Context, a TrainArgs) error {
	if err := s.setProgress(ctx, a, "fine_tuning", 0.05, ""); err != nil {
		return err
	}
	err := s.train(ctx, a)
	if err != nil {
		return s.setProgress(ctx, a, "failed", 0, err.Error())
	}
	return nil
}

func (s *Service) train(ctx context.Context, a TrainArgs) error {
	if s.Cloner == nil {
		return ErrCloningUnavailable
	}
	samples, err := s.DB.VoiceSamples(ctx, a.WorkspaceID, a.VoiceID)
	if err != nil {
		return err
	}
	var prints []*voiceprint.Print
	speech := 0.0
	for i := range samples {
		pcm, err := s.trainingAudio(ctx, &samples[i])
		if err != nil {
			return fmt.Errorf("sample %s: %w", samples[i].FileName, err)
		}
		if pcm.Seconds() >= voiceprint.MinSpeechSeconds {
			if p, err := s.Cloner.Analyse(pcm); err == nil && p != nil && p.F0Median > 0 {
				prints = append(prints, p)
				speech += p.SpeechSeconds
			}
		}
		if err := s.setProgress(ctx, a, "fine_tuning", 0.05+0.8*float64(i+1)/float64(len(samples)), ""); err != nil {
			return err
		}
	}
	if speech < MinTrainSpeechSeconds {
		return fmt.Errorf("the picked speakers' audio holds %.1f s of speech; at least %.0f s is needed", speech, MinTrainSpeechSeconds)
	}
	merged, fit, prosody, err := s.fitProsody(ctx, prints)
	if err != nil {
		return err
	}
	vp, _ := json.Marshal(merged)
	return s.changePVC(ctx, a.WorkspaceID, a.VoiceID, func(v *store.Voice, st *PVCState) error {
		v.Engine, v.EngineVoice, v.Prosody, v.Voiceprint = fit.Engine, fit.EngineVoice, prosody, string(vp)
		st.State[a.ModelID], st.Progress[a.ModelID], st.DatasetSeconds = "fine_tuned", 1, round3(speech)
		delete(st.Message, a.ModelID)
		return nil
	})
}

// CaptchaSentences are what a voice captcha (one sentence) and a PVC verification (two) ask to
// read: Harvard sentences (IEEE 1969, lists 1–2, public domain), short and phonetically
// balanced, in plain words a recogniser knows. Four of the lists' sentences are left out: the
// embedded recogniser gets half their words wrong even from clear speech (unusual word pairs:
// "birch canoe", "hogs… chopped corn"; "Rice is often served in round bowls": 57 % by flite's
// rms and slt once every utterance was decoded as on a fresh decoder).
// TestCaptchaSentencesRecognised measures each.
var CaptchaSentences = []string{
	"Glue the sheet to the dark blue background.",
	"It's easy to tell the depth of a well.",
	"These days a chicken leg is a rare dish.",
	"The juice of lemons makes fine punch.",
	"The box was thrown beside the parked truck.",
	"A large size in stockings is hard to sell.",
	"The boy was there when the sun rose.",
	"A rod is used to catch pink salmon.",
	"The source of the huge river is the clear spring.",
	"Kick the ball straight and follow through.",
	"Help the woman get back to her feet.",
	"A pot of tea helps to pass the evening.",
	"Smoky fires lack flame and heat.",
	"The soft cushion broke the man's fall.",
	"The salt breeze came across from the sea.",
	"The girl at the booth sold fifty bonds.",
}
