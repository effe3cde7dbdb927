// Package apikey manages API keys beyond sign-up's first one: their permissions (the API's
// PermissionType names), per-key character quotas, enabling and disabling, the holder's
// self-disable route, and workspace service accounts with their own keys.
package apikey

import "slices"

// Permissions are the API's permission names (the reference's PermissionType enum, in its
// order). A key holds a list of them, or "all".
var Permissions = []string{
	"text_to_speech",
	"speech_to_speech",
	"speech_to_text",
	"models_read",
	"models_write",
	"voices_read",
	"voices_write",
	"speech_history_read",
	"speech_history_write",
	"sound_generation",
	"audio_isolation",
	"voice_generation",
	"dubbing_read",
	"dubbing_write",
	"pronunciation_dictionaries_read",
	"pronunciation_dictionaries_write",
	"user_read",
	"user_write",
	"projects_read",
	"projects_write",
	"audio_native_read",
	"audio_native_write",
	"workspace_read",
	"workspace_write",
	"forced_alignment",
	"convai_read",
	"convai_write",
	"music_generation",
	"image_video_generation",
	"flows",
	"templates",
	"add_voice_from_voice_library",
	"create_instant_voice_clone",
	"create_professional_voice_clone",
	"publish_voice_to_voice_library",
	"share_voice_externally",
	"create_user_api_key",
	"workspace_analytics_full_read",
	"webhooks_write",
	"service_account_write",
	"group_members_manage",
	"workspace_members_read",
	"workspace_members_invite",
	"workspace_members_remove",
	"terms_of_service_accept",
	"audit_log_read",
	"conversation_privacy_manage",
	"copy_resources_cross_workspace",
	"synthid_detector",
}

// All is the permissions value that grants every permission, present and future.
const All = "all"

// Known says whether p is one of the API's permission names.
func Known(p string) bool { return slices.Contains(Permissions, p) }

// Limits.
const (
	// MaxServiceAccounts is how many service accounts a workspace may have (the reference's
	// default; enterprise increases are not offered).
	MaxServiceAccounts = 20
	// MaxNameLength bounds key and service-account names.
	MaxNameLength = 100
	// MaxCharacterLimit bounds a key's character quota (JSON-safe integers).
	MaxCharacterLimit = int64(1) << 53
)

// GroupDuties are the group permissions that hand an admin duty to the group's members; every
// other group permission names a product feature.
var GroupDuties = []string{"view_fiat_balance", "workspace_analytics_full_read", "service_accounts_manage", "webhooks_manage",
	"group_members_manage", "workspace_members_invite", "workspace_members_remove", "terms_of_service_accept", "audit_log_read",
	"conversation_privacy_manage", "copy_resources_cross_workspace"}

// GroupAccess splits a member's group permissions into the features they may use and the
// duties they hold. Groups restrict features only when at least one of them lists a feature:
// features is nil (everything) otherwise, so plain groups for sharing take nothing away.
func GroupAccess(perms []string) (features, duties []string) {
	for _, p := range perms {
		if slices.Contains(GroupDuties, p) {
			duties = append(duties, p)
		} else {
			features = append(features, p)
		}
	}
	return features, duties
}
