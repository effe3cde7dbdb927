package audio

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"unsafe"
)

// PCMBytes encodes samples as raw signed 16-bit little-endian bytes.
func PCMBytes(samples []int16) []byte {
	return appendPCM(make([]byte, 0, 2*len(samples)), samples)
}

func appendPCM(dst []byte, samples []int16) []byte {
	if nativeLE {
		return append(dst, sampleBytes(samples)...)
	}
	for _, s := range samples {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(s))
	}
	return dst
}

// nativeLE reports whether this machine stores an int16 little-endian: then samples in memory
// already are pcm (s16le) bytes, and streams send them as they are instead of converting each
// sample into a new buffer.
var nativeLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// sampleBytes is the memory of s as bytes (s16le on a nativeLE machine).
func sampleBytes(s []int16) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 2*len(s))
}

// PCMSamples decodes raw signed 16-bit little-endian bytes; an odd trailing byte is ignored.
func PCMSamples(data []byte) []int16 {
	out := make([]int16, len(data)/2)
	for i := range out {
		out[i] = int16(binary.LittleEndian.Uint16(data[2*i:]))
	}
	return out
}

// wavHeader returns the 44-byte canonical header of a 16-bit mono WAV file holding dataBytes bytes
// of samples. dataBytes < 0 means unknown length (streaming), written as the maximum size.
func wavHeader(rate, dataBytes int) []byte {
	riff, data := uint32(36+dataBytes), uint32(dataBytes)
	if dataBytes < 0 {
		riff, data = 0xFFFFFFFF, 0xFFFFFFFF-36
	}
	h := make([]byte, 0, 44)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, riff)
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)             // fmt chunk size
	h = binary.LittleEndian.AppendUint16(h, 1)              // PCM
	h = binary.LittleEndian.AppendUint16(h, 1)              // mono
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))   // sample rate
	h = binary.LittleEndian.AppendUint32(h, uint32(2*rate)) // byte rate
	h = binary.LittleEndian.AppendUint16(h, 2)              // block align
	h = binary.LittleEndian.AppendUint16(h, 16)             // bits per sample
	h = append(h, "data"...)
	return binary.LittleEndian.AppendUint32(h, data)
}

// WAV returns a complete 16-bit mono WAV file.
func WAV(samples []int16, rate int) []byte {
	return appendPCM(wavHeader(rate, 2*len(samples)), samples)
}

// parseWAV reads a 16-bit PCM WAV file (mono, or the first channel of a multi-channel file).
// A data chunk whose size is larger than the file (as written to a pipe) runs to the end.
func parseWAV(b []byte) ([]int16, int, error) {
	all, rate, channels, err := wavSamples(b)
	if err != nil || channels == 1 {
		return all, rate, err
	}
	mono := make([]int16, len(all)/channels)
	for i := range mono {
		mono[i] = all[i*channels]
	}
	return mono, rate, nil
}

// parseWAVChannels reads a 16-bit PCM WAV file of any number of channels: one slice of samples
// per channel, in the file's channel order.
func parseWAVChannels(b []byte) ([][]int16, int, error) {
	all, rate, channels, err := wavSamples(b)
	if err != nil {
		return nil, 0, err
	}
	n := len(all) / channels
	out := make([][]int16, channels)
	for c := range out {
		ch := make([]int16, n)
		for i := range ch {
			ch[i] = all[i*channels+c]
		}
		out[c] = ch
	}
	return out, rate, nil
}

