#!/usr/bin/env bash
# Installs what Timbre needs on Debian (bookworm): speech engines, codecs, the browser for the
# end-to-end tests, and the npm packages of the web app and the end-to-end tests. Safe to run
# again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(espeak-ng libespeak-ng-dev flite flite1-dev ffmpeg sox libmp3lame-dev pocketsphinx pocketsphinx-en-us libpocketsphinx-dev libwebrtc-audio-processing-dev libaubio-dev librubberband-dev libfluidsynth-dev fluid-soundfont-gm make gcc pkg-config ca-certificates)
if [ "${TIMBRE_WITH_BROWSER:-1}" = 1 ]; then
  packages+=(chromium)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v go >/dev/null || { echo "Go 1.26 is needed: https://go.dev/doc/install" >&2; exit 1; }
command -v npm >/dev/null || { echo "Node.js 20 and npm are needed" >&2; exit 1; }

for dir in web e2e; do
  if [ -f "$dir/package-lock.json" ]; then
    # npm ci only when the lock file changed since the last install.
    stamp="$dir/node_modules/.timbre-lock"
    if [ ! -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
      cp "$dir/package-lock.json" "$stamp"
    fi
  fi
done
