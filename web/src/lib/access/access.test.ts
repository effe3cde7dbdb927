import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api';
import { featureAllowed, holdsDuty, isFeatureNotAllowed } from './api';

describe('access rules', () => {
  it('features: no answer or no limit allows everything; a list allows what it names; admins are never limited', () => {
    expect(featureAllowed(undefined, 'text_to_speech')).toBe(true);
    expect(featureAllowed({ role: 'editor', features: null, duties: [] }, 'text_to_speech')).toBe(true);
    expect(featureAllowed({ role: 'editor', features: ['create_user_api_key'], duties: [] }, 'text_to_speech')).toBe(false);
    expect(featureAllowed({ role: 'editor', features: [], duties: [] }, 'text_to_speech')).toBe(false);
    expect(featureAllowed({ role: 'admin', features: [], duties: [] }, 'text_to_speech')).toBe(true);
  });
  it('duties: admins hold all, editors what their groups give, nobody while unknown', () => {
    expect(holdsDuty(undefined, 'audit_log_read')).toBe(false);
    expect(holdsDuty({ role: 'admin', features: null, duties: [] }, 'audit_log_read')).toBe(true);
    expect(holdsDuty({ role: 'editor', features: null, duties: ['audit_log_read'] }, 'audit_log_read')).toBe(true);
    expect(holdsDuty({ role: 'editor', features: null, duties: ['webhooks_manage'] }, 'audit_log_read')).toBe(false);
  });
  it('recognises a feature_not_allowed refusal', () => {
    expect(isFeatureNotAllowed(new ApiError(403, 'no', 'feature_not_allowed'))).toBe(true);
    expect(isFeatureNotAllowed(new ApiError(403, 'no', 'forbidden'))).toBe(false);
  });
});
