package stt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/entities"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/netguard"
	"time"
)

// Handlers serves the speech-to-text routes.
type Handlers struct {
	Svc *Service
	// MaxUpload bounds an uploaded or fetched audio file (bytes).
	MaxUpload int64
	// Fetch is the client that downloads source_url (guarded against internal addresses).
	Fetch *http.Client
	// Sessions tracks the real-time sessions, which the server ends on shutdown (nil: untracked).
	Sessions *Sessions
}

// DefaultMaxUpload is the largest audio file accepted by default (1 GiB).
const DefaultMaxUpload = 1 << 30

// NewFetchClient is the client for source_url: the SSRF guard of webhooks, a few redirects,
// and a generous time limit for large files.
func NewFetchClient(g *netguard.Guard) *http.Client {
	return g.Client(netguard.ClientOptions{Timeout: 10 * time.Minute, MaxRedirects: 5})
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	feature := httpx.Feature("speech_to_text")
	rt.Authed("POST /v1/speech-to-text", h.convert, httpx.Perm("speech_to_text"), feature)
	rt.Authed("GET /v1/speech-to-text/transcripts/{transcription_id}", h.get, httpx.Perm("speech_to_text"), feature)
	rt.Authed("DELETE /v1/speech-to-text/transcripts/{transcription_id}", h.delete, httpx.Perm("speech_to_text"), feature)
	rt.Authed("GET /v1/speech-to-text/realtime", h.realtime, httpx.Perm("speech_to_text"), feature)
	rt.Authed("POST /v1/audio/transcriptions", h.openAITranscribe, httpx.Perm("speech_to_text"), feature)
	rt.Authed("POST /v1/forced-alignment", h.align, httpx.Perm("speech_to_text"), feature)

	// The web app's transcripts: list, view with edits, edit, audio, exports as files.
	rt.Authed("GET /api/speech-to-text/transcripts", h.list, httpx.Perm("speech_to_text"), feature)
	rt.Authed("GET /api/speech-to-text/transcripts/{transcription_id}", h.view, httpx.Perm("speech_to_text"), feature)
	rt.Authed("PATCH /api/speech-to-text/transcripts/{transcription_id}", h.edit, httpx.Perm("speech_to_text"), feature)
	rt.Authed("GET /api/speech-to-text/transcripts/{transcription_id}/audio", h.audio, httpx.Perm("speech_to_text"), feature)
	rt.Authed("GET /api/speech-to-text/transcripts/{transcription_id}/export", h.export, httpx.Perm("speech_to_text"), feature)
}

// maxEditBody bounds a PATCH of a transcript (the whole edited text travels in it).
const maxEditBody = 8 << 20

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	size := 30
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return errs.Field("query", "page_size", "int_parsing", "Input should be a valid integer.")
		}
		size = n
	}
	p, err := h.Svc.List(r.Context(), access.CallerFrom(r.Context()), q.Get("cursor"), size)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, p)
	return nil
}

func (h *Handlers) view(w http.ResponseWriter, r *http.Request) error {
	v, err := h.Svc.View(r.Context(), access.CallerFrom(r.Context()), r.PathValue("transcription_id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, v)
	return nil
}

func (h *Handlers) edit(w http.ResponseWriter, r *http.Request) error {
	var e Edit
	if err := httpx.DecodeJSON(r, maxEditBody, &e); err != nil {
		return err
	}
	v, err := h.Svc.Edit(r.Context(), access.CallerFrom(r.Context()), r.PathValue("transcription_id"), e)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, v)
	return nil
}

func (h *Handlers) audio(w http.ResponseWriter, r *http.Request) error {
	audio, ctype, err := h.Svc.Audio(r.Context(), access.CallerFrom(r.Context()), r.PathValue("transcription_id"))
	if err != nil {
		return err
	}
	defer audio.Close()
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "private, max-age=3600")
	// ServeContent answers Range requests, which the browser's player needs to seek.
	http.ServeContent(w, r, "", time.Time{}, audio)
	return nil
}

