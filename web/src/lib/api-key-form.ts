import type { Schemas } from '@/lib/api';

/**
 * The key form shared by personal API keys and service-account keys: permissions, quota,
 * validation and the edit body.
 */

export type Permission = Schemas['PermissionType'];

/** The API's permission names (the reference's PermissionType enum, in its order). */
export const PERMISSIONS: readonly Permission[] = [
  'text_to_speech',
  'speech_to_speech',
  'speech_to_text',
  'models_read',
  'models_write',
  'voices_read',
  'voices_write',
  'speech_history_read',
  'speech_history_write',
  'sound_generation',
  'audio_isolation',
  'voice_generation',
  'dubbing_read',
  'dubbing_write',
  'pronunciation_dictionaries_read',
  'pronunciation_dictionaries_write',
  'user_read',
  'user_write',
  'projects_read',
  'projects_write',
  'audio_native_read',
  'audio_native_write',
  'workspace_read',
  'workspace_write',
  'forced_alignment',
  'convai_read',
  'convai_write',
  'music_generation',
  'image_video_generation',
  'flows',
  'templates',
  'add_voice_from_voice_library',
  'create_instant_voice_clone',
  'create_professional_voice_clone',
  'publish_voice_to_voice_library',
  'share_voice_externally',
  'create_user_api_key',
  'workspace_analytics_full_read',
  'webhooks_write',
  'service_account_write',
  'group_members_manage',
  'workspace_members_read',
  'workspace_members_invite',
  'workspace_members_remove',
  'terms_of_service_accept',
  'audit_log_read',
  'conversation_privacy_manage',
  'copy_resources_cross_workspace',
  'synthid_detector',
];

export const permissionLabel = (p: string) => p.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

/** What a key form produces: permissions ("all" or a list) and an optional character quota. */
export interface KeyFormValue {
  name: string;
  permissions: Permission[] | 'all';
  /** undefined: no limit. */
  characterLimit: number | undefined;
}

/**
 * The edit body for a changed form: only what differs; a removed quota is "clear".
 * Returns null when nothing changed.
 */
export function editBody(
  before: { name: string; permissions?: Permission[] | null; character_limit?: number | null },
  after: KeyFormValue,
): { name?: string; permissions?: Permission[] | 'all'; character_limit?: number | 'clear' } | null {
  const out: { name?: string; permissions?: Permission[] | 'all'; character_limit?: number | 'clear' } = {};
  if (after.name !== before.name) out.name = after.name;
  const beforeAll = !before.permissions;
  if (after.permissions === 'all') {
    if (!beforeAll) out.permissions = 'all';
  } else if (beforeAll || !sameSet(after.permissions, before.permissions ?? [])) {
    out.permissions = after.permissions;
  }
  const beforeLimit = before.character_limit ?? undefined;
  if (after.characterLimit !== beforeLimit) out.character_limit = after.characterLimit === undefined ? 'clear' : after.characterLimit;
  return Object.keys(out).length === 0 ? null : out;
}

function sameSet(a: readonly string[], b: readonly string[]) {
  return a.length === b.length && a.every((x) => b.includes(x));
}

export const NAME_MAX = 100;

/** Validates a key form: name 1–100 characters, at least one permission, quota a whole number ≥ 0. */
export function validateKeyForm(name: string, perms: Permission[] | 'all', limitText: string): { name?: string; permissions?: string; limit?: string } {
  const errors: { name?: string; permissions?: string; limit?: string } = {};
  const trimmed = name.trim();
  if (!trimmed) errors.name = 'Please enter a name for the key.';
  else if (trimmed.length > NAME_MAX) errors.name = `The name must be at most ${NAME_MAX} characters.`;
  if (perms !== 'all' && perms.length === 0) errors.permissions = 'Pick at least one permission, or allow all.';
  const t = limitText.trim();
  if (t !== '' && !/^\d+$/.test(t)) errors.limit = 'The character limit must be a whole number of 0 or more.';
  else if (t !== '' && !Number.isSafeInteger(Number(t))) errors.limit = 'The character limit is too large.';
  return errors;
}
