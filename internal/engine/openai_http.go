package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// openAIServer is what the adapters for OpenAI-compatible servers share (speech, transcription):
// the endpoint under the server's /v1, the bearer key, the HTTP client, and one exchange.
type openAIServer struct {
	name     string // the engine's name, which prefixes its errors
	endpoint string
	apiKey   string
	client   *http.Client
}

// newOpenAIServer addresses path (e.g. "/audio/speech") on the server at baseURL, given with or
// without the "/v1" suffix OpenAI clients use ("http://kokoro:8880" and "http://kokoro:8880/v1"
// are the same server). A nil client is http.DefaultClient.
func newOpenAIServer(name, baseURL, apiKey, path string, client *http.Client) openAIServer {
	base := strings.TrimSuffix(baseURL, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	if client == nil {
		client = http.DefaultClient
	}
	return openAIServer{name: name, endpoint: base + path, apiKey: apiKey, client: client}
}

// post sends body (of contentType) with the key as a bearer token and reads the answer: its
// status and at most limit bytes of its body (limit ≤ 0: all of it). what names the body in a
// reading error ("audio", "the transcript"). A request that fails because ctx ended returns
// ctx's error.
func (s openAIServer) post(ctx context.Context, contentType, accept string, body io.Reader, limit int64, what string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, body)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if s.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+s.apiKey)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("%s: %w", s.name, err)
	}
	defer resp.Body.Close()
	r := io.Reader(resp.Body)
	if limit > 0 {
		r = io.LimitReader(r, limit)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading %s: %w", s.name, what, err)
	}
	return resp, data, nil
}
