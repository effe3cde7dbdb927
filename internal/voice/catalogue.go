package voice

import (
	"crypto/sha256"
	"encoding/json"
)

// Premade is a voice Timbre ships: a stable id (the same on every install), its character, and
// how an engine speaks it. Ids that appear in the ElevenLabs documentation's examples are kept so
// copied examples run unchanged, mapped to a voice of similar character.
type Premade struct {
	ID, Name, Description     string
	Engine, EngineVoice, Lang string
	Accent, Gender, Age       string
	Descriptive, UseCase      string
	Pitch, PitchRange         int     // base prosody, 0–100 (50 = engine normal)
	Rate                      float64 // base speaking rate multiplier
}

// Catalogue is every premade voice; voices whose engine is not available are skipped at seeding.
var Catalogue = []Premade{
	// flite: the clearest offline English voices.
	{ID: "21m00Tcm4TlvDq8ikWAM", Name: "Rachel", Engine: "flite", EngineVoice: "slt", Lang: "en", Accent: "american", Gender: "female", Age: "young", Descriptive: "calm", UseCase: "narration", Description: "A calm, clear young American female voice for narration.", Pitch: 50, PitchRange: 50, Rate: 1},
	{ID: "JBFqnCBsd6RMkjVDRZzb", Name: "George", Engine: "flite", EngineVoice: "awb", Lang: "en", Accent: "british", Gender: "male", Age: "middle_aged", Descriptive: "warm", UseCase: "narration", Description: "A warm, steady British (Scottish) male voice for storytelling.", Pitch: 50, PitchRange: 50, Rate: 1},
	{ID: "pNInz6obpgDQGcFmaJgB", Name: "Adam", Engine: "flite", EngineVoice: "rms", Lang: "en", Accent: "american", Gender: "male", Age: "middle_aged", Descriptive: "deep", UseCase: "narration", Description: "A deep, dominant American male voice.", Pitch: 42, PitchRange: 45, Rate: 1},
	{ID: "TxGEqnHWrfWFTfGW9XjX", Name: "Josh", Engine: "flite", EngineVoice: "kal16", Lang: "en", Accent: "american", Gender: "male", Age: "young", Descriptive: "casual", UseCase: "conversational", Description: "A quick, plain young American male voice; the fastest English voice.", Pitch: 50, PitchRange: 50, Rate: 1},
	// espeak-ng: English variants.
	{ID: "EXAVITQu4vr4xnSDxMaL", Name: "Sarah", Engine: "espeak", EngineVoice: "en-us+f2", Lang: "en", Accent: "american", Gender: "female", Age: "young", Descriptive: "soft", UseCase: "news", Description: "A soft, confident young American female voice.", Pitch: 55, PitchRange: 50, Rate: 1},
	{ID: "cgSgspJ2msm6clMCkdW9", Name: "Jessica", Engine: "espeak", EngineVoice: "en-us+f4", Lang: "en", Accent: "american", Gender: "female", Age: "young", Descriptive: "expressive", UseCase: "conversational", Description: "A bright, expressive young American female voice.", Pitch: 60, PitchRange: 70, Rate: 1.05},
	{ID: "FGY2WhTYpPnrIDTdsKH5", Name: "Laura", Engine: "espeak", EngineVoice: "en-us+f1", Lang: "en", Accent: "american", Gender: "female", Age: "young", Descriptive: "upbeat", UseCase: "social_media", Description: "An upbeat young American female voice.", Pitch: 58, PitchRange: 60, Rate: 1.05},
	{ID: "nPczCjzI2devNBz1zQrb", Name: "Brian", Engine: "espeak", EngineVoice: "en-us+m2", Lang: "en", Accent: "american", Gender: "male", Age: "middle_aged", Descriptive: "deep", UseCase: "narration", Description: "A deep, resonant middle-aged American male voice.", Pitch: 38, PitchRange: 45, Rate: 0.95},
	{ID: "CwhRBWXzGAHq8TQ4Fs17", Name: "Roger", Engine: "espeak", EngineVoice: "en-us+m1", Lang: "en", Accent: "american", Gender: "male", Age: "middle_aged", Descriptive: "confident", UseCase: "conversational", Description: "A confident, easy-going American male voice.", Pitch: 45, PitchRange: 55, Rate: 1},
	{ID: "onwK4e9ZLuTAKqWW03F9", Name: "Daniel", Engine: "espeak", EngineVoice: "en-gb+m3", Lang: "en", Accent: "british", Gender: "male", Age: "middle_aged", Descriptive: "authoritative", UseCase: "news", Description: "An authoritative British male voice for news.", Pitch: 45, PitchRange: 45, Rate: 1},
	{ID: "Xb7hH8MSUJpSbSDYk0k2", Name: "Alice", Engine: "espeak", EngineVoice: "en-gb+f3", Lang: "en", Accent: "british", Gender: "female", Age: "middle_aged", Descriptive: "confident", UseCase: "educational", Description: "A clear, engaging British female voice for teaching.", Pitch: 55, PitchRange: 50, Rate: 1},
	{ID: "pFZP5JQG7iQjIQuC4Bku", Name: "Lily", Engine: "espeak", EngineVoice: "en-gb-x-rp+f2", Lang: "en", Accent: "british", Gender: "female", Age: "middle_aged", Descriptive: "warm", UseCase: "narration", Description: "A velvety British (received pronunciation) female voice.", Pitch: 52, PitchRange: 50, Rate: 0.95},
	{ID: "N2lVS1w2EtoT3dr4eOWO", Name: "Callum", Engine: "espeak", EngineVoice: "en-gb-scotland+m4", Lang: "en", Accent: "scottish", Gender: "male", Age: "middle_aged", Descriptive: "husky", UseCase: "characters", Description: "A husky Scottish male voice for characters.", Pitch: 40, PitchRange: 60, Rate: 1},
	{ID: "IKne3meq5aSn9XLyUdCD", Name: "Charlie", Engine: "espeak", EngineVoice: "en-029+m3", Lang: "en", Accent: "caribbean", Gender: "male", Age: "young", Descriptive: "casual", UseCase: "conversational", Description: "A relaxed, natural young male voice with a Caribbean English accent.", Pitch: 48, PitchRange: 55, Rate: 1},
	// espeak-ng: other languages (Timbre's own ids).
	{Name: "Lucía", Engine: "espeak", EngineVoice: "es+f3", Lang: "es", Accent: "castilian", Gender: "female", Age: "young", Descriptive: "warm", UseCase: "narration", Description: "A warm Spanish female voice.", Pitch: 55, PitchRange: 55, Rate: 1},
	{Name: "Mateo", Engine: "espeak", EngineVoice: "es-419+m3", Lang: "es", Accent: "latin american", Gender: "male", Age: "middle_aged", Descriptive: "confident", UseCase: "conversational", Description: "A confident Latin American Spanish male voice.", Pitch: 45, PitchRange: 50, Rate: 1},
	{Name: "Hanna", Engine: "espeak", EngineVoice: "de+f2", Lang: "de", Accent: "standard", Gender: "female", Age: "young", Descriptive: "clear", UseCase: "educational", Description: "A clear German female voice.", Pitch: 55, PitchRange: 50, Rate: 1},
	{Name: "Lukas", Engine: "espeak", EngineVoice: "de+m3", Lang: "de", Accent: "standard", Gender: "male", Age: "middle_aged", Descriptive: "calm", UseCase: "narration", Description: "A calm German male voice.", Pitch: 45, PitchRange: 45, Rate: 1},
	{Name: "Camille", Engine: "espeak", EngineVoice: "fr-fr+f3", Lang: "fr", Accent: "parisian", Gender: "female", Age: "young", Descriptive: "soft", UseCase: "narration", Description: "A soft French female voice.", Pitch: 55, PitchRange: 55, Rate: 1},
	{Name: "Louis", Engine: "espeak", EngineVoice: "fr-fr+m3", Lang: "fr", Accent: "parisian", Gender: "male", Age: "middle_aged", Descriptive: "authoritative", UseCase: "news", Description: "An authoritative French male voice.", Pitch: 45, PitchRange: 45, Rate: 1},
	{Name: "Giulia", Engine: "espeak", EngineVoice: "it+f3", Lang: "it", Accent: "standard", Gender: "female", Age: "young", Descriptive: "expressive", UseCase: "conversational", Description: "An expressive Italian female voice.", Pitch: 57, PitchRange: 65, Rate: 1},
	{Name: "João", Engine: "espeak", EngineVoice: "pt-br+m3", Lang: "pt", Accent: "brazilian", Gender: "male", Age: "young", Descriptive: "casual", UseCase: "conversational", Description: "A relaxed Brazilian Portuguese male voice.", Pitch: 48, PitchRange: 55, Rate: 1},
	{Name: "Anna", Engine: "espeak", EngineVoice: "ru+f2", Lang: "ru", Accent: "standard", Gender: "female", Age: "middle_aged", Descriptive: "calm", UseCase: "narration", Description: "A calm Russian female voice.", Pitch: 52, PitchRange: 45, Rate: 1},
	{Name: "Priya", Engine: "espeak", EngineVoice: "hi+f3", Lang: "hi", Accent: "standard", Gender: "female", Age: "young", Descriptive: "warm", UseCase: "conversational", Description: "A warm Hindi female voice.", Pitch: 56, PitchRange: 55, Rate: 1},
	{Name: "Wei", Engine: "espeak", EngineVoice: "cmn+m3", Lang: "zh", Accent: "mandarin", Gender: "male", Age: "middle_aged", Descriptive: "clear", UseCase: "educational", Description: "A clear Mandarin Chinese male voice.", Pitch: 48, PitchRange: 50, Rate: 1},
	{Name: "Noor", Engine: "espeak", EngineVoice: "ar+f2", Lang: "ar", Accent: "modern standard", Gender: "female", Age: "young", Descriptive: "soft", UseCase: "narration", Description: "A soft Modern Standard Arabic female voice.", Pitch: 54, PitchRange: 50, Rate: 1},
	{Name: "Sven", Engine: "espeak", EngineVoice: "sv+m3", Lang: "sv", Accent: "standard", Gender: "male", Age: "middle_aged", Descriptive: "calm", UseCase: "narration", Description: "A calm Swedish male voice.", Pitch: 46, PitchRange: 45, Rate: 1},
	{Name: "Zofia", Engine: "espeak", EngineVoice: "pl+f2", Lang: "pl", Accent: "standard", Gender: "female", Age: "young", Descriptive: "bright", UseCase: "conversational", Description: "A bright Polish female voice.", Pitch: 57, PitchRange: 55, Rate: 1},
	{Name: "Daan", Engine: "espeak", EngineVoice: "nl+m3", Lang: "nl", Accent: "standard", Gender: "male", Age: "young", Descriptive: "casual", UseCase: "conversational", Description: "A casual Dutch male voice.", Pitch: 48, PitchRange: 50, Rate: 1},
	{Name: "Yuki", Engine: "espeak", EngineVoice: "ja+f2", Lang: "ja", Accent: "standard", Gender: "female", Age: "young", Descriptive: "soft", UseCase: "narration", Description: "A soft Japanese female voice.", Pitch: 56, PitchRange: 50, Rate: 1},
}