func (h *Handlers) export(w http.ResponseWriter, r *http.Request) error {
	f, err := h.Svc.ExportFile(r.Context(), access.CallerFrom(r.Context()), r.PathValue("transcription_id"), r.URL.Query().Get("format"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", f.ContentType)
	w.Header().Set("Content-Disposition", httpx.AttachmentDisposition(f.Name))
	w.Header().Set("Content-Length", strconv.Itoa(len(f.Data)))
	_, err = w.Write(f.Data)
	return err
}

func (h *Handlers) convert(w http.ResponseWriter, r *http.Request) error {
	req, err := h.parse(r)
	if err != nil {
		return err
	}
	if req.Webhook {
		a, err := h.Svc.Start(r.Context(), access.CallerFrom(r.Context()), req)
		if err != nil {
			return err
		}
		httpx.WriteJSON(w, http.StatusAccepted, a)
		return nil
	}
	t, err := h.Svc.Transcribe(r.Context(), access.CallerFrom(r.Context()), req)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, t)
	return nil
}

// align answers POST /v1/forced-alignment: multipart file and text (enabled_spooled_file is
// accepted and changes nothing: uploads are always read to the end before decoding).
func (h *Handlers) align(w http.ResponseWriter, r *http.Request) error {
	limit := h.MaxUpload
	if limit <= 0 {
		limit = DefaultMaxUpload
	}
	form, err := httpx.ReadForm(r, limit, "file")
	if err != nil {
		return err
	}
	var v errs.Validator
	if s := strings.TrimSpace(form.Value("enabled_spooled_file")); s != "" {
		if _, err := strconv.ParseBool(s); err != nil {
			v.Add("body", "enabled_spooled_file", "bool_parsing", "Input should be a valid boolean.")
		}
	}
	if form.File == nil {
		v.Add("body", "file", "missing", "Send the audio in the file field.")
	}
	if _, ok := form.Fields["text"]; !ok {
		v.Add("body", "text", "missing", "Send the words spoken in the audio in the text field.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	a, err := h.Svc.Align(r.Context(), access.CallerFrom(r.Context()), form.File, form.Value("text"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, a)
	return nil
}

func (h *Handlers) get(w http.ResponseWriter, r *http.Request) error {
	t, err := h.Svc.Get(r.Context(), access.CallerFrom(r.Context()), r.PathValue("transcription_id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, t)
	return nil
}

func (h *Handlers) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.Svc.Delete(r.Context(), access.CallerFrom(r.Context()), r.PathValue("transcription_id")); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{})
	return nil
}

// parse reads and validates the multipart form of POST /v1/speech-to-text. Every field of the
// reference is accepted; each invalid one is named in the 422.
func (h *Handlers) parse(r *http.Request) (*Request, error) {
	limit := h.MaxUpload
	if limit <= 0 {
		limit = DefaultMaxUpload
	}
	form, err := httpx.ReadForm(r, limit, "file", "audio")
	if err != nil {
		return nil, err
	}
	var v errs.Validator
	req := &Request{Logging: true, Granularity: "word", TagAudioEvents: true}
	req.Logging = httpx.QueryBool(r.URL.Query(), &v, "enable_logging", true)
	field := func(name string) string { return strings.TrimSpace(form.Value(name)) }
	boolean := func(name string, dst *bool) {
		if s := field(name); s != "" {
			b, err := strconv.ParseBool(s)
			if err != nil {
				v.Add("body", name, "bool_parsing", "Input should be a valid boolean.")
			}
			*dst = b
		}
	}
	req.ModelID = field("model_id")
	switch {
	case req.ModelID == "":
		v.Add("body", "model_id", "missing", "Field required: model_id.")
	case !slices.Contains(Models, req.ModelID):
		v.Add("body", "model_id", "enum", fmt.Sprintf("Unknown model_id '%s'. Use one of: %s.", req.ModelID, strings.Join(Models, ", ")))
	}
	req.LanguageCode = field("language_code")
	if g := field("timestamps_granularity"); g != "" {
		if !slices.Contains([]string{"none", "word", "character"}, g) {
			v.Add("body", "timestamps_granularity", "enum", "Input should be 'none', 'word' or 'character'.")
		}
		req.Granularity = g
	}
	boolean("tag_audio_events", &req.TagAudioEvents)
	boolean("diarize", &req.Diarize)
	boolean("use_multi_channel", &req.MultiChannel)
	var webhook, noVerbatim, speakerLibrary bool // no_verbatim needs nothing: pocketsphinx writes no fillers or false starts
	boolean("webhook", &webhook)
	boolean("no_verbatim", &noVerbatim)
	boolean("use_speaker_library", &speakerLibrary)
	boolean("detect_speaker_roles", &req.SpeakerRoles)
	if s := field("num_speakers"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 32 {
			v.Add("body", "num_speakers", "value_error", "Input should be an integer from 1 to 32.")
		}
		req.NumSpeakers = n
	}
	if s := field("diarization_threshold"); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil || x < 0.1 || x > 0.4:
			v.Add("body", "diarization_threshold", "value_error", "Input should be a number from 0.1 to 0.4.")
		case !req.Diarize || req.NumSpeakers > 0:
			v.Add("body", "diarization_threshold", "value_error", "diarization_threshold can only be set when diarize is true and num_speakers is not set.")
		}
		req.Threshold = x
	}
	if s := field("temperature"); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < 0 || x > 2 {
			v.Add("body", "temperature", "value_error", "Input should be a number from 0 to 2.")
		}
		req.Temperature = &x
	}
	if s := field("seed"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > 2147483647 {
			v.Add("body", "seed", "value_error", "Input should be an integer from 0 to 2147483647.")
		}
		req.Seed = &n
	}
	if s := field("file_format"); s != "" {
		if s != "pcm_s16le_16" && s != "other" {
			v.Add("body", "file_format", "enum", "Input should be 'pcm_s16le_16' or 'other'.")
		}
		req.RawPCM = s == "pcm_s16le_16"
	}
	// use_multi_channel: one speaker per channel, each channel its own speaker id, so neither
	// diarize nor num_speakers applies (ElevenLabs refuses both with it). Without it,
	// multichannel_output_style changes nothing.
	req.ChannelStyle = StyleSeparate
	if s := field("multichannel_output_style"); s != "" {
		switch {
		case s != StyleSeparate && s != StyleCombined:
			v.Add("body", "multichannel_output_style", "enum", "Input should be 'separate' or 'combined'.")
		case s == StyleCombined && req.MultiChannel && req.Granularity == "none":
			v.Add("body", "multichannel_output_style", "value_error", "multichannel_output_style 'combined' orders the channels' words by time, so it needs timestamps: timestamps_granularity must not be 'none'.")
		}
		req.ChannelStyle = s
	}
	if req.MultiChannel && req.Diarize {
		v.Add("body", "use_multi_channel", "value_error", "use_multi_channel cannot be combined with diarize=true: each channel is taken as one speaker (channel 0 is speaker_0, …); set diarize to false.")
	}
	if req.MultiChannel && req.NumSpeakers > 0 {
		v.Add("body", "use_multi_channel", "value_error", "use_multi_channel cannot be combined with num_speakers: the number of speakers is the number of channels.")
	}
	// use_speaker_library names the speakers diarization finds after the workspace's voices.
	if speakerLibrary && !req.Diarize {
		v.Add("body", "use_speaker_library", "value_error", "use_speaker_library requires diarize=true: it matches the speakers that diarization finds against the workspace's voices.")
	}
	req.SpeakerLibrary = speakerLibrary
	// detect_speaker_roles names the speakers diarization finds, so it needs diarize; with
	// use_multi_channel each channel is its own speaker and there is no diarization to name.
	switch {
	case req.SpeakerRoles && req.MultiChannel:
		v.Add("body", "detect_speaker_roles", "value_error", "detect_speaker_roles cannot be used with use_multi_channel=true: it names the speakers that diarization finds; send diarize=true without use_multi_channel.")
	case req.SpeakerRoles && !req.Diarize:
		v.Add("body", "detect_speaker_roles", "value_error", "detect_speaker_roles requires diarize=true: it names the speakers that diarization finds.")
	}
	// Entities: entity_detection and entity_redaction take 'all', categories and entity types
	// (repeated fields, comma-separated or a JSON list); what is redacted must be detected.
	detect, err := entities.Parse(form.Values("entity_detection"))
	if err != nil {
		v.Add("body", "entity_detection", "value_error", capitalize(err.Error())+".")
	}
	redact, rerr := entities.Parse(form.Values("entity_redaction"))
	switch {
	case rerr != nil:
		v.Add("body", "entity_redaction", "value_error", capitalize(rerr.Error())+".")
	case err == nil && !detect.Covers(redact):
		var missing []string
		for _, t := range redact.Types() {
			if !detect.Has(t) {
				missing = append(missing, t)
			}
		}
		if len(missing) > 5 {
			missing = append(missing[:5], "…")
		}
		v.Add("body", "entity_redaction", "value_error", fmt.Sprintf("entity_redaction must be a subset of entity_detection; not detected: %s.", strings.Join(missing, ", ")))
	}
	req.EntityDetection, req.EntityRedaction = detect.Types(), redact.Types()
	req.RedactionMode = entities.ModeEnumerated
	if s := field("entity_redaction_mode"); s != "" {
		if !slices.Contains(entities.Modes, s) {
			v.Add("body", "entity_redaction_mode", "enum", "Input should be 'redacted', 'entity_type' or 'enumerated_entity_type'.")
		}
		req.RedactionMode = s
	}
	if (len(detect) > 0 || len(redact) > 0) && req.MultiChannel && req.ChannelStyle == StyleCombined {
		v.Add("body", "multichannel_output_style", "value_error", "Entity detection and redaction are not available with multichannel_output_style 'combined'; use 'separate'.")
	}
	req.Keyterms = form.Values("keyterms")
	if len(req.Keyterms) > 1000 {
		v.Add("body", "keyterms", "too_long", "At most 1000 keyterms.")
	}
	for _, k := range req.Keyterms {
		if utf8.RuneCountInString(k) >= 50 || len(strings.Fields(k)) > 5 || strings.TrimSpace(k) == "" {
			v.Add("body", "keyterms", "value_error", fmt.Sprintf("Each keyterm must be under 50 characters and at most 5 words ('%.60s' is not).", k))
			break
		}
	}
	if s := field("additional_formats"); s != "" {
		if err := json.Unmarshal([]byte(s), &req.Exports); err != nil {
			v.Add("body", "additional_formats", "json_invalid", "Input should be a JSON list of export options, each with a format.")
		}
		for _, e := range req.Exports {
			if !slices.Contains(ExportFormats, e.Format) {
				v.Add("body", "additional_formats", "union_tag_invalid", fmt.Sprintf("Unknown format '%s'. Use one of: %s.", e.Format, strings.Join(ExportFormats, ", ")))
				break
			}
		}
	}
	if s := field("webhook_metadata"); s != "" {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			v.Add("body", "webhook_metadata", "json_invalid", "Input should be a JSON object.")
		}
		req.WebhookMeta = s
	}
	req.Webhook, req.WebhookID = webhook, field("webhook_id")
	if req.WebhookID != "" && !webhook {
		v.Add("body", "webhook_id", "value_error", "webhook_id is only valid when webhook is true.")
	}
	source := field("source_url")
	if source == "" {
		source = field("cloud_storage_url")
	}
	switch {
	case form.File != nil && source != "":
		v.Add("body", "file", "value_error", "Send exactly one of file or source_url, not both.")
	case form.File == nil && source == "":
		v.Add("body", "file", "missing", "Send the audio in the file field (or a source_url).")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if form.File != nil {
		req.Audio, req.FileName = form.File, form.FileName
	} else if req.Audio, req.FileName, err = h.download(r.Context(), source, limit); err != nil {
		return nil, err
	}
	return req, nil
}

// download fetches source_url through the SSRF guard, up to limit bytes.
func (h *Handlers) download(ctx context.Context, raw string, limit int64) ([]byte, string, error) {
	bad := func(msg string) error {
		var v errs.Validator
		v.Add("body", "source_url", "value_error", msg)
		return v.Err()
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, "", bad("source_url must be an http or https URL.")
	}
	if h.Fetch == nil {
		return nil, "", bad("Fetching audio from a URL is not enabled on this server.")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", bad("source_url must be an http or https URL.")
	}
	res, err := h.Fetch.Do(req)
	if err != nil {
		if errors.Is(err, netguard.ErrBlocked) {
			return nil, "", bad("source_url points to an address this server may not fetch from.")
		}
		return nil, "", bad(fmt.Sprintf("source_url could not be fetched: %v", err))
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, "", bad(fmt.Sprintf("source_url answered %d %s.", res.StatusCode, http.StatusText(res.StatusCode)))
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, "", bad(fmt.Sprintf("source_url could not be read: %v", err))
	}
	if int64(len(data)) > limit {
		return nil, "", errs.Errorf(errs.TooLarge, "file_too_large", "The file at source_url is larger than %d MB.", limit>>20)
	}
	name := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
	return data, name, nil
}
