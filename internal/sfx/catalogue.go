package sfx

import (
	"context"
	"hash/fnv"
	"strings"

	"timbre/internal/audio"
	"timbre/internal/errs"
)

// Prompt is one curated prompt of the explore catalogue.
type Prompt struct {
	ID              string   `json:"prompt_id"`
	Title           string   `json:"title"`
	Text            string   `json:"text"`
	Category        string   `json:"category"`
	DurationSeconds float64  `json:"duration_seconds"`
	Loop            bool     `json:"loop"`
	Recipes         []string `json:"recipes"`
	PreviewURL      string   `json:"preview_url"`
}

// Category is one explore category.
type Category struct {
	ID    string `json:"category_id"`
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Explore is GET /v1/sound-generation/explore.
type Explore struct {
	Categories []Category `json:"categories"`
	Prompts    []Prompt   `json:"prompts"`
}

var categoryNames = []struct{ id, name string }{
	{"nature", "Nature & weather"}, {"water", "Water"}, {"foley", "Foley"}, {"impacts", "Impacts & destruction"},
	{"vehicles", "Vehicles"}, {"machines", "Machines & electronics"}, {"ui", "UI & games"}, {"signals", "Alarms & bells"},
	{"people", "People"}, {"animals", "Animals"}, {"ambience", "Ambience"},
}

// catalogue: at least one prompt per recipe family; each preview is this engine's render of
// the prompt (seeded by its id).
var catalogue = []struct {
	id, cat, title, text string
	dur                  float64
	loop                 bool
}{
	{"gentle-rain", "nature", "Gentle rain", "gentle rain falling on leaves", 6, true},
	{"storm", "nature", "Thunderstorm", "heavy rain with distant thunder", 8, false},
	{"close-thunder", "nature", "Thunder crack", "a close, loud thunder crack", 5, false},
	{"howling-wind", "nature", "Howling wind", "strong wind howling through the trees", 6, true},
	{"campfire", "nature", "Campfire", "a campfire crackling at night", 6, true},
	{"brook", "water", "Forest brook", "a babbling brook", 6, true},
	{"ocean", "water", "Ocean waves", "ocean waves on the shore", 10, true},
	{"drips", "water", "Cave drips", "water dripping in an echoing cave", 5, false},
	{"splash", "water", "Splash", "a heavy splash into water", 2, false},
	{"bubbles", "water", "Bubbles", "bubbling underwater", 4, true},
	{"gravel-steps", "foley", "Footsteps on gravel", "footsteps on gravel", 4, false},
	{"wood-steps", "foley", "Footsteps on wood", "slow footsteps on wooden floorboards in a hall", 4, false},
	{"snow-steps", "foley", "Footsteps in snow", "fast footsteps in snow", 3, false},
	{"door-creak-slam", "foley", "Door creaks then slams", "a door creaks then slams", 4, false},
	{"castle-door", "foley", "Castle door", "a large ancient wooden door slowly creaking open in an abandoned castle", 4, false},
	{"knock", "foley", "Knock on the door", "knocking on a wooden door", 2, false},
	{"typing", "foley", "Typing", "typing on a keyboard in an office", 4, false},
	{"sword", "foley", "Sword swing", "a fast sword swish", 1, false},
	{"whoosh", "foley", "Whoosh", "a deep whoosh transition", 1.5, false},
	{"thud", "impacts", "Heavy thud", "a heavy thud", 1.5, false},
	{"punch", "impacts", "Punch", "a punch hit", 1, false},
	{"metal-clang", "impacts", "Metal clang", "a metallic clang of a pipe", 2.5, false},
	{"glass", "impacts", "Glass shatter", "a glass window shattering", 2, false},
	{"explosion", "impacts", "Explosion", "a massive explosion followed by falling debris", 5, false},
	{"gunshot", "impacts", "Gunshot", "a distant gunshot echoing in a canyon", 2, false},
	{"engine-idle", "vehicles", "Engine idle", "a car engine idling", 5, true},
	{"car-pass", "vehicles", "Car passing", "a car passing by fast", 5, false},
	{"horn", "vehicles", "Car horn", "a car horn honking", 1.5, false},
	{"train", "vehicles", "Train", "a train on the railway", 8, true},
	{"plane", "vehicles", "Jet flyover", "a jet airplane flying over", 8, false},
	{"helicopter", "vehicles", "Helicopter", "a helicopter hovering", 6, true},
	{"factory", "machines", "Factory machine", "an industrial machine in a factory", 6, true},
	{"hum", "machines", "Electric hum", "a low electrical hum", 5, true},
	{"clock", "machines", "Clock ticking", "a clock ticking in a quiet room", 4, true},
	{"radio", "machines", "Radio static", "radio static", 4, true},
	{"beep", "ui", "UI beep", "a short ui beep", 0.5, false},
	{"click", "ui", "Button click", "a button click", 0.5, false},
	{"notification", "ui", "Notification", "a notification chime", 1.5, false},
	{"coin", "ui", "Coin pickup", "a retro game coin pickup", 0.7, false},
	{"power-up", "ui", "Power up", "a power up", 1, false},
	{"power-down", "ui", "Power down", "a power down", 1, false},
	{"laser", "ui", "Laser blaster", "a sci-fi laser blaster", 0.7, false},
	{"alarm-clock", "signals", "Alarm clock", "an alarm clock beeping", 4, false},
	{"siren", "signals", "Police siren", "a distant police siren", 6, true},
	{"whistle", "signals", "Referee whistle", "a referee whistle", 1.5, false},
	{"church-bell", "signals", "Church bell", "a church bell tolling slowly", 6, false},
	{"crowd", "people", "Crowd murmur", "a crowd murmuring in a restaurant", 8, true},
	{"applause", "people", "Applause", "an audience applause", 5, false},
	{"laugh", "people", "Laugh", "a laugh", 1.5, false},
	{"sigh", "people", "Sigh", "a sigh", 1.5, false},
	{"cough", "people", "Cough", "a cough", 1.2, false},
	{"breath", "people", "Breathing", "heavy breathing", 2, false},
	{"heartbeat", "people", "Heartbeat", "a slow heartbeat", 4, true},
	{"birds", "animals", "Birdsong", "birds chirping at dawn", 8, true},
	{"crickets", "animals", "Crickets", "crickets at night", 6, true},
	{"dog", "animals", "Dog barking", "a dog barking in the distance", 3, false},
	{"cat", "animals", "Cat meow", "a cat meowing", 1.5, false},
	{"owl", "animals", "Owl", "an owl hooting in the forest at night", 4, false},
	{"frogs", "animals", "Frogs", "frogs croaking in a pond", 5, true},
	{"crow", "animals", "Crow", "a crow cawing", 2.5, false},
	{"room-tone", "ambience", "Room tone", "quiet room tone", 6, true},
	{"city", "ambience", "City street", "city traffic with people talking", 8, true},
	{"haunted", "ambience", "Haunted house", "eerie wind and a creaking door in an abandoned house", 8, false},
}

// Catalogue returns the explore catalogue, filtered by category id and a search over titles
// and prompts (case-insensitive); the categories always list every category with its count.
func Catalogue(category, search string) *Explore {
	out := &Explore{Categories: make([]Category, 0, len(categoryNames)), Prompts: []Prompt{}}
	counts := map[string]int{}
	search = strings.ToLower(strings.TrimSpace(search))
	for _, c := range catalogue {
		counts[c.cat]++
		if category != "" && c.cat != category {
			continue
		}
		if search != "" && !strings.Contains(strings.ToLower(c.title+" "+c.text), search) {
			continue
		}
		out.Prompts = append(out.Prompts, Prompt{ID: c.id, Title: c.title, Text: c.text, Category: c.cat, DurationSeconds: c.dur,
			Loop: c.loop, Recipes: Parse(c.text).Recipes(), PreviewURL: "/v1/sound-generation/explore/" + c.id + "/audio"})
	}
	for _, c := range categoryNames {
		out.Categories = append(out.Categories, Category{ID: c.id, Name: c.name, Count: counts[c.id]})
	}
	return out
}

// IsCategory says whether id is an explore category.
func IsCategory(id string) bool {
	for _, c := range categoryNames {
		if c.id == id {
			return true
		}
	}
	return false
}

// previewVersion names the engine's renders in the blob cache: bump it when recipes change so
// that previews are rendered again.
const previewVersion = "v1"

// Preview returns a catalogue prompt's preview (mp3): this engine's render of the prompt, seeded
// by the prompt's id, rendered on first request and kept in the blob store.
func (s *Service) Preview(ctx context.Context, id string) ([]byte, error) {
	for _, c := range catalogue {
		if c.id != id {
			continue
		}
		key := "sfx/explore/" + previewVersion + "/" + id + ".mp3"
		if data, err := s.Blob.Get(ctx, key); err == nil {
			return data, nil
		}
		h := fnv.New64a()
		h.Write([]byte(id))
		r := Generate(Options{Text: c.text, Duration: c.dur, Loop: c.loop, Influence: 0.7, Seed: h.Sum64()})
		f, _ := audio.ParseFormat(audio.DefaultFormat)
		data, err := audio.Encode(ctx, r.Samples, r.SampleRate, f)
		if err != nil {
			return nil, err
		}
		if err := s.Blob.Put(ctx, key, data, f.ContentType()); err != nil {
			return nil, err
		}
		return data, nil
	}
	return nil, errs.New(errs.NotFound, "prompt_not_found", "No such prompt in the sound-effect catalogue.")
}
