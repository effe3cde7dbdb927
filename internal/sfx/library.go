package sfx

import "math"

// The recipe library: every source is synthesized from noise, oscillators, biquads, envelopes,
// grains and modal partials; the scene's convolution reverb is added by the mixer.

func init() {
	// ---- weather and nature beds ----
	add(&recipe{name: "rain", family: "weather", bed: true, natural: 8, gain: 0.25, render: func(l *layer, n int) []float64 {
		// A hiss bed plus granular drops whose density follows the weight.
		out := noiseBed(l, n, "pink", highpass, 900*l.c.Pitch, 0.6, 0.3, 0.2)
		scale(out, 0.5)
		drops := scatter(l, n, 120+500*l.c.Weight, func() []float64 {
			return burst(l, 0.012, 0.0005, 0.003, bandpass, l.r.rang(2500, 7000)*l.c.Pitch, 2)
		})
		addAt(out, drops, 0, 0.6)
		return out
	}})
	add(&recipe{name: "wind", family: "weather", bed: true, natural: 8, gain: 0.25, render: func(l *layer, n int) []float64 {
		out := noiseBed(l, n, "pink", bandpass, 500*l.c.Pitch, 1.5+2*l.c.Weight, 1.0, 0.25*l.c.Speed)
		low := noiseBed(l, n, "brown", lowpass, 200*l.c.Pitch, 0.7, 0.6, 0.2*l.c.Speed)
		addAt(out, low, 0, 0.5+l.c.Weight)
		return out
	}})
	add(&recipe{name: "stream", family: "water", bed: true, natural: 8, gain: 0.22, render: func(l *layer, n int) []float64 {
		// Babbling water: many short resonant bubbles over a wash.
		out := scale(noiseBed(l, n, "pink", bandpass, 1500*l.c.Pitch, 0.8, 0.4, 0.5), 0.5)
		bub := scatter(l, n, 60*l.c.Speed+40*l.c.Weight, func() []float64 {
			f := l.r.rang(400, 2200) * l.c.Pitch
			return sweepTone(l, 0.04, f, f*1.6, 0.002, 0.012)
		})
		addAt(out, bub, 0, 0.5)
		return out
	}})
	add(&recipe{name: "waves", family: "water", bed: true, natural: 12, gain: 0.25, render: func(l *layer, n int) []float64 {
		// Surf: noise swelling and washing back every few seconds.
		out := make([]float64, n)
		flt := newFilter(lowpass, l.sr, 800, 0.7)
		period := 6.0 / l.c.Speed
		off := l.r.f() * period
		for i := range out {
			ph := math.Mod(l.t(i)+off, period) / period
			env := math.Pow(math.Sin(math.Pi*ph), 2) * (0.3 + 0.7*math.Exp(-3*ph))
			if i%32 == 0 {
				flt.set(lowpass, l.sr, (300+3500*env)*l.c.Pitch, 0.7, 0)
			}
			out[i] = flt.p(l.r.w()) * (0.1 + env)
		}
		return out
	}})
	add(&recipe{name: "drip", family: "water", natural: 4, gain: 0.2, render: func(l *layer, n int) []float64 {
		return repeatEvery(l, n, 0.7/l.c.Speed, 0.3, func(int) []float64 {
			f := l.r.rang(900, 1400) * l.c.Pitch
			return sweepTone(l, 0.08, f, f*2.2, 0.001, 0.02)
		})
	}})
	add(&recipe{name: "splash", family: "water", natural: 2, gain: 0.3, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, burst(l, 0.6+0.6*l.c.Weight, 0.005, 0.15+0.2*l.c.Weight, bandpass, 1200*l.c.Pitch, 0.7), 0, 1)
		addAt(out, scatter(l, min(n, l.secs(1.2)), 60, func() []float64 {
			f := l.r.rang(600, 2500) * l.c.Pitch
			return sweepTone(l, 0.05, f, f*1.5, 0.002, 0.015)
		}), l.secs(0.05), 0.4)
		return out
	}})
	add(&recipe{name: "bubbles", family: "water", bed: true, natural: 5, gain: 0.2, render: func(l *layer, n int) []float64 {
		return scatter(l, n, 15*l.c.Speed, func() []float64 {
			f := l.r.rang(250, 900) * l.c.Pitch
			return sweepTone(l, 0.07, f, f*2, 0.003, 0.02)
		})
	}})
	add(&recipe{name: "fire", family: "fire", bed: true, natural: 8, gain: 0.22, render: func(l *layer, n int) []float64 {
		// A low roar plus crackles (tiny broadband clicks) and the odd pop.
		out := scale(noiseBed(l, n, "brown", lowpass, 300*l.c.Pitch, 0.7, 0.5, 0.5), 0.8+l.c.Weight)
		addAt(out, scatter(l, n, 25+40*l.c.Weight, func() []float64 {
			return burst(l, 0.006, 0.0002, 0.0015, highpass, l.r.rang(1500, 5000), 0.7)
		}), 0, 0.7)
		addAt(out, scatter(l, n, 1.5, func() []float64 {
			return burst(l, 0.05, 0.0005, 0.01, bandpass, l.r.rang(500, 1500), 1.5)
		}), 0, 0.9)
		return out
	}})
	add(&recipe{name: "thunder", family: "weather", natural: 6, gain: 0.35, render: func(l *layer, n int) []float64 {
		// A crack (for close strikes) then a long rumble of low noise with rolling swells.
		out := make([]float64, n)
		if l.c.Distance < 0.5 {
			addAt(out, burst(l, 0.3, 0.002, 0.06, highpass, 1500*l.c.Pitch, 0.7), 0, 1)
		}
		rl := min(n, l.secs(5*l.c.Length))
		flt := newFilter(lowpass, l.sr, 160*l.c.Pitch, 0.9)
		var br brown
		sm := newSmoother(l.sr, 0.15)
		tgt := 1.0
		for i := 0; i < rl; i++ {
			if i%l.secs(0.25) == 0 {
				tgt = l.r.rang(0.3, 1.2)
			}
			t := l.t(i)
			out[i] += flt.p(br.next(l.r)*6) * attackDecay(t, 0.15, 1.2+l.c.Weight) * sm.p(tgt)
		}
		return out
	}})
	// ---- footsteps, doors, impacts ----
	add(&recipe{name: "footsteps", family: "footsteps", natural: 4, gain: 0.3, render: func(l *layer, n int) []float64 {
		f, q, tau, grit := 400.0, 1.0, 0.03, 0.0
		switch l.c.Surface {
		case "wood", "tile":
			f, q, tau = 350, 3, 0.04
		case "gravel", "sand":
			f, q, tau, grit = 2500, 0.7, 0.06, 1
		case "snow", "grass", "leaves":
			f, q, tau, grit = 1800, 0.6, 0.09, 0.6
		case "metal":
			f, q, tau = 700, 8, 0.15
		case "water":
			f, q, tau, grit = 1000, 0.8, 0.12, 0.5
		}
		f *= l.c.Pitch
		return repeatEvery(l, n, 0.55/l.c.Speed, 0.06, func(k int) []float64 {
			step := burst(l, tau*4, 0.002, tau, bandpass, f*(1+0.1*float64(k%2)), q)
			heel := burst(l, 0.08, 0.001, 0.015, lowpass, 200*l.c.Pitch, 0.8)
			addAt(step, heel, 0, 1+l.c.Weight)
			if grit > 0 {
				addAt(step, scatter(l, len(step), 300, func() []float64 {
					return burst(l, 0.004, 0.0002, 0.001, highpass, 3000, 0.7)
				}), l.secs(0.01), grit)
			}
			if l.c.Surface == "metal" {
				addAt(step, modes(l, 0.3, []float64{f * 1.7, f * 2.9}, []float64{0.2, 0.1}, []float64{0.1, 0.07}), 0, 1)
			}
			return step
		})
	}})
	add(&recipe{name: "door_creak", family: "door", natural: 2.5, gain: 0.25, render: func(l *layer, n int) []float64 {
		// Stick-slip friction: a train of tiny impulses at a slowly wandering rate, resonated by
		// the wooden panel.
		length := min(n, l.secs(2*l.c.Length/l.c.Speed))
		src := make([]float64, n)
		sm := newSmoother(l.sr, 0.2)
		ph, tgt := 0.0, 1.0
		for i := 0; i < length; i++ {
			if i%l.secs(0.15) == 0 {
				tgt = l.r.rang(0.6, 1.5)
			}
			rate := 90 * l.c.Pitch * sm.p(tgt)
			ph += rate / float64(l.sr)
			if ph >= 1 {
				ph--
				src[i] = 1
			}
			src[i] *= math.Sin(math.Pi * float64(i) / float64(length))
		}
		body := make([]float64, n)
		for _, fr := range []float64{520, 1150, 2300} {
			flt := newFilter(bandpass, l.sr, fr*l.c.Pitch, 18)
			for i, x := range src {
				body[i] += flt.p(x)
			}
		}
		return body
	}})
	add(&recipe{name: "door_slam", family: "door", natural: 1.5, gain: 0.4, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, burst(l, 0.5, 0.001, 0.05+0.08*l.c.Weight, lowpass, 350*l.c.Pitch, 1.2), 0, 1.5)
		addAt(out, burst(l, 0.15, 0.0005, 0.012, bandpass, 1800*l.c.Pitch, 1), 0, 0.5)
		addAt(out, modes(l, 0.6, []float64{110 * l.c.Pitch, 240 * l.c.Pitch}, []float64{0.6, 0.3}, []float64{0.08, 0.05}), 0, 1)
		addAt(out, burst(l, 0.05, 0.0005, 0.008, bandpass, 2500, 2), l.secs(0.07), 0.3) // the latch
		return out
	}})
	add(&recipe{name: "door_knock", family: "door", natural: 2, gain: 0.35, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		count := 3 + int(l.c.Weight*2)
		for k := 0; k < count; k++ {
			off := l.secs(float64(k) * 0.22 / l.c.Speed)
			addAt(out, modes(l, 0.25, []float64{180 * l.c.Pitch, 420 * l.c.Pitch, 870 * l.c.Pitch}, []float64{1, 0.5, 0.2}, []float64{0.03, 0.02, 0.01}), off, 1)
			addAt(out, burst(l, 0.05, 0.0005, 0.006, bandpass, 1200*l.c.Pitch, 1.2), off, 0.5)
		}
		return out
	}})
	add(&recipe{name: "impact", family: "impact", natural: 1.5, gain: 0.4, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, burst(l, 0.8, 0.001, 0.06+0.15*l.c.Weight, lowpass, 180*l.c.Pitch, 1), 0, 2)
		addAt(out, burst(l, 0.2, 0.0005, 0.02, bandpass, 900*l.c.Pitch, 0.8), 0, 0.6)
		if l.c.Metallic > 0 {
			addAt(out, metal(l, 1.5, 300*l.c.Pitch), 0, l.c.Metallic)
		}
		return out
	}})
	add(&recipe{name: "punch", family: "impact", natural: 0.8, gain: 0.4, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, sweepTone(l, 0.25, 150*l.c.Pitch, 50*l.c.Pitch, 0.002, 0.05), 0, 1.2)
		addAt(out, burst(l, 0.1, 0.0005, 0.015, bandpass, 1500*l.c.Pitch, 0.8), 0, 0.7)
		return out
	}})
	add(&recipe{name: "metal_clang", family: "impact", natural: 2.5, gain: 0.3, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, metal(l, 2.5*l.c.Length, 420*l.c.Pitch), 0, 1)
		return out
	}})
	add(&recipe{name: "glass_break", family: "glass", natural: 2, gain: 0.3, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, burst(l, 0.2, 0.0005, 0.03, highpass, 2500*l.c.Pitch, 0.7), 0, 1)
		// Shards: many short high glassy pings, thinning out.
		shards := scatter(l, min(n, l.secs(1.5)), 40+60*l.c.Weight, func() []float64 {
			f := l.r.rang(2500, 7500) * l.c.Pitch
			return modes(l, 0.15, []float64{f, f * 2.32, f * 4.25}, []float64{0.4, 0.25, 0.1}, []float64{0.04, 0.025, 0.015})
		})
		for i := range shards {
			shards[i] *= math.Exp(-l.t(i) / 0.5)
		}
		addAt(out, shards, 0, 1)
		return out
	}})
	add(&recipe{name: "explosion", family: "explosion", natural: 4, gain: 0.45, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		length := min(n, l.secs(3.5*l.c.Length))
		var br brown
		lp := newFilter(lowpass, l.sr, 900, 0.7)
		for i := 0; i < length; i++ {
			t := l.t(i)
			if i%32 == 0 {
				lp.set(lowpass, l.sr, (120+2500*math.Exp(-t/0.15))*l.c.Pitch, 0.7, 0)
			}
			out[i] = lp.p(0.5*l.r.w()+4*br.next(l.r)) * attackDecay(t, 0.004, 0.4+0.6*l.c.Weight)
		}
		addAt(out, sweepTone(l, 0.8, 70*l.c.Pitch, 30*l.c.Pitch, 0.003, 0.25), 0, 1.5)
		// Debris falling after.
		addAt(out, scatter(l, min(n, l.secs(2)), 15, func() []float64 {
			return burst(l, 0.03, 0.0005, 0.006, bandpass, l.r.rang(800, 3000), 1.5)
		}), l.secs(0.4), 0.2)
		return out
	}})
	add(&recipe{name: "gunshot", family: "explosion", natural: 1.5, gain: 0.45, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, burst(l, 0.4, 0.0003, 0.03, lowpass, 3000*l.c.Pitch, 0.7), 0, 1.5)
		addAt(out, sweepTone(l, 0.2, 160*l.c.Pitch, 60*l.c.Pitch, 0.001, 0.04), 0, 1)
		return out
	}})
	// ---- vehicles and machines ----
	add(&recipe{name: "engine", family: "vehicle", bed: true, natural: 6, gain: 0.3, render: func(l *layer, n int) []float64 {
		return engineSound(l, n, 32*l.c.Pitch*(0.8+0.4*l.c.Speed), 0.2, 6)
	}})
	add(&recipe{name: "car_pass", family: "vehicle", natural: 5, gain: 0.3, render: func(l *layer, n int) []float64 {
		// Engine plus tyre noise, swelling as it nears; the Doppler drop in pitch as it passes.
		eng := engineSound(l, n, 40*l.c.Pitch, 0, 6)
		tyre := noiseBed(l, n, "pink", bandpass, 700, 0.8, 0.1, 0.2)
		out := make([]float64, n)
		mid := float64(n) / 2
		width := float64(l.secs(1.0 / l.c.Speed))
		for i := range out {
			d := (float64(i) - mid) / width
			out[i] = (eng[i] + 0.8*tyre[i]) / (1 + d*d)
		}
		return dopplerShift(out, n, 0.06*l.c.Speed)
	}})
	add(&recipe{name: "car_horn", family: "vehicle", natural: 1.5, gain: 0.3, render: func(l *layer, n int) []float64 {
		length := min(n, l.secs(0.9*l.c.Length))
		out := make([]float64, n)
		var a, b osc
		flt := newFilter(bandpass, l.sr, 1500, 0.8)
		for i := 0; i < length; i++ {
			env := math.Min(1, float64(i)/float64(l.secs(0.01))) * math.Min(1, float64(length-i)/float64(l.secs(0.02)))
			out[i] = flt.p(a.square(420*l.c.Pitch, l.sr)+b.square(500*l.c.Pitch, l.sr)) * env
		}
		return out
	}})
	add(&recipe{name: "train", family: "vehicle", bed: true, natural: 10, gain: 0.3, render: func(l *layer, n int) []float64 {
		out := scale(engineSound(l, n, 28*l.c.Pitch, 0.1, 4), 0.6)
		// The clack of wheels over rail joints, in pairs.
		clack := repeatEvery(l, n, 0.9/l.c.Speed, 0.02, func(int) []float64 {
			c := make([]float64, l.secs(0.25))
			addAt(c, modes(l, 0.1, []float64{600, 1400}, []float64{0.6, 0.3}, []float64{0.02, 0.01}), 0, 1)
			addAt(c, modes(l, 0.1, []float64{650, 1500}, []float64{0.6, 0.3}, []float64{0.02, 0.01}), l.secs(0.12), 1)
			return c
		})
		addAt(out, clack, 0, 1)
		return out
	}})
	add(&recipe{name: "airplane", family: "vehicle", bed: true, natural: 10, gain: 0.28, render: func(l *layer, n int) []float64 {
		out := noiseBed(l, n, "pink", lowpass, 1200*l.c.Pitch, 0.8, 0.2, 0.1)
		whine := make([]float64, n)
		var o osc
		for i := range whine {
			whine[i] = 0.05 * o.sin(3200*l.c.Pitch*(1+0.01*math.Sin(l.t(i))), l.sr)
		}
		addAt(out, whine, 0, 1)
		return out
	}})
	add(&recipe{name: "helicopter", family: "vehicle", bed: true, natural: 8, gain: 0.3, render: func(l *layer, n int) []float64 {
		// Blade slap: a pulsed low noise at the rotor rate.
		out := make([]float64, n)
		flt := newFilter(lowpass, l.sr, 600*l.c.Pitch, 0.9)
		var o osc
		for i := range out {
			ph := (o.sin(5*l.c.Speed*l.c.Pitch, l.sr) + 1) / 2
			out[i] = flt.p(l.r.w()) * math.Pow(ph, 6)
		}
		addAt(out, engineSound(l, n, 60*l.c.Pitch, 0, 4), 0, 0.3)
		return out
	}})
	add(&recipe{name: "machine", family: "machine", bed: true, natural: 8, gain: 0.25, render: func(l *layer, n int) []float64 {
		// Mains hum with harmonics, a motor whine and a rhythmic mechanical thump.
		out := hum(l, n, 50*l.c.Pitch)
		addAt(out, repeatEvery(l, n, 0.5/l.c.Speed, 0.01, func(int) []float64 {
			return burst(l, 0.12, 0.002, 0.03, bandpass, 300*l.c.Pitch, 1.5)
		}), 0, 0.8)
		return out
	}})
	add(&recipe{name: "hum", family: "machine", bed: true, natural: 6, gain: 0.2, render: func(l *layer, n int) []float64 {
		return hum(l, n, 60*l.c.Pitch)
	}})
	add(&recipe{name: "clock", family: "machine", natural: 4, gain: 0.25, render: func(l *layer, n int) []float64 {
		return repeatEvery(l, n, 1/l.c.Speed, 0.0, func(k int) []float64 {
			f := 3000.0
			if k%2 == 1 {
				f = 2500
			}
			return modes(l, 0.05, []float64{f * l.c.Pitch, f * 1.6 * l.c.Pitch}, []float64{0.5, 0.3}, []float64{0.006, 0.004})
		})
	}})
	add(&recipe{name: "typing", family: "machine", natural: 4, gain: 0.25, render: func(l *layer, n int) []float64 {
		return scatter(l, n, 8*l.c.Speed, func() []float64 {
			c := burst(l, 0.03, 0.0003, 0.004, bandpass, l.r.rang(2000, 4000)*l.c.Pitch, 1.5)
			addAt(c, burst(l, 0.03, 0.0005, 0.006, lowpass, 400, 1), l.secs(0.008), 0.5)
			return c
		})
	}})
	add(&recipe{name: "static", family: "machine", bed: true, natural: 4, gain: 0.15, render: func(l *layer, n int) []float64 {
		out := noiseBed(l, n, "white", bandpass, 2500*l.c.Pitch, 0.5, 0.3, 1)
		addAt(out, scatter(l, n, 30, func() []float64 { return burst(l, 0.003, 0.0001, 0.001, highpass, 1000, 0.7) }), 0, 2)
		return out
	}})
	// ---- movement ----
	add(&recipe{name: "whoosh", family: "whoosh", natural: 1.2, gain: 0.3, render: func(l *layer, n int) []float64 {
		return swoosh(l, n, 0.9*l.c.Length/l.c.Speed, 300*l.c.Pitch, 3000*l.c.Pitch, 2)
	}})
	add(&recipe{name: "swish", family: "whoosh", natural: 0.6, gain: 0.3, render: func(l *layer, n int) []float64 {
		return swoosh(l, n, 0.3*l.c.Length/l.c.Speed, 1500*l.c.Pitch, 6000*l.c.Pitch, 4)
	}})
	// ---- UI and signals ----
	add(&recipe{name: "beep", family: "ui", natural: 0.5, gain: 0.25, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, tone(l, 0.18*l.c.Length, 1000*l.c.Pitch, "sine"), 0, 1)
		return out
	}})
	add(&recipe{name: "click", family: "ui", natural: 0.3, gain: 0.25, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, burst(l, 0.02, 0.0002, 0.002, bandpass, 3500*l.c.Pitch, 1.2), 0, 1)
		addAt(out, modes(l, 0.03, []float64{2200 * l.c.Pitch}, []float64{0.3}, []float64{0.004}), 0, 1)
		return out
	}})
	add(&recipe{name: "chime", family: "ui", natural: 1.5, gain: 0.25, render: func(l *layer, n int) []float64 {
		// A two-note notification ding (a rising major third).
		out := make([]float64, n)
		f := 880 * l.c.Pitch
		addAt(out, modes(l, 1.2, []float64{f, 2 * f, 3 * f}, []float64{0.6, 0.2, 0.05}, []float64{0.4, 0.2, 0.1}), 0, 1)
		addAt(out, modes(l, 1.2, []float64{f * 1.26, 2.52 * f}, []float64{0.6, 0.2}, []float64{0.5, 0.25}), l.secs(0.15/l.c.Speed), 1)
		return out
	}})
	add(&recipe{name: "coin", family: "ui", natural: 0.6, gain: 0.25, render: func(l *layer, n int) []float64 {
		// The classic game pickup: a square blip jumping up a fourth.
		out := make([]float64, n)
		addAt(out, tone(l, 0.07, 988*l.c.Pitch, "square"), 0, 0.6)
		addAt(out, tone(l, 0.3, 1319*l.c.Pitch, "square"), l.secs(0.07), 0.6)
		return out
	}})
	add(&recipe{name: "power_up", family: "ui", natural: 1, gain: 0.25, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		s := sweepTone(l, 0.8*l.c.Length, 200*l.c.Pitch, 1600*l.c.Pitch, 0.01, 10)
		addAt(out, fadeEdges(s, l.secs(0.03)), 0, 1)
		return out
	}})
	add(&recipe{name: "power_down", family: "ui", natural: 1, gain: 0.25, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		s := sweepTone(l, 0.8*l.c.Length, 1200*l.c.Pitch, 80*l.c.Pitch, 0.01, 10)
		addAt(out, fadeEdges(s, l.secs(0.03)), 0, 1)
		return out
	}})
	add(&recipe{name: "laser", family: "ui", natural: 0.6, gain: 0.25, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		addAt(out, sweepTone(l, 0.35, 2500*l.c.Pitch, 300*l.c.Pitch, 0.002, 0.12), 0, 1)
		return out
	}})
	add(&recipe{name: "alarm", family: "alarm", natural: 4, gain: 0.25, render: func(l *layer, n int) []float64 {
		// Alarm-clock beeping: bursts of four square beeps.
		return repeatEvery(l, n, 1/l.c.Speed, 0, func(int) []float64 {
			g := make([]float64, l.secs(0.8))
			for k := 0; k < 4; k++ {
				addAt(g, tone(l, 0.07, 2000*l.c.Pitch, "square"), l.secs(float64(k)*0.13), 0.5)
			}
			return g
		})
	}})
	add(&recipe{name: "siren", family: "alarm", natural: 6, gain: 0.25, render: func(l *layer, n int) []float64 {
		// A wail: the pitch swings between two notes.
		out := make([]float64, n)
		var o, lfo osc
		flt := newFilter(lowpass, l.sr, 3000, 0.7)
		for i := range out {
			m := lfo.sin(0.25*l.c.Speed, l.sr)
			out[i] = flt.p(o.saw((950+350*m)*l.c.Pitch, l.sr))
		}
		return out
	}})
	add(&recipe{name: "whistle", family: "alarm", natural: 1.5, gain: 0.25, render: func(l *layer, n int) []float64 {
		// A pea whistle: a high tone with a fast warble and breath noise.
		length := min(n, l.secs(1.0*l.c.Length))
		out := make([]float64, n)
		var o, w osc
		bp := newFilter(bandpass, l.sr, 3000*l.c.Pitch, 6)
		for i := 0; i < length; i++ {
			env := math.Min(1, float64(i)/float64(l.secs(0.02))) * math.Min(1, float64(length-i)/float64(l.secs(0.05)))
			f := 2800 * l.c.Pitch * (1 + 0.04*w.sin(30, l.sr))
			out[i] = (o.sin(f, l.sr) + 0.2*bp.p(l.r.w())) * env
		}
		return out
	}})
	add(&recipe{name: "bell", family: "bell", natural: 4, gain: 0.25, render: func(l *layer, n int) []float64 {
		// A church bell's inharmonic partials (hum, prime, tierce, quint, nominal), tolled.
		f := 220 * l.c.Pitch
		return repeatEvery(l, n, 2.5/l.c.Speed, 0, func(int) []float64 {
			return modes(l, 4*l.c.Length, []float64{f * 0.5, f, f * 1.183, f * 1.506, f * 2, f * 2.74}, []float64{0.5, 0.6, 0.4, 0.25, 0.4, 0.15}, []float64{3, 2, 1.5, 1, 1.2, 0.6})
		})
	}})
	// ---- people ----
	add(&recipe{name: "crowd", family: "crowd", bed: true, natural: 8, gain: 0.22, render: func(l *layer, n int) []float64 {
		// Murmur: many overlapping vowel-like babbles at random pitches.
		out := make([]float64, n)
		voices := 6 + int(10*l.c.Weight)
		vw := [][3]float64{{700, 1200, 2500}, {400, 2000, 2600}, {500, 900, 2400}, {300, 2300, 3000}}
		for v := 0; v < voices; v++ {
			f0 := l.r.rang(100, 230) * l.c.Pitch
			src := make([]float64, n)
			var o osc
			sm := newSmoother(l.sr, 0.04)
			on := 0.0
			for i := range src {
				if i%l.secs(0.18) == 0 {
					on = 0
					if l.r.f() < 0.6 {
						on = 1
					}
				}
				src[i] = (o.pulse(f0*(1+0.1*math.Sin(l.t(i)*3+float64(v))), l.sr) - 0.3 + 0.2*l.r.w()) * sm.p(on)
			}
			x := vw[v%len(vw)]
			addAt(out, vowel(l, src, x[0], x[1], x[2]), 0, 1)
		}
		return newFilter(lowpass, l.sr, 3000*l.c.Bright, 0.7).run(out)
	}})
	add(&recipe{name: "room_tone", family: "room", bed: true, natural: 8, gain: 0.08, render: func(l *layer, n int) []float64 {
		out := noiseBed(l, n, "brown", lowpass, 250*l.c.Pitch, 0.7, 0.2, 0.1)
		addAt(out, hum(l, n, 50), 0, 0.05)
		return out
	}})
	add(&recipe{name: "heartbeat", family: "body", natural: 4, gain: 0.35, render: func(l *layer, n int) []float64 {
		return repeatEvery(l, n, 0.85/l.c.Speed, 0.02, func(int) []float64 {
			b := make([]float64, l.secs(0.5))
			addAt(b, sweepTone(l, 0.15, 70*l.c.Pitch, 45*l.c.Pitch, 0.005, 0.04), 0, 1)
			addAt(b, sweepTone(l, 0.12, 60*l.c.Pitch, 40*l.c.Pitch, 0.005, 0.035), l.secs(0.28), 0.7)
			return b
		})
	}})
	add(&recipe{name: "laugh", family: "vocal", natural: 1.6, gain: 0.3, render: func(l *layer, n int) []float64 { return laugh(l, n) }})
	add(&recipe{name: "breath", family: "vocal", natural: 1.5, gain: 0.2, render: func(l *layer, n int) []float64 { return breath(l, n, false) }})
	add(&recipe{name: "sigh", family: "vocal", natural: 1.5, gain: 0.25, render: func(l *layer, n int) []float64 { return breath(l, n, true) }})
	add(&recipe{name: "cough", family: "vocal", natural: 1.2, gain: 0.3, render: func(l *layer, n int) []float64 { return cough(l, n) }})
	add(&recipe{name: "applause", family: "crowd", bed: true, natural: 5, gain: 0.25, render: func(l *layer, n int) []float64 {
		// Many clappers: each clap a short resonant noise burst; density swells in and out.
		out := scatter(l, n, 40+120*l.c.Weight, func() []float64 {
			return burst(l, 0.04, 0.0005, 0.008, bandpass, l.r.rang(900, 2600)*l.c.Pitch, 2.5)
		})
		length := float64(n)
		for i := range out {
			x := float64(i) / length
			out[i] *= math.Min(1, x*10) * math.Min(1, (1-x)*4)
		}
		return out
	}})
	// ---- animals ----
	add(&recipe{name: "birdsong", family: "animal", bed: true, natural: 8, gain: 0.2, render: func(l *layer, n int) []float64 {
		// Chirps: fast up/down sine glides with trills, in phrases, a few birds.
		out := make([]float64, n)
		for b := 0; b < 2+int(2*l.c.Weight); b++ {
			base := l.r.rang(2500, 5000) * l.c.Pitch
			addAt(out, scatter(l, n, 0.5*l.c.Speed, func() []float64 {
				ph := make([]float64, l.secs(1))
				for k, c := 0, 3+int(l.r.f()*5); k < c; k++ {
					f := base * l.r.rang(0.85, 1.2)
					addAt(ph, sweepTone(l, 0.07, f, f*l.r.rang(0.7, 1.5), 0.005, 0.03), l.secs(float64(k)*0.09), 1)
				}
				return ph
			}), 0, 1)
		}
		return out
	}})
	add(&recipe{name: "crickets", family: "animal", bed: true, natural: 8, gain: 0.15, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		for c := 0; c < 3; c++ {
			f := l.r.rang(4200, 5200) * l.c.Pitch
			addAt(out, repeatEvery(l, n, 0.6/l.c.Speed, 0.1, func(int) []float64 {
				g := make([]float64, l.secs(0.3))
				for k := 0; k < 3; k++ {
					addAt(g, tone(l, 0.03, f, "sine"), l.secs(float64(k)*0.045), 1)
				}
				return g
			}), 0, 1)
		}
		return out
	}})
	add(&recipe{name: "dog_bark", family: "animal", natural: 2.5, gain: 0.35, render: func(l *layer, n int) []float64 {
		return repeatEvery(l, n, 0.7/l.c.Speed, 0.15, func(int) []float64 {
			f0 := l.r.rang(300, 420) * l.c.Pitch
			s := voiced(l, 0.2, f0, f0*0.7, 0.6, func(t float64) float64 { return attackDecay(t, 0.01, 0.06) })
			return vowel(l, s, 700*l.c.Pitch, 1300*l.c.Pitch, 2700)
		})
	}})
	add(&recipe{name: "cat_meow", family: "animal", natural: 1.5, gain: 0.3, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		f0 := 600 * l.c.Pitch
		length := 0.8 * l.c.Length
		src := voiced(l, length, f0, f0*0.75, 0.15, func(t float64) float64 { return math.Sin(math.Pi * t / length) })
		// /i/ opening to /a/ to /u/: the formants move as the mouth opens and closes.
		third := len(src) / 3
		out2 := vowel(l, src[:third], 400, 2200, 3000)
		out2 = append(out2, vowel(l, src[third:2*third], 900, 1400, 2800)...)
		out2 = append(out2, vowel(l, src[2*third:], 500, 900, 2600)...)
		addAt(out, out2, 0, 1)
		return out
	}})
	add(&recipe{name: "owl", family: "animal", natural: 3, gain: 0.3, render: func(l *layer, n int) []float64 {
		out := make([]float64, n)
		for k, d := range []float64{0.25, 0.12, 0.6} {
			off := l.secs([]float64{0, 0.45, 0.75}[k])
			f := 380 * l.c.Pitch
			s := make([]float64, l.secs(d))
			var o osc
			for i := range s {
				s[i] = (o.sin(f*(1-0.05*float64(i)/float64(len(s))), l.sr) + 0.05*l.r.w()) * math.Sin(math.Pi*float64(i)/float64(len(s)))
			}
			addAt(out, s, off, 1)
		}
		return out
	}})
	add(&recipe{name: "frog", family: "animal", natural: 3, gain: 0.3, render: func(l *layer, n int) []float64 {
		return repeatEvery(l, n, 0.8/l.c.Speed, 0.2, func(int) []float64 {
			// A croak: a fast train of pulses (about 30 per second) through a low resonance.
			s := make([]float64, l.secs(0.3))
			var o, am osc
			flt := newFilter(bandpass, l.sr, 600*l.c.Pitch, 3)
			for i := range s {
				s[i] = flt.p(o.saw(130*l.c.Pitch, l.sr)) * math.Max(0, am.sin(30, l.sr)) * math.Sin(math.Pi*float64(i)/float64(len(s)))
			}
			return s
		})
	}})
	add(&recipe{name: "crow", family: "animal", natural: 2.5, gain: 0.3, render: func(l *layer, n int) []float64 {
		return repeatEvery(l, n, 0.6/l.c.Speed, 0.1, func(int) []float64 {
			f0 := 500 * l.c.Pitch
			s := voiced(l, 0.3, f0, f0*0.8, 1.0, func(t float64) float64 { return math.Sin(math.Pi * t / 0.3) })
			return vowel(l, s, 1000, 1500, 2800)
		})
	}})
}

