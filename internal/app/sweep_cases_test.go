package app_test

import (
	"net/http"
	"net/url"
)

// sweepCase says how the sweeps call one route on workspace A's resources, and what workspace
// B's credentials must get. Path wildcards are filled with A's identifiers (alphaFx.pathValues)
// unless pathVals says otherwise. Every registered route needs an entry: TestTenantSweep fails
// on a route without one.
type sweepCase struct {
	// public: the route needs no credentials, so credentials cannot widen what it gives; the
	// reason it may be public. Not called by the sweep.
	public string
	// own: the route acts only on the caller's own workspace or account (there is no way to name
	// A's data in it); why. B's calls may succeed, but must not 5xx, must not mention A in the
	// response, and must leave A's rows alone.
	own string
	// fresh: the call would end B's own key, session or account, so a throwaway tenant makes it.
	fresh bool

	query    func(a *alphaFx) url.Values
	body     func(a *alphaFx) any
	pathVals map[string]string
	pathFn   func(a *alphaFx) map[string]string
	// also: more calls of the same route (other ids or bodies), each judged like the entry.
	also []sweepCase

	// Statuses that count as refusing B (default 403 or 404), for both credentials or per kind.
	want, keyWant, sessionWant []int
}

func q(kv ...string) func(*alphaFx) url.Values {
	return func(*alphaFx) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
}

func body(v any) func(*alphaFx) any { return func(*alphaFx) any { return v } }

const (
	pubAuth  = "an account route used before signing in: it authenticates by email, password or an emailed code, never by the caller's workspace"
	pubSSO   = "an SSO sign-in step: it is bound to the flow cookie and the IdP's signed answer, not to the caller"
	pubInfra = "server infrastructure or documentation: no tenant data"
)

func betaSA(a *alphaFx) map[string]string {
	return map[string]string{"service_account_user_id": a.betaSAID}
}

func alphaIsolation(a *alphaFx) map[string]string {
	return map[string]string{"history_item_id": a.isolationID}
}

func alphaSound(a *alphaFx) map[string]string {
	return map[string]string{"history_item_id": a.soundID}
}
func alphaSong(a *alphaFx) map[string]string { return map[string]string{"song_id": a.songID} }

func betaVoice(a *alphaFx) map[string]string { return map[string]string{"resource_id": a.betaVoiceID} }