// wavSamples returns the interleaved samples of a 16-bit PCM WAV file, its rate and channels.
func wavSamples(b []byte) (all []int16, rate, channels int, err error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, 0, 0, errors.New("audio: not a WAV file")
	}
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
		p += 8
		switch id {
		case "fmt ":
			if size < 16 || p+16 > len(b) {
				return nil, 0, 0, errors.New("audio: short WAV fmt chunk")
			}
			format := binary.LittleEndian.Uint16(b[p:])
			channels = int(binary.LittleEndian.Uint16(b[p+2:]))
			rate = int(binary.LittleEndian.Uint32(b[p+4:]))
			bitsPer := binary.LittleEndian.Uint16(b[p+14:])
			if (format != 1 && format != 0xFFFE) || bitsPer != 16 || channels < 1 {
				return nil, 0, 0, errors.New("audio: WAV is not 16-bit PCM")
			}
		case "data":
			if rate == 0 {
				return nil, 0, 0, errors.New("audio: WAV data before fmt chunk")
			}
			if size < 0 || p+size > len(b) {
				size = len(b) - p
			}
			all = PCMSamples(b[p : p+size])
			return all[:len(all)/channels*channels], rate, channels, nil
		}
		p += size + size&1 // chunks are word aligned
	}
	return nil, 0, 0, errors.New("audio: WAV has no data chunk")
}

// G.711 µ-law and A-law, after the public-domain Sun reference implementation (g711.c).

const (
	ulawBias = 0x84
	ulawClip = 32635
)

// ULaw encodes one 16-bit sample as G.711 µ-law.
func ULaw(s int16) byte {
	x := int(s)
	sign := 0
	if x < 0 {
		x, sign = -x, 0x80
	}
	x = min(x, ulawClip) + ulawBias
	exp := bits.Len(uint(x>>7)) - 1 // segment: position of the top bit above bit 7
	if exp < 0 {
		exp = 0
	}
	mant := (x >> (exp + 3)) & 0x0F
	return ^byte(sign | exp<<4 | mant)
}

// ULawDecode decodes one G.711 µ-law byte.
func ULawDecode(u byte) int16 {
	u = ^u
	t := (int(u&0x0F)<<3 + ulawBias) << ((u & 0x70) >> 4)
	if u&0x80 != 0 {
		return int16(ulawBias - t)
	}
	return int16(t - ulawBias)
}

// ALaw encodes one 16-bit sample as G.711 A-law.
func ALaw(s int16) byte {
	p := int(s) >> 3 // A-law works on 13 bits
	mask := 0xD5
	if p < 0 {
		mask, p = 0x55, -p-1
	}
	// Segment ends are 0x1F, 0x3F, …, 0xFFF: the segment is the bit length above 5 bits.
	seg := max(bits.Len(uint(p))-5, 0)
	if seg >= 8 {
		return byte(0x7F ^ mask)
	}
	var a int
	if seg < 2 {
		a = seg<<4 | (p>>1)&0x0F
	} else {
		a = seg<<4 | (p>>seg)&0x0F
	}
	return byte(a ^ mask)
}

// ALawDecode decodes one G.711 A-law byte.
func ALawDecode(a byte) int16 {
	a ^= 0x55
	t := int(a&0x0F) << 4
	switch seg := int(a&0x70) >> 4; seg {
	case 0:
		t += 8
	case 1:
		t += 0x108
	default:
		t = (t + 0x108) << (seg - 1)
	}
	if a&0x80 != 0 {
		return int16(t)
	}
	return int16(-t)
}

// encodeRaw appends samples in a headerless Go-encoded codec (pcm, ulaw, alaw, and wav's body).
func encodeRaw(dst []byte, codec string, samples []int16) []byte {
	switch codec {
	case CodecULaw:
		for _, s := range samples {
			dst = append(dst, ULaw(s))
		}
		return dst
	case CodecALaw:
		for _, s := range samples {
			dst = append(dst, ALaw(s))
		}
		return dst
	default:
		return appendPCM(dst, samples)
	}
}

// decodeRaw is the inverse of encodeRaw.
func decodeRaw(codec string, data []byte) []int16 {
	switch codec {
	case CodecULaw, CodecALaw:
		dec := ULawDecode
		if codec == CodecALaw {
			dec = ALawDecode
		}
		out := make([]int16, len(data))
		for i, b := range data {
			out[i] = dec(b)
		}
		return out
	default:
		return PCMSamples(data)
	}
}
