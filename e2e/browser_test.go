package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBrowserSignUpToDownload walks the web app as a person would (browser.mjs, headless
// Chromium): sign up, verify the email through the development mailbox, sign in, generate
// speech, hear it in the global player, find it in the history and download it. The last
// screen is saved to e2e/screenshots/text-to-speech.png (failure.png when a step fails).
func TestBrowserSignUpToDownload(t *testing.T) {
	node := requireNode(t, "playwright-core")
	chromium := os.Getenv("CHROMIUM_PATH")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		msg := "no Chromium at " + chromium + " (apt-get install chromium, or set CHROMIUM_PATH)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: not skipping)")
		}
		t.Skip("skipping: " + msg)
	}
	shots, err := filepath.Abs("screenshots")
	if err != nil {
		t.Fatal(err)
	}
	srv := StartTimbre(t)
	runNode(t, node, 100*time.Second, "browser.mjs",
		"TIMBRE_BASE_URL="+srv.URL,
		"CHROMIUM_PATH="+chromium,
		"TIMBRE_SCREENSHOTS="+shots,
	)
}
