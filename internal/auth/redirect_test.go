package auth_test

import (
	"testing"

	"timbre/internal/auth"
)

func TestSafeRedirect(t *testing.T) {
	const origin = "https://timbre.example"
	allowed := []struct{ in, want string }{
		{"", auth.DefaultRedirect},
		{"/app/affiliates", "/app/affiliates"},
		{"/app/audio-native/settings/player", "/app/audio-native/settings/player"},
		{"/app/history", "/app/history"},
		{"/app/request-alpha-access", "/app/request-alpha-access"},
		{"/app/subscription", "/app/subscription"},
		{"/app/usage/workspace", "/app/usage/workspace"},
		{"/app/speech-synthesis/speech-to-speech/history", "/app/speech-synthesis/speech-to-speech/history"},
		{"/app/dubs/abc123", "/app/dubs/abc123"},
		{"/app/redirect", "/app/redirect"},
		{"/v1/dubs/dub_123", "/v1/dubs/dub_123"},
		{"/v1/projects/p1", "/v1/projects/p1"},
		{"/app/voice-lab/share/abc/def", "/app/voice-lab/share/abc/def"},
		{"/app/integrations/slack/callback?code=xyz&configurationId=c1&next=n&source=s&teamId=t", "/app/integrations/slack/callback?code=xyz&configurationId=c1&next=n&source=s&teamId=t"},
		{"/sound-effects/thunder", "/sound-effects/thunder"},
		{"/app/studio/proj_1", "/app/studio/proj_1"},
		{"/app/settings/api-keys?dialog=add-2fa", "/app/settings/api-keys?dialog=add-2fa"},
		{"/app/workspace/members", "/app/workspace/members"},
		{"/pricing", "/pricing"},
		{"/use-cases/audiobooks", "/use-cases/audiobooks"},
		{"/blog/", "/blog/"},
		{"https://timbre.example/app/history", "/app/history"},
		{"HTTPS://TIMBRE.EXAMPLE/app/usage", "/app/usage"},
	}
	for _, tc := range allowed {
		got, ok := auth.SafeRedirect(tc.in, origin)
		if !ok || got != tc.want {
			t.Errorf("SafeRedirect(%q) = %q, %v; want %q, true", tc.in, got, ok, tc.want)
		}
	}
	hostile := []string{
		"//evil.example",
		"//evil.example/app/history",
		"///evil.example/app/history",
		"https://evil.example/app/history",
		"http://timbre.example/app/history",       // another scheme
		"https://timbre.example:8443/app/history", // another port
		"https://timbre.example.evil.example/app/history",
		"https://user@timbre.example/app/history",
		"javascript:alert(1)",
		"JavaScript:alert(1)",
		"data:text/html,<script>alert(1)</script>",
		"/%2F%2Fevil.example",
		"/%2f%2fevil.example/app/history",
		"%2F%2Fevil.example",
		"/app/%2e%2e/evil",
		"/app/history%252F..%252Fevil",
		"\\\\evil.example",
		"/\\evil.example",
		"/app\\..\\evil",
		"/%5Cevil.example",
		"/app/../evil",
		"/app/./history",
		"/app//history",
		"/app/history/../../evil",
		"app/history",
		"evil.example/app/history",
		"/app/sign-in",
		"/app/unknown-page",
		"/evil",
		"/app/history\n",
		"/app/ history",
		"/app/integrations/x/callback?code=1&redirect_uri=https://evil.example",
		"https:evil.example",
		"https:/evil.example/app/history",
	}
	for _, in := range hostile {
		got, ok := auth.SafeRedirect(in, origin)
		if ok || got != auth.DefaultRedirect {
			t.Errorf("SafeRedirect(%q) = %q, %v; want the default, false", in, got, ok)
		}
	}
	t.Logf("redirect rule: %d allowed targets pass, %d hostile variants fall back to %s", len(allowed), len(hostile), auth.DefaultRedirect)
}