// metal is a struck metal object: many inharmonic, slowly decaying partials.
func metal(l *layer, length, f float64) []float64 {
	ratios := []float64{1, 2.76, 5.4, 8.93, 13.3, 1.58}
	freqs := make([]float64, len(ratios))
	amps := make([]float64, len(ratios))
	taus := make([]float64, len(ratios))
	for i, r := range ratios {
		freqs[i] = f * r * l.r.rang(0.98, 1.02)
		amps[i] = 0.5 / (1 + 0.5*float64(i))
		taus[i] = length / (1.5 + float64(i))
	}
	return modes(l, length, freqs, amps, taus)
}

// engineSound is a combustion engine: firing pulses at f Hz (with cycle jitter) through the
// exhaust's resonances; rough adds random misfire-like variation.
func engineSound(l *layer, n int, f, rough float64, harm int) []float64 {
	out := make([]float64, n)
	var o osc
	lp := newFilter(lowpass, l.sr, f*float64(harm), 0.8)
	res := newFilter(bandpass, l.sr, f*2.5, 3)
	sm := newSmoother(l.sr, 0.5)
	tgt := 1.0
	for i := range out {
		if i%l.secs(0.4) == 0 {
			tgt = 1 + 0.15*l.r.w()
		}
		ff := f * sm.p(tgt) * (1 + rough*0.05*l.r.w())
		x := o.pulse(ff, l.sr) + 0.1*l.r.w()
		out[i] = lp.p(x) + 0.5*res.p(x)
	}
	return out
}

