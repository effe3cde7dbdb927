// Command gen-openapi writes Timbre's OpenAPI document (api/openapi.json) from the ElevenLabs
// reference document, the list of routes Timbre serves (api/routes.txt and api/routes.d/*.txt) and
// Timbre's own hand-written operations (api/timbre-own.json and api/own/*.json). Run it from the
// repository root:
//
//	go run ./cmd/gen-openapi -ref ../shared/reference/elevenlabs-openapi.json -out api/openapi.json
//
// With -check it writes nothing and fails when the output file is not up to date.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"timbre/internal/docs"
)

func main() {
	ref := flag.String("ref", "../shared/reference/elevenlabs-openapi.json", "the ElevenLabs OpenAPI document")
	apiDir := flag.String("api", "api", "the directory with routes.txt, routes.d/*.txt, timbre-own.json and own/*.json")
	out := flag.String("out", "api/openapi.json", "where to write the document")
	check := flag.Bool("check", false, "write nothing; exit 1 if -out differs from what would be written")
	flag.Parse()
	if err := run(*ref, *apiDir, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen-openapi:", err)
		os.Exit(1)
	}
}

func run(refPath, apiDir, outPath string, check bool) error {
	ref, err := os.ReadFile(refPath)
	if err != nil {
		return err
	}
	own, routes, err := docs.LoadSources(apiDir)
	if err != nil {
		return err
	}
	doc, err := docs.Generate(ref, own, routes)
	if err != nil {
		return err
	}
	if check {
		old, err := os.ReadFile(outPath)
		if err != nil {
			return err
		}
		if !bytes.Equal(old, doc) {
			return fmt.Errorf("%s is out of date: run go run ./cmd/gen-openapi", outPath)
		}
		fmt.Printf("%s is up to date (%d routes, %d bytes)\n", outPath, len(routes), len(doc))
		return nil
	}
	if err := os.WriteFile(outPath, doc, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d routes, %d bytes\n", outPath, len(routes), len(doc))
	return nil
}
