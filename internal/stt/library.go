package stt

import (
	"context"
	"encoding/json"
	"sort"

	"timbre/internal/engine"
	"timbre/internal/listen"
	"timbre/internal/voiceprint"
)

// The speaker library of a workspace is its own voices that carry a voiceprint: cloned voices,
// made from recordings of real people. use_speaker_library names a diarized speaker after the
// library voice whose print is most like the speaker's speech: its speaker_id is that voice's id
// instead of speaker_N. Speakers that match no voice keep speaker_N.

// libraryMatch is the least voiceprint.Similarity at which a speaker is taken to be a library
// voice: a speaker's turns scored 0.75 against that speaker's print from other sentences, and
// 0.09–0.30 against other voices (TestSpeakerLibraryNamesKnownSpeakers logs the figures).
const libraryMatch = 0.5

// librarySpeaker is a library voice's id and speaker embedding.
type librarySpeaker struct {
	VoiceID   string
	Embedding []float64
}

// speakerLibrary loads the workspace's library (voices whose print cannot be read are skipped).
func (s *Service) speakerLibrary(ctx context.Context, workspaceID string) ([]librarySpeaker, error) {
	voices, err := s.DB.VoicePrints(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	var lib []librarySpeaker
	for _, v := range voices {
		var p voiceprint.Print
		if json.Unmarshal([]byte(v.Voiceprint), &p) != nil || len(p.Embedding) == 0 {
			continue
		}
		lib = append(lib, librarySpeaker{VoiceID: v.ID, Embedding: p.Embedding})
	}
	return lib, nil
}

// matchSpeakers names the diarized speakers of pcm found in the library: the most alike pair of
// speaker and voice is named first, and each voice names one speaker at most. A speaker with too
// little speech to analyse stays unnamed.
func matchSpeakers(pcm engine.PCM, turns []listen.Turn, lib []librarySpeaker) map[int]string {
	if len(lib) == 0 {
		return nil
	}
	bySpeaker := map[int][]int16{}
	for _, t := range turns {
		from := min(max(int(t.Start*float64(pcm.SampleRate)), 0), len(pcm.Samples))
		to := min(max(int(t.End*float64(pcm.SampleRate)), from), len(pcm.Samples))
		bySpeaker[t.Speaker] = append(bySpeaker[t.Speaker], pcm.Samples[from:to]...)
	}
	type pair struct {
		speaker, voice int
		sim            float64
	}
	var pairs []pair
	for sp, samples := range bySpeaker {
		p, err := voiceprint.Analyse(engine.PCM{Samples: samples, SampleRate: pcm.SampleRate})
		if err != nil {
			continue
		}
		for i, v := range lib {
			if sim := voiceprint.Similarity(p.Embedding, v.Embedding); sim >= libraryMatch {
				pairs = append(pairs, pair{sp, i, sim})
			}
		}
	}
	sort.Slice(pairs, func(a, b int) bool { return pairs[a].sim > pairs[b].sim })
	names := map[int]string{}
	used := map[int]bool{}
	for _, p := range pairs {
		if _, named := names[p.speaker]; named || used[p.voice] {
			continue
		}
		names[p.speaker], used[p.voice] = lib[p.voice].VoiceID, true
	}
	return names
}
