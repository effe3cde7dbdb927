// Package web holds the built single-page web app (web/dist), produced by
// `npm run build` in this directory, embedded into the Go binary.
package web

import "embed"

// Dist is the Vite build output. The build must run before `go build`
// (see the Makefile); dist/ is not kept in git.
//
//go:embed all:dist
var Dist embed.FS
