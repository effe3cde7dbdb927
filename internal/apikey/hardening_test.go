package apikey_test

import (
	"context"
	"net/http"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestKeysStayWithinTheirOwnPermissionsAndLimits: a key cannot lift its own character limit,
// create keys when it has a limit, list or delete keys without the key-management permission,
// or edit a key holding permissions it lacks.
func TestKeysStayWithinTheirOwnPermissionsAndLimits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		h := newHarness(t, db)
		mk := func(body map[string]any) (id, secret string) {
			m := h.want(h.do("POST", "/v1/user/create-api-key", h.key, body), http.StatusOK, "")
			return m["key_id"].(string), m["xi_api_key"].(string)
		}
		mainID := h.want(h.do("GET", "/v1/user/api-keys", h.key, nil), http.StatusOK, "")["api_keys"].([]any)[0].(map[string]any)["key_id"].(string)

		// A text_to_speech-only key: no list, no delete (the owner's main key survives).
		_, tts := mk(map[string]any{"name": "tts", "permissions": []string{"text_to_speech"}})
		h.want(h.do("GET", "/v1/user/api-keys", tts, nil), http.StatusUnauthorized, "missing_permissions")
		h.want(h.do("DELETE", "/v1/user/delete-api-key?key_id="+mainID, tts, nil), http.StatusUnauthorized, "missing_permissions")
		if _, err := db.APIKeyByID(context.Background(), h.user.WorkspaceID, mainID); err != nil {
			t.Fatalf("main key gone: %v", err)
		}

		// A limited key with key management: cannot lift its limit, nor mint keys.
		limID, lim := mk(map[string]any{"name": "limited", "permissions": []string{"create_user_api_key", "text_to_speech"}, "character_limit": 100})
		h.want(h.do("POST", "/v1/user/edit-api-key", lim, map[string]any{"key_id": limID, "character_limit": nil}), http.StatusForbidden, "api_key_limited")
		h.want(h.do("POST", "/v1/user/edit-api-key", lim, map[string]any{"key_id": limID, "character_limit": 1000000}), http.StatusForbidden, "api_key_limited")
		h.want(h.do("POST", "/v1/user/create-api-key", lim, map[string]any{"name": "x", "permissions": []string{"text_to_speech"}}), http.StatusForbidden, "api_key_limited")
		if k, _ := db.APIKeyByID(context.Background(), h.user.WorkspaceID, limID); k.CharacterLimit == nil || *k.CharacterLimit != 100 {
			t.Fatalf("limit after refused edits = %v", k.CharacterLimit)
		}

		// An unlimited key with key management but not every permission: may not edit the "all"
		// key, may manage a key within its own permissions.
		_, mgr := mk(map[string]any{"name": "mgr", "permissions": []string{"create_user_api_key", "text_to_speech"}})
		h.want(h.do("POST", "/v1/user/edit-api-key", mgr, map[string]any{"key_id": mainID, "is_enabled": false}), http.StatusForbidden, "missing_permissions")
		ttsID, _ := mk(map[string]any{"name": "tts2", "permissions": []string{"text_to_speech"}})
		h.want(h.do("POST", "/v1/user/edit-api-key", mgr, map[string]any{"key_id": ttsID, "character_limit": 50}), http.StatusOK, "")
		h.want(h.do("DELETE", "/v1/user/delete-api-key?key_id="+ttsID, mgr, nil), http.StatusOK, "")
		h.want(h.do("GET", "/v1/user/api-keys", mgr, nil), http.StatusOK, "")
	})
}
