package config

import (
	"flag"
	"strings"
	"testing"
)

func TestDNSResolver(t *testing.T) {
	for _, c := range []struct {
		env, flag, want, err string
	}{
		{"", "", "", ""},
		{"127.0.0.1:5353", "", "127.0.0.1:5353", ""},
		{"127.0.0.1:5353", "[::1]:53", "[::1]:53", ""}, // the flag wins
		{"1.1.1.1", "", "", "dns-resolver: want host:port"},
		{":53", "", "", "dns-resolver: want host:port"},
	} {
		t.Setenv("TIMBRE_DNS_RESOLVER", c.env)
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		cfg := Bind(fs, Serve)
		var args []string
		if c.flag != "" {
			args = []string{"-dns-resolver", c.flag}
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		err := cfg.Finish()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.env, err, c.err)
			}
			continue
		}
		if err != nil || cfg.DNSResolver != c.want {
			t.Errorf("env %q flag %q: %q, %v; want %q", c.env, c.flag, cfg.DNSResolver, err, c.want)
		}
	}
}

// The operator's terms and privacy addresses: empty keeps the built-in pages; anything but an
// absolute http(s) address stops the start with a message naming the setting.
func TestLegalURLs(t *testing.T) {
	for _, c := range []struct {
		terms, privacy, err string
	}{
		{"", "", ""},
		{"https://example.com/terms", "http://example.com/privacy?lang=en", ""},
		{"/terms", "", "terms-url: want an http:// or https:// address"},
		{"", "javascript:alert(1)", "privacy-url: want an http:// or https:// address"},
		{"https://", "", "terms-url"},
	} {
		t.Setenv("TIMBRE_TERMS_URL", c.terms)
		t.Setenv("TIMBRE_PRIVACY_URL", c.privacy)
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		cfg := Bind(fs, Serve)
		if err := fs.Parse(nil); err != nil {
			t.Fatal(err)
		}
		err := cfg.Finish()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("terms %q privacy %q: error %v, want %q", c.terms, c.privacy, err, c.err)
			}
			continue
		}
		if err != nil || cfg.TermsURL != c.terms || cfg.PrivacyURL != c.privacy {
			t.Errorf("terms %q privacy %q: got %q %q, %v", c.terms, c.privacy, cfg.TermsURL, cfg.PrivacyURL, err)
		}
	}
}

func TestSTTOpenAI(t *testing.T) {
	t.Setenv("TIMBRE_STT_OPENAI_URL", "http://whisper:8000")
	t.Setenv("TIMBRE_STT_OPENAI_KEY", "sk-local")
	t.Setenv("TIMBRE_STT_OPENAI_LANGUAGES", "de,fr")
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	cfg := Bind(fs, Serve)
	if err := fs.Parse([]string{"-stt-openai-model", "Systran/faster-whisper-small"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Finish(); err != nil {
		t.Fatal(err)
	}
	if cfg.STTOpenAIURL != "http://whisper:8000" || cfg.STTOpenAIKey != "sk-local" ||
		cfg.STTOpenAIModel != "Systran/faster-whisper-small" || cfg.STTOpenAILanguages != "de,fr" {
		t.Errorf("config = %q %q %q %q", cfg.STTOpenAIURL, cfg.STTOpenAIKey, cfg.STTOpenAIModel, cfg.STTOpenAILanguages)
	}
}
