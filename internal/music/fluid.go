package music

/*
#cgo pkg-config: fluidsynth
#include <stdlib.h>
#include <fluidsynth.h>

static fluid_settings_t *timbre_settings(double rate) {
	// A synth starts without a soundfont (it borrows the shared one): its "no preset" warnings
	// at creation are noise.
	fluid_set_log_function(FLUID_WARN, NULL, NULL);
	fluid_settings_t *s = new_fluid_settings();
	fluid_settings_setnum(s, "synth.sample-rate", rate);
	fluid_settings_setnum(s, "synth.gain", 0.5);
	fluid_settings_setint(s, "synth.polyphony", 256);
	fluid_settings_setint(s, "synth.cpu-cores", 1);
	fluid_settings_setint(s, "synth.reverb.active", 1);
	fluid_settings_setint(s, "synth.chorus.active", 1);
	return s;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"
)

// SoundFont is the General MIDI soundfont the embedded engine plays (Debian fluid-soundfont-gm).
const SoundFont = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

// SampleRate is the rate the synthesizer renders at.
const SampleRate = 44100

// synth is one FluidSynth instance. Loading the 140 MB soundfont takes a while, so it is loaded
// once into a keeper synth and shared; each song gets a fresh synth (a reset one does not
// replay the same bytes), which only borrows the soundfont.
type synth struct {
	settings *C.fluid_settings_t
	s        *C.fluid_synth_t
	sf       *C.fluid_sfont_t
}

var (
	sfMu    sync.Mutex
	keepers = map[string]*synth{}
)

func newRawSynth() (*synth, error) {
	st := C.timbre_settings(C.double(SampleRate))
	s := C.new_fluid_synth(st)
	if s == nil {
		C.delete_fluid_settings(st)
		return nil, errors.New("music: fluidsynth could not start")
	}
	return &synth{settings: st, s: s}, nil
}

func soundfont(sf2 string) (*C.fluid_sfont_t, error) {
	sfMu.Lock()
	defer sfMu.Unlock()
	if k, ok := keepers[sf2]; ok {
		return k.sf, nil
	}
	if _, err := os.Stat(sf2); err != nil {
		return nil, fmt.Errorf("music: soundfont: %w (install fluid-soundfont-gm)", err)
	}
	k, err := newRawSynth()
	if err != nil {
		return nil, err
	}
	path := C.CString(sf2)
	defer C.free(unsafe.Pointer(path))
	id := C.fluid_synth_sfload(k.s, path, 1)
	if id == C.FLUID_FAILED {
		k.close()
		return nil, fmt.Errorf("music: fluidsynth could not load %s", sf2)
	}
	k.sf = C.fluid_synth_get_sfont_by_id(k.s, id)
	keepers[sf2] = k
	return k.sf, nil
}

func getSynth(sf2 string) (*synth, error) {
	sf, err := soundfont(sf2)
	if err != nil {
		return nil, err
	}
	s, err := newRawSynth()
	if err != nil {
		return nil, err
	}
	if C.fluid_synth_add_sfont(s.s, sf) == C.FLUID_FAILED {
		s.close()
		return nil, errors.New("music: fluidsynth could not share the soundfont")
	}
	s.sf = sf
	return s, nil
}

// putSynth ends a song's synth, handing the soundfont back (the keeper owns it).
func putSynth(s *synth) {
	C.fluid_synth_remove_sfont(s.s, s.sf)
	s.close()
}

func (s *synth) close() {
	C.delete_fluid_synth(s.s)
	C.delete_fluid_settings(s.settings)
}
func (s *synth) program(ch, prog int) {
	if ch == drumChannel {
		C.fluid_synth_bank_select(s.s, C.int(ch), 128)
	}
	C.fluid_synth_program_change(s.s, C.int(ch), C.int(prog))
}

func (s *synth) noteOn(ch, key, vel int) {
	C.fluid_synth_noteon(s.s, C.int(ch), C.int(key), C.int(vel))
}
func (s *synth) noteOff(ch, key int)  { C.fluid_synth_noteoff(s.s, C.int(ch), C.int(key)) }
func (s *synth) cc(ch, ctrl, val int) { C.fluid_synth_cc(s.s, C.int(ch), C.int(ctrl), C.int(val)) }

// render appends n stereo frames to l and r.
func (s *synth) render(l, r []float32, n int) ([]float32, []float32) {
	if n <= 0 {
		return l, r
	}
	ol, or := len(l), len(r)
	l, r = append(l, make([]float32, n)...), append(r, make([]float32, n)...)
	C.fluid_synth_write_float(s.s, C.int(n), unsafe.Pointer(&l[ol]), 0, 1, unsafe.Pointer(&r[or]), 0, 1)
	return l, r
}