// dopplerShift resamples x with a speed that falls through the middle (a source passing by).
func dopplerShift(x []float64, n int, depth float64) []float64 {
	out := make([]float64, n)
	pos := 0.0
	mid := float64(n) / 2
	for i := range out {
		d := (float64(i) - mid) / (float64(n) / 8)
		rate := 1 + depth*(-math.Tanh(d))
		j := int(pos)
		if j+1 >= len(x) {
			break
		}
		fr := pos - float64(j)
		out[i] = x[j]*(1-fr) + x[j+1]*fr
		pos += rate
	}
	return out
}

// hum is an electrical hum: the mains frequency and its odd harmonics.
func hum(l *layer, n int, f float64) []float64 {
	out := make([]float64, n)
	var a, b, c osc
	for i := range out {
		out[i] = a.sin(f, l.sr) + 0.5*b.sin(3*f, l.sr) + 0.25*c.sin(5*f, l.sr) + 0.02*l.r.w()
	}
	return out
}

// swoosh is air moving past: band-passed noise whose centre sweeps up then down, loudest in the
// middle.
func swoosh(l *layer, n int, length, f0, f1, q float64) []float64 {
	out := make([]float64, n)
	m := min(n, l.secs(length))
	flt := newFilter(bandpass, l.sr, f0, q)
	for i := 0; i < m; i++ {
		x := float64(i) / float64(m)
		env := math.Pow(math.Sin(math.Pi*x), 2)
		if i%32 == 0 {
			flt.set(bandpass, l.sr, f0+(f1-f0)*env, q, 0)
		}
		out[i] = flt.p(l.r.w()) * env
	}
	return out
}