// tenantCases is the sweep table, one entry per registered route.
func tenantCases() map[string]sweepCase {
	sessionOnly := "the caller's own account (session only: a key gets 403 session_required)"
	return map[string]sweepCase{
		// ---- public routes ----
		"POST /api/auth/sign-up":                   {public: pubAuth},
		"POST /api/auth/sign-in":                   {public: pubAuth},
		"POST /api/auth/sign-out":                  {public: "ends the session of the cookie it is sent with, and only that one"},
		"GET /api/auth/session":                    {public: "describes the session of the cookie it is sent with (401 without one)"},
		"POST /api/auth/verify-email":              {public: pubAuth},
		"POST /api/auth/send-verification-email":   {public: pubAuth},
		"POST /api/auth/send-password-reset-email": {public: pubAuth},
		"POST /api/auth/check-reset-code":          {public: pubAuth},
		"POST /api/auth/reset-password":            {public: pubAuth},
		"POST /api/auth/action":                    {public: pubAuth + " (the email-action handler)"},
		"POST /api/auth/mfa/verify":                {public: "the second sign-in step: it needs the challenge token from a correct password"},
		"GET /api/dev/mailbox":                     {public: "the development mailbox: off when SMTP is configured and readable only from the server's own machine"},
		"GET /api/share/{token}":                   {public: "a share link: the random token is the capability, as in the API"},
		"GET /api/share/{token}/audio":             {public: "a share link's audio: the random token is the capability"},
		"GET /api/workspace/invites/{code}":        {public: "the invitation page: the random invite code is the capability"},
		"GET /api/voices/{voice_id}/preview.mp3":   {public: "previews of premade voices only (a workspace's voice gives 404), as the API's preview_url values are public"},
		"GET /v1/voices/settings/default":          {public: "the default voice settings: the same for everyone"},
		"GET /v1/workspace/find-sso-provider":      {public: "the SSO sign-in lookup by email domain, made before signing in (spec: find-sso-provider)"},
		"GET /api/capabilities":                    {public: "the features the server offers (the same for everyone) plus the caller's own plan limits"},
		"GET /api/sso/start":                       {public: pubSSO},
		"GET /api/sso/oidc/callback":               {public: pubSSO},
		"POST /api/sso/saml/acs":                   {public: pubSSO},
		"GET /api/sso/saml/metadata":               {public: "the service provider's SAML metadata: the same for everyone"},
		"GET /docs":                                {public: pubInfra},
		"GET /openapi.json":                        {public: pubInfra},
		"GET /healthz":                             {public: pubInfra},
		"GET /readyz":                              {public: pubInfra},

		// ---- the caller's own account ----
		"GET /api/auth/mfa":               {own: sessionOnly},
		"POST /api/auth/mfa/totp/enroll":  {own: sessionOnly},
		"POST /api/auth/mfa/totp/confirm": {own: sessionOnly, body: body(map[string]any{"code": "000000"})},
		"POST /api/auth/mfa/totp/disable": {own: sessionOnly, body: body(map[string]any{"code": "000000"})},
		"POST /v1/user/backup-code":       {own: sessionOnly, body: body(map[string]any{"code": "000000"})},
		"POST /v1/user/backup-code/{code}/remove-mfa": {own: sessionOnly + "; the code is one of the caller's own backup codes",
			pathVals: map[string]string{"code": "abcd-efgh"}},
		"GET /api/auth/sessions":             {own: sessionOnly + "; lists the caller's sessions"},
		"DELETE /api/auth/sessions":          {own: sessionOnly + "; ends the caller's other sessions", fresh: true},
		"POST /api/auth/sign-out-everywhere": {own: sessionOnly + "; ends the caller's sessions", fresh: true},
		"POST /api/auth/change-password":     {own: sessionOnly + "; changes the caller's password and ends their sessions", fresh: true, body: body(map[string]any{"current_password": "correct horse battery", "new_password": "another good passphrase"})},
		"POST /v1/user/send-email-change-verification": {own: sessionOnly + "; asking for A's admin's address is refused as taken",
			body: func(a *alphaFx) any { return map[string]any{"email": a.admin.Email} }},
		"PUT /v1/user/email":                               {own: sessionOnly, query: q("verification_code", "000000")},
		"POST /v1/user/opt-out-of-updates":                 {own: "the caller's own mail preferences"},
		"POST /v1/user/sign-in-requests/verify":            {own: sessionOnly, body: body(map[string]any{"sign_in_request_verification_code": "000000"})},
		"DELETE /v1/user/delete":                           {own: sessionOnly + "; deletes the caller's account", fresh: true},
		"GET /v1/user/referral-link":                       {own: "the caller's own referral link"},
		"POST /v1/user/verify-sensitive-action-code":       {own: sessionOnly + "; the code must be one mailed to the caller", body: body(map[string]any{"code": "000000"})},
		"GET /v1/user":                                     {own: "the caller's user and workspace"},
		"POST /v1/user/onboarding-survey-complete":         {own: "the caller's own survey", body: body(map[string]any{"first_name": "Beta", "role": "dev"})},
		"POST /v1/user/onboarding-checklist/initiate":      {own: "the caller's own checklist"},
		"POST /v1/user/onboarding-checklist/update":        {own: "the caller's own checklist", body: body(map[string]any{"item_id": "api_key_unhidden"})},
		"POST /v1/user/onboarding-checklist/hide":          {own: "the caller's own checklist"},
		"POST /v1/user/onboarding-checklist/mark-complete": {own: "the caller's own checklist"},
		"GET /api/notifications":                           {own: "the caller's own notifications"},
		"POST /api/notifications/read-all":                 {own: "the caller's own notifications"},
		"POST /api/notifications/{message_id}/read":        {pathFn: func(a *alphaFx) map[string]string { return map[string]string{"message_id": a.messageID} }},
		"POST /api/account/ccpa-opt-out":                   {own: "the caller's own privacy choice", body: body(map[string]any{"ccpa_opt_out": true})},
		"POST /v1/user/accept-bipa-terms":                  {own: "the caller's own terms"},
		"GET /v1/user/has-alpha-access":                    {own: "the caller's own flag"},
		"POST /v1/user/request-alpha-access":               {own: "the caller's own request"},
		"POST /v1/user/update-public-user-name":            {own: "the caller's own public name", body: body(map[string]any{"public_user_name": "Beta"})},
		"GET /v1/user/subscription":                        {own: "the caller's workspace's plan"},
		"GET /v1/usage/character-stats":                    {own: "the caller's usage, read from its own workspace's ledger"},
		"POST /v1/speech-to-text":                          {own: "transcribes the audio the caller sends, charged to the caller's workspace"},
		"POST /v1/audio/transcriptions":                    {own: "transcribes the audio the caller sends, charged to the caller's workspace"},
		"POST /v1/forced-alignment":                        {own: "aligns the audio and text the caller sends, charged to the caller's workspace"},
		"GET /v1/speech-to-text/realtime":                  {own: "transcribes the audio the caller streams, charged to the caller's workspace"},
		"POST /v1/speech-classifier":                       {own: "looks for the server's watermark in the audio the caller sends; reads no workspace data and stores nothing"},
		"POST /v1/voices/add":                              {own: "makes a cloned voice in the caller's own workspace"},
		"POST /v1/voices/pvc":                              {own: "makes a professional voice in the caller's own workspace"},
		// A's voice is not B's: every professional-cloning call on it must find nothing.
		"POST /v1/voices/pvc/{voice_id}":                                                {body: body(map[string]any{"name": "Stolen"})},
		"POST /v1/voices/pvc/{voice_id}/samples":                                        {},
		"POST /v1/voices/pvc/{voice_id}/samples/{sample_id}":                            {body: body(map[string]any{"trim_start_time": 0})},
		"DELETE /v1/voices/pvc/{voice_id}/samples/{sample_id}":                          {},
		"GET /v1/voices/pvc/{voice_id}/samples/{sample_id}/audio":                       {},
		"GET /v1/voices/pvc/{voice_id}/samples/{sample_id}/waveform":                    {},
		"GET /v1/voices/pvc/{voice_id}/samples/{sample_id}/speakers":                    {},
		"POST /v1/voices/pvc/{voice_id}/samples/{sample_id}/separate-speakers":          {},
		"GET /v1/voices/pvc/{voice_id}/samples/{sample_id}/speakers/{speaker_id}/audio": {},
		"GET /v1/voices/pvc/{voice_id}/captcha":                                         {},
		"POST /v1/voices/pvc/{voice_id}/captcha":                                        {},
		"POST /v1/voices/pvc/{voice_id}/train":                                          {body: body(map[string]any{"model_id": "eleven_multilingual_v2"})},
		"POST /v1/voices/pvc/{voice_id}/verification":                                   {},
		"GET /v1/shared-voices":                                                         {own: "the voice library: voices any workspace published (the one deliberate cross-workspace read); A published none, so none of A's appear", query: q("search", "Alpha")},
		"POST /v1/similar-voices":                                                       {own: "ranks the library's published voices against the caller's clip; no workspace's private voices are read"},
		"GET /v1/voices/collections":                                                    {own: "the caller's workspace's collections"},
		"POST /v1/voices/collections":                                                   {own: "makes a collection in the caller's workspace", body: body(map[string]any{"title": "Beta picks", "icon": "🎧"})},
		"POST /v1/text-to-voice/create-previews":                                        {own: "designs previews of the caller's own description, charged to the caller's workspace", body: body(map[string]any{"voice_description": "a calm young American woman", "auto_generate_text": true})},
		"POST /v1/text-to-voice/design":                                                 {own: "designs previews of the caller's own description, charged to the caller's workspace", body: body(map[string]any{"voice_description": "a calm young American woman", "auto_generate_text": true})},
		"POST /v1/audio-isolation":                                                      {own: "isolates the audio the caller sends, charged to the caller's workspace"},
		"POST /v1/audio-isolation/stream":                                               {own: "isolates the audio the caller sends, charged to the caller's workspace"},
		"POST /v1/music":                                                                {own: "composes for the caller, charged to the caller's workspace", body: body(map[string]any{"prompt": "jazz", "music_length_ms": 3000})},
		"POST /v1/music/stream":                                                         {own: "composes for the caller, charged to the caller's workspace", body: body(map[string]any{"prompt": "jazz", "music_length_ms": 3000})},
		"POST /v1/music/detailed":                                                       {own: "composes for the caller, charged to the caller's workspace", body: body(map[string]any{"prompt": "jazz", "music_length_ms": 3000})},
		"POST /v1/music/detailed/stream":                                                {own: "composes for the caller, charged to the caller's workspace", body: body(map[string]any{"prompt": "jazz", "music_length_ms": 3000})},
		"POST /v1/music/plan":                                                           {own: "writes a plan from the caller's prompt; reads no stored data", body: body(map[string]any{"prompt": "alpha jazz"})},
		"GET /v1/music/history":                                                         {own: "the caller's own songs (A's must not be among them)", query: q("search", "alpha")},
		"GET /v1/audio-isolation/history":                                               {own: "the caller's own isolations (A's must not be among them)", query: q("search", "alpha podcast")},
		"GET /v1/pronunciation-dictionaries":                                            {own: "the caller's own workspace's dictionaries (A's must not be among them)"},
		"POST /v1/pronunciation-dictionaries/add-from-rules":                            {own: "creates a dictionary in the caller's workspace", body: body(map[string]any{"name": "Beta words", "rules": []any{}})},
		"POST /v1/pronunciation-dictionaries/add-from-file":                             {own: "creates a dictionary in the caller's workspace from the uploaded file"},
		"POST /v1/sound-generation":                                                     {own: "makes the sound the caller describes, charged to the caller's workspace", body: body(map[string]any{"text": "a door slams", "duration_seconds": 0.5})},
		"GET /v1/sound-generation/history":                                              {own: "the caller's own sound effects (A's must not be among them)", query: q("search", "alpha thunder")},
		"GET /v1/sound-generation/explore":                                              {own: "the server's curated prompt catalogue: no tenant data"},
		"GET /v1/sound-generation/explore/{prompt_id}/audio":                            {own: "a curated prompt's preview, the same for every workspace: no tenant data", pathVals: map[string]string{"prompt_id": "storm"}},
		"POST /v1/single-use-token/{token_type}":                                        {own: "a token acting for the caller's own key or session"},
		"GET /v1/user/api-keys":                                                         {own: "the caller's workspace's keys"},
		"POST /v1/user/create-api-key":                                                  {own: "makes a key for the caller", body: body(map[string]any{"name": "beta key"})},
		"POST /v1/workspaces/api-keys/disable":                                          {own: "the key of the request disables itself (a session has none: 400)", fresh: true, query: q("api_key_name", "self")},
		"GET /api/workspaces":                                                           {own: "the caller's workspaces"},
		"POST /api/workspaces":                                                          {own: "a new workspace owned by the caller (session only: a key gets 400 session_required)", body: body(map[string]any{"name": "Beta's second"})},
		"PATCH /api/workspace":                                                          {own: "renames the caller's own workspace", body: body(map[string]any{"name": "Beta renamed"})},
		"PATCH /api/account":                                                            {own: "the caller's own first name", body: body(map[string]any{"first_name": "Beta"})},
		"GET /v1/models":                                                                {own: "the models: the same for everyone"},
		"GET /v1/voices":                                                                {own: "the voices the caller's workspace sees (A's voice must not be among them)"},
		"GET /v2/voices":                                                                {own: "the voices the caller's workspace sees", query: q("search", "Alpha private")},
		"GET /v1/history":                                                               {own: "the caller's workspace's history"},
		"GET /v1/workspace/members":                                                     {own: "the caller's workspace's members"},
		"GET /v1/workspace/groups":                                                      {own: "the caller's workspace's groups"},
		"GET /v1/workspace/groups/search":                                               {own: "searches the caller's workspace's groups (for A's group's name)", query: func(a *alphaFx) url.Values { return url.Values{"name": {a.groupName}} }},
		"GET /v1/workspace/can-access-workspace-settings":                               {own: "the caller's role"},
		"GET /v1/workspace/is-admin":                                                    {own: "the caller's role"},
		"GET /api/workspace/access":                                                     {own: "the caller's role and groups"},
		"GET /api/workspace/invites":                                                    {own: "the caller's workspace's invites"},
		"GET /v1/workspace/webhooks":                                                    {own: "the caller's workspace's webhooks", query: q("include_usages", "true")},
		"GET /v1/service-accounts":                                                      {own: "the caller's workspace's service accounts"},
		"GET /v1/workspace/identity-providers":                                          {own: "the caller's workspace's identity providers"},
		"GET /api/workspace/sso/settings":                                               {own: "the caller's workspace's SSO settings"},
		"PATCH /api/workspace/sso/settings":                                             {own: "the caller's workspace's SSO settings", body: body(map[string]any{"user_auto_provisioning_enabled": true, "sso_required": true})},
		"GET /api/workspace/sso/domains":                                                {own: "the caller's workspace's SSO domain claims"},
		"GET /api/workspace/settings":                                                   {own: "the caller's workspace's security settings"},
		"PATCH /api/workspace/settings":                                                 {own: "the caller's workspace's security settings", body: body(map[string]any{"session_inactivity_timeout": 3600})},
		"GET /v1/workspace/audit-logs":                                                  {own: "the caller's workspace's audit log"},
		"PUT /v1/workspace/update-workspace":                                            {own: "the caller's workspace's training opt-out", query: q("training_opt_out", "true")},
		"POST /api/workspace/groups":                                                    {own: "makes a group in the caller's workspace", body: body(map[string]any{"name": "beta group"})},
		"POST /v1/service-accounts":                                                     {own: "makes a service account in the caller's workspace", body: body(map[string]any{"name": "beta robot"})},
		"POST /v1/workspace/webhooks": {own: "makes a webhook in the caller's workspace", body: body(map[string]any{"settings": map[string]any{
			"auth_type": "hmac", "name": "beta hook", "webhook_url": "https://93.184.215.14/beta-hook"}})},

		// ---- A's resources, named by B ----
		"GET /v1/history/{history_item_id}":                             {},
		"GET /v1/speech-to-text/transcripts/{transcription_id}":         {},
		"DELETE /v1/speech-to-text/transcripts/{transcription_id}":      {},
		"GET /api/speech-to-text/transcripts":                           {own: "lists the transcripts of the caller's own workspace"},
		"GET /api/speech-to-text/transcripts/{transcription_id}":        {},
		"PATCH /api/speech-to-text/transcripts/{transcription_id}":      {body: body(map[string]any{"text": "Beta was here.", "speaker_names": map[string]string{"speaker_0": "Beta"}})},
		"GET /api/speech-to-text/transcripts/{transcription_id}/audio":  {},
		"GET /api/speech-to-text/transcripts/{transcription_id}/export": {query: q("format", "txt")},
		"GET /v1/history/{history_item_id}/audio":                       {},
		"GET /v1/history/{history_item_id}/share-link":                  {},
		"DELETE /v1/history/{history_item_id}":                          {},
		"POST /v1/history/{history_item_id}/feedback":                   {body: body(map[string]any{"thumbs_up": false, "feedback": "B was here and did not like it"})},
		"POST /v1/history/download":                                     {body: func(a *alphaFx) any { return map[string]any{"history_item_ids": []string{a.historyID}} }},
		"GET /v1/voices/{voice_id}":                                     {},
		"GET /v1/voices/{voice_id}/settings":                            {},
		"POST /v1/voices/{voice_id}/edit":                               {},
		"DELETE /v1/voices/{voice_id}":                                  {},
		"POST /v1/voices/{voice_id}/share":                              {body: body(map[string]any{"description": "Shared by B"})},
		"DELETE /v1/voices/{voice_id}/share":                            {},
		// A's voice is not published: adding it by A's public id must find nothing.
		"POST /v1/voices/add/{public_user_id}/{voice_id}":                {body: body(map[string]any{"new_name": "Stolen"})},
		"GET /v1/voices/collections/{collection_id}":                     {},
		"PATCH /v1/voices/collections/{collection_id}":                   {body: body(map[string]any{"title": "Beta was here"})},
		"DELETE /v1/voices/collections/{collection_id}":                  {},
		"POST /v1/voices/collections/{collection_id}/voice/{voice_id}":   {},
		"DELETE /v1/voices/collections/{collection_id}/voice/{voice_id}": {},
		"GET /v1/voices/{voice_id}/samples/{sample_id}/audio":            {},
		"DELETE /v1/voices/{voice_id}/samples/{sample_id}":               {},
		"POST /v1/voices/{voice_id}/settings/edit":                       {body: body(map[string]any{"stability": 0.9, "similarity_boost": 0.1})},
		"POST /v1/text-to-voice/{voice_id}/remix":                        {body: body(map[string]any{"voice_description": "deeper and slower"})},
		"GET /v1/text-to-voice/{generated_voice_id}/stream":              {},
		"GET /v1/voices/{voice_id}/captcha":                              {},
		"POST /v1/voices/{voice_id}/captcha":                             {},
		"POST /v1/text-to-voice": {body: func(a *alphaFx) any {
			return map[string]any{"voice_name": "Stolen", "voice_description": "a calm young American woman", "generated_voice_id": a.previewID}
		}},
		"POST /v1/text-to-speech/{voice_id}":                                 {body: body(map[string]any{"text": "Beta speaks."})},
		"POST /v1/text-to-speech/{voice_id}/stream":                          {body: body(map[string]any{"text": "Beta speaks."})},
		"POST /v1/text-to-speech/{voice_id}/with-timestamps":                 {body: body(map[string]any{"text": "Beta speaks."})},
		"POST /v1/text-to-speech/{voice_id}/stream/with-timestamps":          {body: body(map[string]any{"text": "Beta speaks."})},
		"GET /v1/audio-isolation/history/{history_item_id}/audio":            {pathFn: alphaIsolation},
		"GET /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}":   {},
		"PATCH /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}": {body: body(map[string]any{"name": "taken by B", "archived": true})},
		"POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/add-rules": {body: body(map[string]any{"rules": []any{
			map[string]any{"type": "alias", "string_to_replace": "Beta", "alias": "B was here"}}})},
		"POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/remove-rules": {body: body(map[string]any{"rule_strings": []string{"Alpha"}})},
		"POST /v1/pronunciation-dictionaries/{pronunciation_dictionary_id}/set-rules":    {body: body(map[string]any{"rules": []any{}})},
		"GET /v1/pronunciation-dictionaries/{dictionary_id}/{version_id}/download":       {},
		"DELETE /v1/audio-isolation/history/{history_item_id}":                           {pathFn: alphaIsolation},
		"POST /v1/speech-to-speech/{voice_id}":                                           {},
		"POST /v1/speech-to-speech/{voice_id}/stream":                                    {},
		"POST /v1/text-to-dialogue":                                                      {body: dialogueOfA},
		"POST /v1/text-to-dialogue/stream":                                               {body: dialogueOfA},
		"POST /v1/text-to-dialogue/with-timestamps":                                      {body: dialogueOfA},
		"POST /v1/text-to-dialogue/stream/with-timestamps":                               {body: dialogueOfA},
		"GET /v1/sound-generation/history/{history_item_id}/audio":                       {pathFn: alphaSound},
		"DELETE /v1/sound-generation/history/{history_item_id}":                          {pathFn: alphaSound},
		"GET /v1/music/history/{song_id}/audio":                                          {pathFn: alphaSong},
		"DELETE /v1/music/history/{song_id}":                                             {pathFn: alphaSong},
		"POST /v1/audio/speech": {body: func(a *alphaFx) any {
			return map[string]any{"model": "tts-1", "input": "Beta speaks.", "voice": a.voiceID}
		}},
		"DELETE /v1/user/delete-api-key": {query: func(a *alphaFx) url.Values { return url.Values{"key_id": {a.editorKeyID}} },
			also: []sweepCase{
				{query: func(a *alphaFx) url.Values { return url.Values{"key_id": {a.adminKeyID}} }},
				{query: func(a *alphaFx) url.Values { return url.Values{"key_id": {a.saKeyID}} }},
			}},
		"POST /v1/user/edit-api-key": {body: func(a *alphaFx) any {
			return map[string]any{"key_id": a.editorKeyID, "name": "taken by B", "is_enabled": false}
		}, also: []sweepCase{
			{body: func(a *alphaFx) any {
				return map[string]any{"key_id": a.adminKeyID, "permissions": []string{"text_to_speech"}}
			}},
			{body: func(a *alphaFx) any { return map[string]any{"key_id": a.saKeyID, "is_enabled": false} }},
		}},
		"GET /v1/service-accounts/{service_account_user_id}/api-keys":  {},
		"POST /v1/service-accounts/{service_account_user_id}/api-keys": {body: body(map[string]any{"name": "B's way in", "permissions": []string{"text_to_speech"}})},
		"PATCH /v1/service-accounts/{service_account_user_id}/api-keys/{api_key_id}": {body: body(map[string]any{"name": "taken by B", "is_enabled": false}),
			also: []sweepCase{{pathFn: betaSA, body: body(map[string]any{"name": "taken by B", "is_enabled": false})}}},
		"DELETE /v1/service-accounts/{service_account_user_id}/api-keys/{api_key_id}": {also: []sweepCase{{pathFn: betaSA}}},
		"DELETE /v1/service-accounts/{service_account_user_id}":                       {},
		"POST /v1/workspace/members": {body: func(a *alphaFx) any {
			return map[string]any{"email": a.editor.Email, "workspace_seat_type": "workspace_admin"}
		}},
		"DELETE /api/workspace/members/{user_id}": {},
		// Inviting is B's own business; naming one of A's groups in the invite is refused as invalid.
		"POST /v1/workspace/invites/add": {body: func(a *alphaFx) any {
			return map[string]any{"email": "beta-invitee@beta-corp.example", "group_ids": []string{a.groupID}}
		}, want: []int{http.StatusUnprocessableEntity}},
		"POST /v1/workspace/invites/add-bulk": {body: func(a *alphaFx) any {
			return map[string]any{"emails": []string{"beta-invitee@beta-corp.example"}, "group_ids": []string{a.groupID}}
		}, want: []int{http.StatusUnprocessableEntity}},
		"DELETE /v1/workspace/invites":                        {body: func(a *alphaFx) any { return map[string]any{"email": a.inviteEmail} }},
		"POST /v1/workspace/invites/{code}/accept":            {},
		"POST /v1/workspace/invites/{code}/decline":           {},
		"PATCH /api/workspace/groups/{group_id}":              {body: body(map[string]any{"name": "renamed by B", "permissions": []string{"dubbing"}})},
		"DELETE /api/workspace/groups/{group_id}":             {},
		"POST /v1/workspace/groups/{group_id}/members":        {body: func(a *alphaFx) any { return map[string]any{"email": a.editor.Email} }},
		"POST /v1/workspace/groups/{group_id}/members/remove": {body: func(a *alphaFx) any { return map[string]any{"email": a.editor.Email} }},
		"GET /v1/workspace/resources/{resource_id}": {query: q("resource_type", "history"),
			also: []sweepCase{{pathFn: func(a *alphaFx) map[string]string { return map[string]string{"resource_id": a.voiceID} }, query: q("resource_type", "voice")}}},
		"POST /v1/workspace/resources/{resource_id}/share": {body: body(map[string]any{"role": "admin", "resource_type": "history", "group_id": "default"}),
			// B's own voice, shared with A's group, A's editor or A's key: no such principal in B.
			also: []sweepCase{
				{pathFn: betaVoice, body: func(a *alphaFx) any {
					return map[string]any{"role": "viewer", "resource_type": "voice", "group_id": a.groupID}
				}},
				{pathFn: betaVoice, body: func(a *alphaFx) any {
					return map[string]any{"role": "viewer", "resource_type": "voice", "user_email": a.editor.Email}
				}},
				{pathFn: betaVoice, body: func(a *alphaFx) any {
					return map[string]any{"role": "viewer", "resource_type": "voice", "workspace_api_key_id": a.editorKeyID}
				}},
			}},
		"POST /v1/workspace/resources/{resource_id}/unshare": {body: func(a *alphaFx) any {
			return map[string]any{"resource_type": "history", "group_id": a.groupID}
		}, also: []sweepCase{
			{pathFn: betaVoice, body: func(a *alphaFx) any { return map[string]any{"resource_type": "voice", "group_id": a.groupID} }},
		}},
		"PATCH /v1/workspace/webhooks/{webhook_id}":           {body: body(map[string]any{"is_disabled": true, "name": "taken by B"})},
		"DELETE /v1/workspace/webhooks/{webhook_id}":          {},
		"GET /api/workspace/webhooks/{webhook_id}/deliveries": {},
		"POST /api/workspace/webhooks/{webhook_id}/test":      {},
		"GET /api/workspace/sso/providers/{provider_id}":      {},
		"PATCH /api/workspace/sso/providers/{provider_id}":    {body: body(map[string]any{"enabled": false, "name": "taken by B"})},
		"DELETE /api/workspace/sso/providers/{provider_id}":   {},
		// B has no claim on A's domain, so there is nothing of B's to verify (and A's stays A's).
		"POST /api/workspace/sso/domains/{domain}/verify": {pathFn: func(a *alphaFx) map[string]string { return map[string]string{"domain": a.domain} }},
		// A verified domain belongs to one workspace: B cannot claim A's.
		"POST /api/workspace/sso/providers": {body: func(a *alphaFx) any {
			return map[string]any{"type": "oidc", "name": "beta idp", "domains": []string{a.domain}, "issuer": "https://idp.beta-corp.example",
				"client_id": "beta", "client_secret": "beta-secret"}
		}, want: []int{http.StatusConflict}},
		// Switching is for sessions (a key gets 400 session_required); A is not among B's workspaces.
		"POST /api/workspaces/switch": {body: func(a *alphaFx) any { return map[string]any{"workspace_id": a.ws} },
			keyWant: []int{http.StatusBadRequest}},
		"DELETE /api/auth/sessions/{session_id}": {},
	}
}

// dialogueOfA is a dialogue whose second line names A's voice: B must get voice_not_found.
func dialogueOfA(a *alphaFx) any {
	return map[string]any{"inputs": []map[string]string{
		{"text": "Beta speaks.", "voice_id": "EXAVITQu4vr4xnSDxMaL"}, {"text": "With A's voice.", "voice_id": a.voiceID}}}
}