func init() {
	for i := range Catalogue {
		if Catalogue[i].ID == "" {
			Catalogue[i].ID = StableID("premade:" + Catalogue[i].Engine + ":" + Catalogue[i].Name)
		}
	}
}

// StableID derives a 20-character id from a name, the same on every install.
func StableID(name string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := sha256.Sum256([]byte(name))
	out := make([]byte, 20)
	for i := range out {
		out[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	return string(out)
}

// Labels returns the API's labels object of a premade voice.
func (p Premade) Labels() map[string]string {
	return map[string]string{"accent": p.Accent, "gender": p.Gender, "age": p.Age, "descriptive": p.Descriptive, "use_case": p.UseCase, "language": p.Lang}
}

// BaseProsody is stored with the voice as JSON.
type BaseProsody struct {
	Pitch      int     `json:"pitch"`
	PitchRange int     `json:"pitch_range"`
	Rate       float64 `json:"rate"`
	// F0Hz and Formant make a base voice speak like a measured or described speaker (cloned and
	// designed voices): engine.Prosody's fields of the same names.
	F0Hz    float64 `json:"f0_hz,omitempty"`
	Formant float64 `json:"formant,omitempty"`
}

func (p Premade) prosodyJSON() string {
	b, _ := json.Marshal(BaseProsody{Pitch: p.Pitch, PitchRange: p.PitchRange, Rate: p.Rate})
	return string(b)
}

func (p Premade) labelsJSON() string {
	b, _ := json.Marshal(p.Labels())
	return string(b)
}