// tone is a short enveloped tone ("sine" or "square").
func tone(l *layer, length, f float64, shape string) []float64 {
	s := make([]float64, l.secs(length))
	var o osc
	for i := range s {
		if shape == "square" {
			s[i] = o.square(f, l.sr)
		} else {
			s[i] = o.sin(f, l.sr)
		}
	}
	return fadeEdges(s, l.secs(0.005))
}

// ---- vocal non-speech sounds (dialogue audio tags) ----

func laugh(l *layer, n int) []float64 {
	// "ha-ha-ha": voiced /a/ syllables with breathy onsets, pitch and loudness falling.
	out := make([]float64, n)
	f0 := l.r.rang(180, 240) * l.c.Pitch
	count := 5
	for k := 0; k < count; k++ {
		g := math.Pow(0.85, float64(k))
		f := f0 * math.Pow(0.95, float64(k))
		s := voiced(l, 0.16, f*1.05, f*0.95, 0.8, func(t float64) float64 { return attackDecay(t, 0.02, 0.05) })
		addAt(out, vowel(l, s, 800, 1250, 2600), l.secs(float64(k)*0.2/l.c.Speed), g)
	}
	return out
}

func breath(l *layer, n int, sigh bool) []float64 {
	// Turbulent noise through the vocal tract's resonances, rising and falling; a sigh adds a
	// falling voiced tail.
	length := math.Min(1.3*l.c.Length, float64(n)/float64(l.sr))
	m := l.secs(length)
	src := make([]float64, m)
	for i := range src {
		x := float64(i) / float64(m)
		src[i] = l.r.w() * math.Pow(math.Sin(math.Pi*x), 1.5)
	}
	out := make([]float64, n)
	addAt(out, vowel(l, src, 600, 1500, 2500), 0, 1)
	if sigh {
		f0 := 170 * l.c.Pitch
		v := voiced(l, length*0.7, f0, f0*0.7, 0.9, func(t float64) float64 { return math.Sin(math.Pi*t/(length*0.7)) * 0.5 })
		addAt(out, vowel(l, v, 650, 1100, 2500), l.secs(length*0.25), 0.6)
	}
	return out
}

func cough(l *layer, n int) []float64 {
	// Two explosive bursts: a glottal crack, then breathy voiced noise.
	out := make([]float64, n)
	for k := 0; k < 2; k++ {
		off := l.secs(float64(k) * 0.35 / l.c.Speed)
		f0 := 150 * l.c.Pitch
		s := voiced(l, 0.22, f0, f0*0.8, 1.6, func(t float64) float64 { return attackDecay(t, 0.005, 0.06) })
		addAt(out, vowel(l, s, 550, 1600, 2500), off, math.Pow(0.7, float64(k)))
		addAt(out, burst(l, 0.03, 0.0005, 0.006, lowpass, 1200, 0.7), off, 0.8)
	}
	return out
}
